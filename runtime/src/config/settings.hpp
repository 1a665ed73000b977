// The settings of a run: one plain struct, resolved once per process
// (config/resolve.hpp: defaults < user file < project file < environment <
// flags) and then passed down; no other layer reads the environment, except
// the worker bootstrap reading what its backend handed it. The initializers
// below are the defaults; config/setting_table.hpp names and parses each
// field.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "os/environment.hpp"

namespace fiber::config {

struct Settings {
  std::string backend = "local";
  /// Address the master listens on and, unless advertise_host is set,
  /// workers connect to.
  std::string listen_host = "127.0.0.1";
  /// The host workers are told to connect to, when it is not listen_host:
  /// a name or address of this machine that they reach (listen_host
  /// 0.0.0.0, a NAT, a DNS name); empty: listen_host (AdvertisedHost).
  std::string advertise_host;
  /// The run's one port; 0 lets the system choose a free one.
  int listen_port = 0;
  std::chrono::milliseconds heartbeat_interval{2000};
  /// Silence after which a worker (or, seen from a worker, the master) is
  /// taken for dead.
  std::chrono::milliseconds heartbeat_timeout{5000};
  /// How long a started worker may take to connect.
  std::chrono::milliseconds start_timeout{60000};
  /// The fewest tasks a worker holds at once (the one it runs included); a
  /// worker fed short tasks asks for more (worker/serve_loop.cpp), up to
  /// wire::kMaxCredit.
  int prefetch = 2;
  /// HOST:PORT where the master serves Prometheus's /metrics (empty: not
  /// served; config/host_port.hpp).
  std::string metrics;
  bool verbose = false;
  /// What each worker asks its backend for; 0: the backend's own default.
  int cpu_millis = 0;
  std::int64_t memory_mib = 0;
  int gpu = 0;
  /// The container backend's engine: docker, podman, or auto (the first
  /// whose socket exists; engine/engine_socket.hpp).
  std::string engine = "auto";
  /// The image container workers run, holding the program at the same
  /// path; empty: fiber run packages the program (image/package.hpp) for a
  /// container backend and sets it.
  std::string image;
  /// The engine's network container workers join (a user-defined bridge,
  /// whose gateway address the master listens on); empty: the host's
  /// network.
  std::string network;
  /// Files and directories packaged with the program, ':'-separated as
  /// PATH is; relative ones from the directory fiber runs in.
  std::string image_files;
  /// Where a packaged image is pushed (REGISTRY/NAME); empty: loaded into
  /// the local engine.
  std::string registry;
  /// A token service on another host that the registry's credentials may
  /// go to (Docker Hub's is https://auth.docker.io); empty: none.
  std::string registry_token_service;
  /// The Kubernetes backend's credentials (kube/kubeconfig.hpp): a
  /// kubeconfig file used alone, a context in it and the namespace workers
  /// go to. Empty: kubectl's defaults (KUBECONFIG or ~/.kube/config, its
  /// current-context, the context's namespace).
  std::string kubeconfig;
  std::string context;
  std::string namespace_name;
  /// The pace of the Kubernetes backend's requests to the API server:
  /// kube_qps a second on average, up to kube_burst at once.
  int kube_qps = 100;
  int kube_burst = 200;
  /// Kubernetes pods on their node's network (hostNetwork), to reach a
  /// master on the node itself, loopback included.
  bool host_network = false;
  /// A directory of the user's copies of the Kubernetes templates
  /// (templates/README.md); a template it lacks is fiber's own. Empty:
  /// fiber's own.
  std::string templates;
  /// The Slurm backend's sbatch options for each worker job: partition,
  /// account, QOS and time limit (as --time takes it: "30", "1:00:00",
  /// "1-12"), empty for Slurm's defaults; more options, whitespace-separated
  /// ("--constraint=avx2 --exclusive"); and how many jobs of one job array
  /// may run at once (its "%N"; 0: no limit).
  std::string partition;
  std::string account;
  std::string qos;
  std::string time_limit;
  std::string sbatch_options;
  int array_limit = 0;
  /// How many workers one pod, Slurm job or container holds (not the local
  /// backend's): the program started in it forks them
  /// (worker/job_supervisor.hpp); resources are per worker, multiplied for
  /// the job (backend/job_packing.hpp).
  int workers_per_job = 1;
  /// Where the program runs as its run's master: where fiber run runs
  /// (false), or on the cluster next to its workers (true: master: cluster,
  /// a pod on the kubernetes backend, a job on the slurm backend), which
  /// fiber run follows.
  bool master_in_cluster = false;
  /// Names of variables of the master's environment that every worker gets
  /// too, with the master's values, on every backend: ','-separated
  /// ("MY_SEED,OMP_NUM_THREADS"); fiber run --env adds the names it sets.
  std::string worker_env;
  /// The profile applied from the settings files; empty: none.
  std::string profile;
  /// Set by fiber run for the program it starts (runs/run_dir.hpp): the
  /// run's id and directory. Empty when the program was started on its own.
  std::string run_id;
  std::string run_dir;
  /// Set by fiber run for a master in a pod (master: cluster): the file
  /// holding the workers' key, which fiber run made and put in the run's
  /// Secret. Empty: the master makes the run's keys itself.
  std::string run_key_file;
};

// The timing variables, which a worker's bootstrap carries too.
inline constexpr const char* kHeartbeatInterval = "FIBER_HEARTBEAT_INTERVAL";
inline constexpr const char* kHeartbeatTimeout = "FIBER_HEARTBEAT_TIMEOUT";
inline constexpr const char* kStartTimeout = "FIBER_START_TIMEOUT";

using Getenv = os::Getenv;
/// The process's own environment as a Getenv, for the few that read it
/// (Resolve and the worker's bootstrap; see GUIDE.md): the one place that
/// calls std::getenv for them.
const char* ProcessEnvironment(const char* name);

/// Applies the timing variables, where set, and checks the heartbeat
/// timeout is more than twice the interval, as the settings of a run are
/// checked; a worker's bootstrap reads its master's timing this way.
[[nodiscard]] bool ApplyTiming(const Getenv& getenv, std::chrono::milliseconds* interval,
                               std::chrono::milliseconds* timeout,
                               std::chrono::milliseconds* start_timeout, std::string* err);
/// ms as seconds in the form the timing variables take: "0.5", "60".
std::string FormatSeconds(std::chrono::milliseconds ms);

/// The host workers are told to connect to: advertise_host, else
/// listen_host.
std::string AdvertisedHost(const Settings& settings);

/// Whether name can be an environment variable's name that a shell can set:
/// letters, digits and '_', not starting with a digit.
bool IsVariableName(std::string_view name);

/// The variables the worker_env setting names, with their values from
/// getenv (the master's environment); a name getenv lacks is left out.
std::map<std::string, std::string> WorkerEnvironment(const Settings& settings, const Getenv& getenv);

/// The settings of this process, resolved by fiber::init.
Settings Current();
void SetCurrent(const Settings& settings);

}  // namespace fiber::config
