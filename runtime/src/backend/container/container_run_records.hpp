// A container run's records (RunRecords): its containers as the run's
// engine lists them by label, their logs from the engine, their removal
// with their output kept in the run's directory (run_containers.hpp).
// Thread-safe (no state).
#pragma once

#include "backend/run_records.hpp"
#include "engine/engine_client.hpp"

namespace fiber::backend {

class ContainerRunRecords : public RunRecords {
 public:
  const RecordWords& words() const override;
  std::vector<const char*> variables() const override;
  RunsWorkers List(const std::vector<RunPlace>& runs) const override;
  [[nodiscard]] bool ReadLog(const RunPlace& run, const std::string& worker_id, bool follow, bool timestamps,
                             const std::function<bool(std::string_view)>& show, bool* found,
                             std::string* err) const override;
  [[nodiscard]] bool Remove(const RunPlace& run, int* removed, std::string* err) const override;

  /// The engine the run's workers ran on, reached as the run reached it;
  /// false with *err when it runs none or the engine does not answer.
  [[nodiscard]] static bool Connect(const RunPlace& run, engine::Client* out, std::string* err);
};

}  // namespace fiber::backend
