// master: cluster on the Kubernetes backend: the program runs as its run's
// master in a pod beside its workers (templates/master-pod.yaml), for when
// pods cannot reach the machine fiber run runs on. Start makes the run's
// workers' key and the Secret holding it (which owns every pod of the run)
// and the master's pod; its launcher follows the pod with an EngineWatch
// (why it waits, how it ended) and its output with the pod's log. A stop
// is the pod's deletion with the run's grace period (Kubernetes sends the
// program SIGTERM), a kill its deletion at once.
//
// In the pod the master listens on the pod's own address (the downward
// API's status.podIP), which its workers' pods are told, unless its pods
// share their nodes' network and listen_host is set (a one-node cluster:
// 127.0.0.1; MasterListensOnPodAddress), and reaches the API server with the pod's service account.
// Thread-safe (no state); a master it starts is not.
#pragma once

#include "backend/master_placement.hpp"

namespace fiber::backend {

class KubernetesMasterPlacement : public MasterPlacement {
 public:
  std::unique_ptr<RunningMaster> Start(const MasterLaunch& launch, std::string* err) const override;
  [[nodiscard]] bool State(const RunPlace& run, bool* runs, std::optional<ExitStatus>* exit,
                           std::string* err) const override;
  [[nodiscard]] bool Stop(const RunPlace& run, bool force, std::string* err) const override;
};

}  // namespace fiber::backend
