// A run's pods, prepared in one place for the three that make them: the
// Kubernetes backend (a worker's pod), fiber run with master: cluster (the
// master's pod) and `fiber run --dry-run -o yaml` (both). Each function
// gives what fiber puts into the pod (PodValues); RenderPod
// (backend/kubernetes/pod_template.hpp) makes the pod of them from
// worker-pod.yaml or master-pod.yaml.
//
// Plain functions of their arguments; thread-safe.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "backend/kubernetes/pod_template.hpp"
#include "config/resolve.hpp"
#include "fiber/resources.hpp"
#include "worker/bootstrap.hpp"

namespace fiber::backend {

/// A worker's pod: the run's image, the worker's variables with the key as
/// the Secret's file, the resources as requests and limits, owned by the
/// run's Secret (owner_uid empty: not created yet).
PodValues WorkerPodValues(const config::Settings& settings, const worker::Bootstrap& bootstrap,
                          const Resources& resources, std::vector<std::string> command,
                          const std::string& namespace_name, const std::string& owner_uid);

/// The master's pod: the image, the program at its path in the image with
/// its arguments, the run's settings as the FIBER_* variables the program
/// resolves (the cluster reached from inside, so no kubeconfig or context;
/// no files of this machine), env (KEY=VALUE, --env) beside them, and the
/// run's Secret mounted for its workers' key.
PodValues MasterPodValues(const config::Resolved& resolved, const std::string& run_id,
                          std::vector<std::string> command, const std::vector<std::string>& env,
                          const std::map<std::string, std::string>& templates,
                          const std::string& namespace_name, const std::string& owner_uid);

/// Whether the master's pod listens on its own address (the downward API's
/// status.podIP) and tells its workers that: always on the pod network,
/// where listen_host and advertise_host name addresses of this machine, not
/// of the pod; with host_network (the pod on its node's network) unless
/// listen_host is set.
bool MasterListensOnPodAddress(const config::Resolved& resolved);

/// The user's edited templates the master's pod renders its workers' pods
/// from (worker-pod.yaml from the templates setting's directory), by file
/// name: fiber run puts them in the run's Secret, where the pod finds them
/// (PodTemplatesDir). None when the user has none; false with *err for one
/// that does not render.
[[nodiscard]] bool TemplatesForMasterPod(const config::Settings& settings,
                                         std::map<std::string, std::string>* templates, std::string* err);

}  // namespace fiber::backend
