#include "client/local_client.hpp"

#include <future>
#include <memory>

#include "client/manager_links.hpp"
#include "master/run.hpp"

namespace fiber::client {

namespace {

// Items the master's own get took, kept where the queue held them.
detail::GotItems Kept(master::QueueTable::Taken taken) {
  auto kept = std::make_shared<master::QueueTable::Taken>(std::move(taken));
  detail::GotItems got{nullptr, std::move(kept->items)};
  got.keep = std::move(kept);
  return got;
}

// In the master: the request goes straight to the dispatcher's I/O thread.
class LocalClient : public RunClient {
 public:
  // Calls in one hop from the master too: the caller's thread sends them
  // on the manager's own endpoint, not through the dispatcher's thread.
  explicit LocalClient(master::Run& run) : run_(run) {
    const worker::Bootstrap b = run.bootstrap();
    MakeLinks(b.client_secret, b.heartbeat_timeout);
  }
  ~LocalClient() override { EndLinks(); }
  const std::string& run_id() const override { return run_.id(); }
  void Send(wire::Request request, std::function<void(wire::Reply)> on_reply) override {
    BeforeSend();
    if (!SendMade([request = std::move(request)]() mutable { return std::move(request); }, on_reply))
      on_reply(wire::Reply{0, wire::Status::kLost, "the run's master has stopped"});
  }
  bool SendMade(std::function<wire::Request()> make, std::function<void(wire::Reply)> on_reply) override {
    master::Dispatcher& d = run_.dispatcher();
    return d.Post([&d, make = std::move(make), on_reply = std::move(on_reply)] {
      wire::Request request = make();
      const std::uint64_t id = request.id;
      d.Handle(std::move(request), [on_reply, id](wire::Status status, std::string_view body) {
        on_reply(wire::Reply{id, status, std::string(body)});
        return true;
      });
    });
  }
  // Items already there are taken on this thread; else the I/O thread
  // gives them when they come. Either way read where the queue held them.
  detail::GotItems Take(wire::Request request, wire::Reply* error) override {
    master::Dispatcher& d = run_.dispatcher();
    master::QueueTable::Taken taken;
    if (d.TakeNow(request, &taken)) return Kept(std::move(taken));
    struct Outcome {
      wire::Reply error;
      master::QueueTable::Taken taken;
    };
    auto promise = std::make_shared<std::promise<Outcome>>();
    auto future = promise->get_future();
    const bool posted = d.Post([&d, request = std::move(request), promise]() mutable {
      d.Handle(
          std::move(request),
          [promise](wire::Status status, std::string_view body) {
            promise->set_value(Outcome{wire::Reply{0, status, std::string(body)}, {}});
            return true;
          },
          [promise](master::QueueTable::Taken taken) {
            promise->set_value(Outcome{wire::Reply{0, wire::Status::kOk, {}}, std::move(taken)});
          });
    });
    if (!posted) {
      *error = wire::Reply{0, wire::Status::kLost, "the run's master has stopped"};
      return {};
    }
    Outcome outcome = future.get();
    if (outcome.error.status != wire::Status::kOk) {
      *error = std::move(outcome.error);
      return {};
    }
    return Kept(std::move(outcome.taken));
  }

 private:
  master::Run& run_;
};

}  // namespace

std::unique_ptr<RunClient> MakeLocalClient() {
  return std::make_unique<LocalClient>(master::Run::Get());
}

}  // namespace fiber::client
