// A Kubernetes run's records (RunRecords): its pods as the API server
// lists them by label, with why they wait; their logs from the pods' log
// endpoint; its removal (its Secret and pods, run_pods.hpp). Also the
// master's pod of a run whose program runs in the cluster
// (MasterPlacement: its state and stop). Thread-safe (no state).
#pragma once

#include <optional>

#include "backend/master_placement.hpp"
#include "backend/run_records.hpp"
#include "kube/api_client.hpp"

namespace fiber::backend {

class KubernetesRunRecords : public RunRecords {
 public:
  const RecordWords& words() const override;
  RunsWorkers List(const std::vector<RunPlace>& runs) const override;
  [[nodiscard]] bool Leftovers(const RunPlace& run, std::vector<std::string>* out, std::string* err) const override;
  [[nodiscard]] bool ReadLog(const RunPlace& run, const std::string& worker_id, bool follow,
                             const std::function<bool(std::string_view)>& show, bool* found,
                             std::string* err) const override;
  [[nodiscard]] bool Remove(const RunPlace& run, int* removed, std::string* err) const override;

  /// A client for the cluster and namespace the run used (its recorded
  /// settings and environment, whatever this shell says); false with *err.
  [[nodiscard]] static bool Connect(const RunPlace& run, std::optional<kube::ApiClient>* out, std::string* err);
};

class KubernetesMasterPlacement : public MasterPlacement {
 public:
  std::unique_ptr<RunningMaster> Start(const MasterLaunch& launch, std::string* err) const override;
  [[nodiscard]] bool State(const RunPlace& run, bool* runs, std::optional<ExitStatus>* exit,
                           std::string* err) const override;
  [[nodiscard]] bool Stop(const RunPlace& run, bool force, std::string* err) const override;
};

}  // namespace fiber::backend
