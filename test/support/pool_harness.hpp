// One PoolService driven by a test with no socket, process or sleep: its
// workers are scripted, its messages recorded, and its clock moves only when
// the test says so.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "master/pool_service.hpp"
#include "support/recording_outbox.hpp"
#include "support/scripted_backend.hpp"
#include "wire/task_batch.hpp"

namespace fiber::testing {

struct PoolHarness {
  static constexpr wire::Channel kChannel = 7;
  explicit PoolHarness(int processes, int max_task_retries = 3, Call initializer = {});
  /// An elastic pool of min to max workers.
  PoolHarness(master::PoolService::Options::Elastic elastic);
  /// A pool of these options (channel, ids and callbacks are the harness's).
  explicit PoolHarness(master::PoolService::Options options) { Make(std::move(options)); }

  /// Options of a pool of processes workers, for the constructor above.
  static master::PoolService::Options OptionsOf(int processes);

  /// HELLO, then READY with credit, then a deal, as a worker's first words.
  void Connect(const std::string& id, std::uint32_t credit = 1);
  /// Delivers a message from worker id as the dispatcher would.
  void Deliver(const std::string& id, const zmq::message_t& message);
  /// RESULT for task (one value per call), asking for credit.
  void Answer(const std::string& id, std::uint64_t task, const std::vector<int>& values,
              std::uint32_t credit = 1);
  /// map(square, 0..n-1) in chunks of chunksize.
  std::shared_ptr<detail::Batch> SubmitSquares(int n, std::size_t chunksize = 1);
  /// Moves the clock on and ticks the pool.
  void Advance(std::chrono::milliseconds by);
  /// The launches so far, by worker id.
  std::vector<std::string> Launched();
  /// What the pool made of slot i of batch: the value, or the error's message.
  static std::string Slot(const detail::Batch& batch, std::size_t i);

  RecordingOutbox outbox;
  std::shared_ptr<ScriptedBackend::State> backend = std::make_shared<ScriptedBackend::State>();
  master::Clock::time_point now = master::Clock::time_point() + std::chrono::hours(1);
  std::unique_ptr<master::PoolService> pool;
  int finished = 0;
  int next_worker = 0;

 private:
  void Make(master::PoolService::Options o);
};

}  // namespace fiber::testing
