#include "support/test_master.hpp"

#include <doctest/doctest.h>

#include <future>

#include "tasks.hpp"

namespace fiber::testing {

TestMaster::TestMaster(wire::PeerLimits limits, wire::BacklogLimits backlog,
                       config::Settings settings) {
  std::string err;
  REQUIRE(wire::Credentials::Generate(&keys, &err));
  dispatcher = std::make_unique<master::Dispatcher>(std::move(settings), keys, limits, backlog);
  REQUIRE_MESSAGE(dispatcher->Start(&err), err);
}

void TestMaster::OnIoThread(std::function<void()> fn) {
  std::promise<void> done;
  REQUIRE(dispatcher->Post([&] {
    fn();
    done.set_value();
  }));
  done.get_future().wait();
}

master::PeerBudget::Usage TestMaster::HeldFor(const std::string& worker) {
  master::PeerBudget::Usage usage;
  OnIoThread([&] { usage = dispatcher->requests().HeldFor(worker); });
  return usage;
}

void TestMaster::RunsATask(wire::Channel channel, ScriptedPeer& worker) {
  auto batch = std::make_shared<detail::Batch>(1);
  OnIoThread([&] {
    dispatcher->FindPool(channel)->Submit("square", {detail::encode_args(square, 7)}, 1, batch,
                                          master::Clock::now());
  });
  zmq::message_t held;
  const auto task = worker.NextTasks(&held).at(0);
  worker.Answer(channel, task.id, {detail::to_bytes(49)});
  REQUIRE(batch->wait_all(detail::deadline_after(std::chrono::seconds(30))));
  CHECK(detail::decode<int>(batch->at(0)) == 49);
}

wire::Channel TestMaster::AddPool(int processes, std::shared_ptr<ScriptedBackend::State> state,
                                  int max_task_retries) {
  master::PoolService::Options o;
  o.channel = dispatcher->NewChannel();
  o.processes = processes;
  o.max_task_retries = max_task_retries;
  o.bootstrap.run_id = "test";
  o.bootstrap.master = dispatcher->endpoint();
  o.bootstrap.client_secret = keys.client_secret;
  master::Dispatcher* d = dispatcher.get();
  const wire::Channel channel = o.channel;
  o.new_worker_id = [d, channel] { return d->NewWorkerId(channel); };
  auto pool = std::make_shared<std::unique_ptr<master::PoolService>>(
      std::make_unique<master::PoolService>(std::move(o), std::make_unique<ScriptedBackend>(state),
                                            *dispatcher));
  OnIoThread([d, pool] { d->AddPool(std::move(*pool)); });
  return channel;
}

}  // namespace fiber::testing
