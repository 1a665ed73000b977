#include "config/setting_table.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <iterator>
#include <cstdlib>
#include <sstream>

#include "config/backend_names.hpp"
#include "config/host_port.hpp"
#include "config/quantities.hpp"
#include "wire/limits.hpp"

namespace fiber::config {

namespace {

// A duration (config/quantities.hpp) from min to a day.
bool ParseSeconds(const std::string& text, std::chrono::milliseconds min, std::chrono::milliseconds* out,
                  std::string* err) {
  std::chrono::milliseconds value{};
  if (!ParseDuration(text, &value, err)) return false;
  if (value < min || value > std::chrono::hours(24)) {
    *err = "'" + text + "' is not a duration from " + FormatSeconds(min) + "s to 24h";
    return false;
  }
  *out = value;
  return true;
}

bool ParseWhole(const std::string& text, long lo, long hi, int* out, std::string* err) {
  char* end = nullptr;
  errno = 0;
  const long n = std::strtol(text.c_str(), &end, 10);
  if (*end != '\0' || errno != 0 || n < lo || n > hi) {
    *err = "'" + text + "' is not a whole number from " + std::to_string(lo) + " to " +
           std::to_string(hi);
    return false;
  }
  *out = static_cast<int>(n);
  return true;
}

template <typename T>
using Field = T Settings::*;

Kind Text(Field<std::string> field, const char* takes) {
  return {takes,
          [field](const std::string& text, Settings* s, std::string*) {
            s->*field = text;
            return true;
          },
          [field](const Settings& s) { return s.*field; }};
}

// Paths joined with ':', as PATH; a settings file may list them.
Kind Paths(Field<std::string> field) {
  Kind kind = Text(field, "paths separated by ':'");
  kind.list_separator = ":";
  return kind;
}

Kind Whole(Field<int> field, long lo, long hi, const char* takes) {
  return {takes,
          [=](const std::string& text, Settings* s, std::string* err) {
            return ParseWhole(text, lo, hi, &(s->*field), err);
          },
          [field](const Settings& s) { return std::to_string(s.*field); }};
}

Kind YesNo(Field<bool> field) {
  Kind kind{"true or false",
          [field](const std::string& text, Settings* s, std::string* err) {
            if (text != "true" && text != "false") {
              *err = "'" + text + "' is not true or false";
              return false;
            }
            s->*field = text == "true";
            return true;
          },
          [field](const Settings& s) { return std::string(s.*field ? "true" : "false"); }};
  kind.choices = {"true", "false"};
  return kind;
}

Kind Seconds(Field<std::chrono::milliseconds> field, std::chrono::milliseconds min) {
  return {"a duration",
          [=](const std::string& text, Settings* s, std::string* err) {
            return ParseSeconds(text, min, &(s->*field), err);
          },
          [field](const Settings& s) { return FormatSeconds(s.*field); }};
}

Kind BackendName() {
  Kind kind{
    "a backend name",
    [](const std::string& text, Settings* s, std::string* err) {
      if (!CheckBackendName(text, err)) return false;
      s->backend = text;
      return true;
    },
    [](const Settings& s) { return s.backend; }};
  for (const KnownBackend& b : kBackends) kind.choices.push_back(b.name);
  return kind;
}

Kind EngineName() {
  Kind kind{
    "an engine name",
    [](const std::string& text, Settings* s, std::string* err) {
      std::string known;
      for (const char* name : kEngineNames) {
        if (text == name) {
          s->engine = text;
          return true;
        }
        known += (known.empty() ? "" : ", ") + std::string(name);
      }
      *err = "'" + text + "' is not a container engine (" + known + ")";
      return false;
    },
    [](const Settings& s) { return s.engine; }};
  kind.choices.assign(std::begin(kEngineNames), std::end(kEngineNames));
  return kind;
}

Kind MasterPlace() {
  Kind kind{
    "where the master runs",
    [](const std::string& text, Settings* s, std::string* err) {
      if (text != "local" && text != "cluster") {
        *err = "'" + text + "' is not where a master runs (local or cluster)";
        return false;
      }
      s->master_in_cluster = text == "cluster";
      return true;
    },
    [](const Settings& s) { return std::string(s.master_in_cluster ? "cluster" : "local"); }};
  kind.choices = {"local", "cluster"};
  return kind;
}

// Slurm's --time: minutes, or [days-]hours:minutes[:seconds] and the like;
// checked for its characters only, sbatch says what else is wrong.
Kind TimeLimit() {
  return {"a Slurm time limit",
          [](const std::string& text, Settings* s, std::string* err) {
            if (text.find_first_not_of("0123456789:-") != std::string::npos || text == "-") {
              *err = "'" + text + "' is not a Slurm time limit (minutes, or e.g. 1:30:00 or 2-12)";
              return false;
            }
            s->time_limit = text;
            return true;
          },
          [](const Settings& s) { return s.time_limit; }};
}

// sbatch options, whitespace-separated, each starting with '-'.
Kind SbatchOptions() {
  Kind kind{"sbatch options",
            [](const std::string& text, Settings* s, std::string* err) {
              std::istringstream words(text);
              for (std::string w; words >> w;)
                if (w.front() != '-') {
                  *err = "'" + text + "' holds '" + w + "', which is not an sbatch option (-x, --name=value)";
                  return false;
                }
              s->sbatch_options = text;
              return true;
            },
            [](const Settings& s) { return s.sbatch_options; }};
  kind.list_separator = " ";
  return kind;
}

// Variable names, ','-separated; a settings file may list them.
Kind VariableNames(Field<std::string> field) {
  Kind kind{"variable names separated by ','",
            [field](const std::string& text, Settings* s, std::string* err) {
              std::string names;
              std::istringstream items(text);
              for (std::string name; std::getline(items, name, ',');) {
                if (name.empty()) continue;
                if (!IsVariableName(name)) {
                  *err = "'" + text + "' holds '" + name +
                         "', which is not a variable name (letters, digits and '_', not first a digit)";
                  return false;
                }
                names += (names.empty() ? "" : ",") + name;
              }
              s->*field = names;
              return true;
            },
            [field](const Settings& s) { return s.*field; }};
  kind.list_separator = ",";
  return kind;
}

// Any case; debug is info, the most fiber tells.
Kind LogLevel() {
  Kind kind{
    "a log level",
    [](const std::string& text, Settings* s, std::string* err) {
      std::string level = text;
      for (char& c : level) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (level != "debug" && level != "info" && level != "warning") {
        *err = "'" + text + "' is not a log level (debug, info or warning)";
        return false;
      }
      s->verbose = level != "warning";
      return true;
    },
    [](const Settings& s) { return std::string(s.verbose ? "info" : "warning"); }};
  kind.choices = {"debug", "info", "warning"};
  return kind;
}

// A value with a parser and a formatter of its own (config/quantities.hpp).
// Empty (none) or an address to listen on (config/host_port.hpp).
Kind ListenAddress(Field<std::string> field) {
  return {"HOST:PORT, :PORT or nothing",
          [field](const std::string& text, Settings* s, std::string* err) {
            std::string host;
            int port = 0;
            if (!text.empty() && !ParseHostPort(text, &host, &port, err)) return false;
            s->*field = text;
            return true;
          },
          [field](const Settings& s) { return s.*field; }};
}

template <typename T>
Kind Quantity(Field<T> field, const char* takes,
              bool (*parse)(const std::string&, T*, std::string*), std::string (*format)(T)) {
  return {takes,
          [=](const std::string& text, Settings* s, std::string* err) {
            return parse(text, &(s->*field), err);
          },
          [=](const Settings& s) { return format(s.*field); }};
}

}  // namespace

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

std::string Subject(const Assignment& a) {
  if (a.source == a.setting->variable || a.source == a.setting->flag) return a.source;
  return a.source + ": " + a.setting->key;
}

bool Apply(const Assignment& a, Settings* settings, std::string* err) {
  if (a.text.empty()) {
    *err = Subject(a) + " is empty";
    return false;
  }
  if (a.setting->kind.parse(a.text, settings, err)) return true;
  *err = Subject(a) + "=" + *err;
  return false;
}

std::vector<Assignment> FromEnvironment(const Getenv& getenv) {
  std::vector<Assignment> found;
  for (const Setting& s : Table())
    if (const char* value = getenv(s.variable)) found.push_back({&s, value, s.variable});
  return found;
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
