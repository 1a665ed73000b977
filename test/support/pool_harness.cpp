#include "support/pool_harness.hpp"

#include <doctest/doctest.h>

#include "tasks.hpp"
#include "wire/codec.hpp"

namespace fiber::testing {

PoolHarness::PoolHarness(int processes, int max_task_retries, Call initializer) {
  master::PoolService::Options o = OptionsOf(processes);
  o.max_task_retries = max_task_retries;
  o.initializer = std::move(initializer);
  Make(std::move(o));
}

PoolHarness::PoolHarness(master::PoolService::Options::Elastic elastic) {
  master::PoolService::Options o;
  o.elastic = elastic;
  Make(std::move(o));
}

master::PoolService::Options PoolHarness::OptionsOf(int processes) {
  master::PoolService::Options o;
  o.processes = processes;
  return o;
}

void PoolHarness::Make(master::PoolService::Options o) {
  o.channel = kChannel;
  o.bootstrap.run_id = "test";
  o.new_worker_id = [this] { return "w" + std::to_string(next_worker++); };
  o.on_finished = [this] { ++finished; };
  pool = std::make_unique<master::PoolService>(std::move(o),
                                               std::make_unique<ScriptedBackend>(backend), outbox);
  pool->Start(now);
}

void PoolHarness::Deliver(const std::string& id, const zmq::message_t& message) {
  wire::Header header;
  std::string err;
  REQUIRE(wire::ParseHeader(message, &header, &err));
  CHECK(pool->OnMessage(id, header.type, message, now));
  pool->Deal(now);
}

void PoolHarness::Connect(const std::string& id, std::uint32_t credit) {
  REQUIRE(pool->OnHello(id, wire::Hello{1}, now));
  Deliver(id, wire::Encode(wire::Ready{credit}, kChannel));
}

void PoolHarness::Answer(const std::string& id, std::uint64_t task, const std::vector<int>& values,
                         std::uint32_t credit) {
  wire::Writer w(wire::Type::kResult, kChannel);
  w.U32(credit);
  wire::AppendResultHead(w, task, static_cast<std::uint32_t>(values.size()));
  for (int v : values) {
    const std::string bytes = detail::to_bytes(v);
    wire::AppendOutcome(w, {wire::OutcomeKind::kValue, bytes, {}});
  }
  Deliver(id, w.Finish());
}

std::shared_ptr<detail::Batch> PoolHarness::SubmitSquares(int n, std::size_t chunksize) {
  std::vector<std::string> calls;
  for (int i = 0; i < n; ++i) calls.push_back(detail::encode_args(square, i));
  auto batch = std::make_shared<detail::Batch>(calls.size());
  pool->Submit("square", std::move(calls), chunksize, batch, now);
  return batch;
}

void PoolHarness::Advance(std::chrono::milliseconds by) {
  now += by;
  pool->Tick(now);
}

std::vector<std::string> PoolHarness::Launched() {
  std::lock_guard<std::mutex> lock(backend->mu);
  std::vector<std::string> ids;
  for (const auto& l : backend->launches) ids.push_back(l.bootstrap.worker_id);
  return ids;
}

std::string PoolHarness::Slot(const detail::Batch& batch, std::size_t i) {
  try {
    return std::to_string(detail::decode<int>(batch.at(i)));
  } catch (const std::exception& e) {
    return e.what();
  }
}

}  // namespace fiber::testing
