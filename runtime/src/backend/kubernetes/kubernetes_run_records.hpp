// A Kubernetes run's records (RunRecords): its pods as the API server
// lists them by label, with why they wait; their logs from the pods' log
// endpoint; its removal (its Secret and pods, run_pods.hpp). The master's
// pod is kubernetes_master_placement.hpp's. Thread-safe (no state).
#pragma once

#include <optional>

#include "backend/run_records.hpp"
#include "kube/api_client.hpp"

namespace fiber::backend {

class KubernetesRunRecords : public RunRecords {
 public:
  const RecordWords& words() const override;
  std::vector<const char*> variables() const override;
  RunsWorkers List(const std::vector<RunPlace>& runs) const override;
  [[nodiscard]] bool Leftovers(const RunPlace& run, std::vector<std::string>* out, std::string* err) const override;
  [[nodiscard]] bool ReadLog(const RunPlace& run, const std::string& worker_id, bool follow, bool timestamps,
                             const std::function<bool(std::string_view)>& show, bool* found,
                             std::string* err) const override;
  [[nodiscard]] bool Remove(const RunPlace& run, int* removed, std::string* err) const override;

  /// A client for the cluster and namespace the run used (its recorded
  /// settings and environment, whatever this shell says); false with *err.
  [[nodiscard]] static bool Connect(const RunPlace& run, std::optional<kube::ApiClient>* out, std::string* err);
};

}  // namespace fiber::backend
