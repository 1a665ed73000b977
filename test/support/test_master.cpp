#include "support/test_master.hpp"

#include <doctest/doctest.h>

#include <future>

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
  o.new_worker_id = [d] { return d->NewWorkerId(); };
  const wire::Channel channel = o.channel;
  auto pool = std::make_shared<std::unique_ptr<master::PoolService>>(
      std::make_unique<master::PoolService>(std::move(o), std::make_unique<ScriptedBackend>(state),
                                            *dispatcher));
  OnIoThread([d, pool] { d->AddPool(std::move(*pool)); });
  return channel;
}

}  // namespace fiber::testing
