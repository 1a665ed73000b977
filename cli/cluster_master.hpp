// fiber run with master: cluster: the program runs as its run's master in a
// pod beside its workers (templates/master-pod.yaml), for when pods cannot
// reach the machine fiber run runs on. fiber run makes the run's workers'
// key and the Secret holding it (which owns every pod of the run), starts
// the master's pod, says why it waits, streams its output to stdout and to
// the run's master log, turns the first Ctrl-C or SIGTERM into the pod's
// deletion with the grace period (Kubernetes sends the program SIGTERM) and
// a second into its deletion at once, and returns the program's exit
// status as if it had run here.
//
// In the pod the master listens on the pod's own address (the downward
// API's status.podIP), which its workers' pods are told, unless listen_host
// is set (a one-node cluster whose pods share the node's network: 127.0.0.1),
// and reaches the API server with the pod's service account.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "config/resolve.hpp"

namespace fiber::cli {

struct ClusterMasterOptions {
  config::Resolved resolved;          // with the run's image (kubernetes)
  std::string run_id;
  std::string run_dir;
  std::vector<std::string> command;   // the program's absolute path (in the image), and its arguments
  std::vector<std::string> env;       // KEY=VALUE, from --env
  std::chrono::milliseconds grace{10000};
  bool quiet = false;
  bool detached = false;              // no terminal: output to the master log only
};

/// Starts the master's pod and follows it to its end; returns the
/// program's exit status (128+N when killed by signal N), or kFiberError
/// with *err when the pod could not be made or its program never ran (an
/// image the node cannot pull, say). The Secret and pods are left for the
/// caller to remove (RemoveRunWorkers), after the status is known.
int SuperviseClusterMaster(const ClusterMasterOptions& options, std::string* err);

}  // namespace fiber::cli
