#include "config/setting_table.hpp"

#include "config/backend_names.hpp"
#include "config/quantities.hpp"
#include "wire/limits.hpp"

namespace fiber::config {

// Built on first use, so a caller's static initializers may read it too.
const std::vector<Setting>& Table() {
  static const std::vector<Setting> table = {
    {"backend", "FIBER_BACKEND", "--backend", "where workers run", BackendName()},
    {"listen_host", "FIBER_LISTEN_HOST", "--listen-host",
     "address the master listens on (and workers connect to, unless advertise_host is set)",
     Text(&Settings::listen_host, "a host name or address"), kShownAtRun},
    {"advertise_host", "FIBER_ADVERTISE_HOST", "--advertise-host",
     "the host workers connect to, when not listen_host (e.g. listen_host 0.0.0.0 and this "
     "machine's name in the cluster's network)",
     Text(&Settings::advertise_host, "a host name or address"), kShownAtRun},
    {"listen_port", "FIBER_LISTEN_PORT", "--listen-port",
     "the run's one port, through which every pool is served (0: any free one)",
     Whole(&Settings::listen_port, 0, 65535, "a port number")},
    {"heartbeat_interval", kHeartbeatInterval, "--heartbeat-interval",
     "time between ZeroMQ heartbeats on each worker's connection (e.g. 2, 2s or 500ms)",
     Seconds(&Settings::heartbeat_interval, std::chrono::milliseconds(10))},
    {"heartbeat_timeout", kHeartbeatTimeout, "--heartbeat-timeout",
     "silence after which a worker, or the master, counts as dead (e.g. 5s)",
     Seconds(&Settings::heartbeat_timeout, std::chrono::milliseconds(100))},
    {"start_timeout", kStartTimeout, "--start-timeout",
     "how long a new worker may take to connect, and a worker waits for its master (e.g. 1m)",
     Seconds(&Settings::start_timeout, std::chrono::milliseconds(100))},
    {"prefetch", "FIBER_PREFETCH", "--prefetch",
     "the fewest tasks a worker holds at once; fed short tasks it asks for more",
     Whole(&Settings::prefetch, 1, wire::kMaxCredit, "a whole number")},
    {"metrics", "FIBER_METRICS", "--metrics",
     "where the master serves Prometheus metrics at /metrics, e.g. :9100 (loopback), 10.0.0.5:9100, "
     "[::1]:9100 or 0.0.0.0:9100 (every address) (empty: nowhere)",
     ListenAddress(&Settings::metrics), kShownAtRun},
    {"log", "FIBER_LOG", "--log", "warning, or info (or debug) to also log workers connecting", LogLevel()},
    {"cpu", "FIBER_CPU", "--cpu",
     "CPUs each worker asks for, e.g. 2, 0.5 or 500m (0: the backend's default)",
     Quantity(&Settings::cpu_millis, "a number of CPUs", ParseCpu, FormatCpu)},
    {"memory", "FIBER_MEMORY", "--memory",
     "memory each worker asks for, e.g. 512Mi, 2Gi, 2GB or 256m (0: the backend's default)",
     Quantity(&Settings::memory_mib, "a size", ParseMemory, FormatMemory)},
    {"gpu", "FIBER_GPU", "--gpu", "GPUs each worker asks for",
     Whole(&Settings::gpu, 0, 1024, "a whole number")},
    {"engine", "FIBER_ENGINE", "--engine",
     "the container backend's engine: docker, podman, or auto (the first whose socket exists)",
     EngineName()},
    {"image", "FIBER_IMAGE", "--image",
     "the image container workers run, holding the program at the same path (none: fiber run "
     "packages the program)",
     Text(&Settings::image, "an image reference")},
    {"network", "FIBER_NETWORK", "--network",
     "the container network workers join, e.g. a bridge made with docker network create (none: "
     "the host's network); the master must listen on an address of it, such as its gateway",
     Text(&Settings::network, "a network name"), kShownAtRun},
    {"image_files", "FIBER_IMAGE_FILES", "--image-files",
     "files and directories packaged with the program, ':'-separated (a list in a file)",
     Paths(&Settings::image_files), kShownAtRun},
    {"registry", "FIBER_REGISTRY", "--registry",
     "where a packaged image is pushed, REGISTRY/NAME (none: loaded into the local engine)",
     Text(&Settings::registry, "a registry and image name"), kShownAtRun},
    {"registry_token_service", "FIBER_REGISTRY_TOKEN_SERVICE", "--registry-token-service",
     "a token service on another host that may have the registry's credentials, as a URL "
     "(e.g. https://auth.docker.io for Docker Hub; none: only the registry itself)",
     Text(&Settings::registry_token_service, "an https:// URL"), kShownAtRun},
    {"kubeconfig", "FIBER_KUBECONFIG", "--kubeconfig",
     "the kubeconfig file the kubernetes backend uses alone (none: KUBECONFIG, else "
     "~/.kube/config)",
     Text(&Settings::kubeconfig, "a file name"), kShownAtRun},
    {"context", "FIBER_CONTEXT", "--context",
     "the kubeconfig context the kubernetes backend uses (none: its current-context)",
     Text(&Settings::context, "a context name"), kShownAtRun},
    {"namespace", "FIBER_NAMESPACE", "--namespace",
     "the Kubernetes namespace workers run in (none: the context's, else default)",
     Text(&Settings::namespace_name, "a namespace name")},
    {"kube_qps", "FIBER_KUBE_QPS", "--kube-qps",
     "the Kubernetes API requests a run makes a second, on average",
     Whole(&Settings::kube_qps, 1, 100000, "a whole number")},
    {"kube_burst", "FIBER_KUBE_BURST", "--kube-burst",
     "the Kubernetes API requests a run makes at once, above kube_qps, after a quiet spell",
     Whole(&Settings::kube_burst, 1, 100000, "a whole number")},
    {"host_network", "FIBER_HOST_NETWORK", "--host-network",
     "true: Kubernetes pods use their node's network, to reach a master on that node",
     YesNo(&Settings::host_network)},
    {"templates", "FIBER_TEMPLATES", "--templates",
     "a directory of edited copies of the Kubernetes templates (none: fiber's own)",
     Text(&Settings::templates, "a directory"), kShownAtRun},
    {"partition", "FIBER_PARTITION", "--partition",
     "the Slurm partition worker jobs go to (none: the cluster's default)",
     Text(&Settings::partition, "a partition name")},
    {"account", "FIBER_ACCOUNT", "--account", "the Slurm account worker jobs are charged to",
     Text(&Settings::account, "an account name")},
    {"qos", "FIBER_QOS", "--qos", "the Slurm QOS of worker jobs", Text(&Settings::qos, "a QOS name")},
    {"time_limit", "FIBER_TIME_LIMIT", "--time-limit",
     "each Slurm worker job's time limit, as sbatch --time takes it (none: the partition's)",
     TimeLimit()},
    {"sbatch_options", "FIBER_SBATCH_OPTIONS", "--sbatch-options",
     "more sbatch options for worker jobs, whitespace-separated (a list in a file)", SbatchOptions()},
    {"array_limit", "FIBER_ARRAY_LIMIT", "--array-limit",
     "how many Slurm worker jobs of one job array may run at once (0: no limit)",
     Whole(&Settings::array_limit, 0, 1000000, "a whole number")},
    {"workers_per_job", "FIBER_WORKERS_PER_JOB", "--workers-per-job",
     "how many workers share one pod, Slurm job or container (resources are per worker, multiplied)",
     Whole(&Settings::workers_per_job, 1, 4096, "a whole number")},
    {"master", "FIBER_MASTER", "--master",
     "where the program runs as master: local (here), or cluster (a pod or Slurm job beside its "
     "workers; kubernetes and slurm backends)",
     MasterPlace()},
    {"worker_env", "FIBER_WORKER_ENV", "--worker-env",
     "names of the master's environment variables every worker gets too, ','-separated (a list "
     "in a file)",
     VariableNames(&Settings::worker_env)},
    {"profile", "FIBER_PROFILE", "--profile", "which of the settings files' profiles to apply",
     Text(&Settings::profile, "a profile name")},
  };
  return table;
}

const Setting* FindSetting(std::string_view key) {
  for (const Setting& s : Table())
    if (key == s.key) return &s;
  return nullptr;
}

bool CheckTogether(const Settings& settings, const Sources& sources, std::string* err) {
  // "heartbeat_timeout (3 s, from FIBER_HEARTBEAT_TIMEOUT)"
  auto described = [&](const char* key) {
    const auto from = sources.find(key);
    return std::string(key) + " (" + FindSetting(key)->kind.show(settings) + " s, from " +
           (from == sources.end() ? "default" : from->second) + ")";
  };
  if (settings.master_in_cluster && !PlacesMaster(settings.backend)) {
    std::string placing;
    for (const KnownBackend& b : kBackends)
      if (b.places_master) placing += std::string(placing.empty() ? "" : " or ") + b.name;
    const auto from = sources.find("master");
    *err = "master: cluster (from " + (from == sources.end() ? "default" : from->second) +
           ") runs the program in the cluster beside its workers: it needs backend " + placing + ", not " +
           settings.backend;
    return false;
  }
  if (settings.heartbeat_timeout <= 2 * settings.heartbeat_interval) {
    *err = described("heartbeat_timeout") + " must be more than twice " +
           described("heartbeat_interval");
    return false;
  }
  return true;
}

}  // namespace fiber::config
