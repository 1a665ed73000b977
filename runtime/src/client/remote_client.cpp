#include "client/remote_client.hpp"

#include <chrono>
#include <utility>
#include <vector>

#include "client/manager_links.hpp"
#include "diagnostics/log.hpp"
#include "fiber/errors.hpp"
#include "os/background_thread.hpp"
#include "wire/credentials.hpp"
#include "wire/frames.hpp"
#include "wire/poll.hpp"

namespace fiber::client {

using wire::Reply;
using wire::Request;
using wire::Status;

RemoteClient::RemoteClient(const worker::Bootstrap& b)
    : run_id_(b.run_id),
      context_(1),
      dealer_(context_, zmq::socket_type::dealer) {
  if (std::string err; !outbox_.Open(&err)) throw Error(err + " for the run's client connection");
  dealer_.set(zmq::sockopt::routing_id, b.worker_id + ".client");
  dealer_.set(zmq::sockopt::linger, 0);  // every request waits for its answer
  wire::LimitFrames(dealer_);
  wire::MakeCurveClient(dealer_, b.client_secret);
  dealer_.connect(b.master);
  thread_ = StartBackgroundThread([this] { Run(); }, [this](const std::string& what) {
    Fail("an internal error on the connection to the run's master (" + what + ")");
  });
  MakeLinks(b.client_secret, b.heartbeat_timeout);
}

RemoteClient::~RemoteClient() {
  EndLinks();
  outbox_.Close("the run's client connection has closed");
  outbox_.Wake();
  thread_.join();
}

void RemoteClient::Send(Request request, std::function<void(Reply)> on_reply) {
  BeforeSend();
  request.id = next_id_++;
  Outgoing o{std::move(request), on_reply, nullptr};
  if (std::string why; !outbox_.Post(std::move(o), &why)) on_reply(Reply{0, Status::kLost, why});
}

bool RemoteClient::SendMade(std::function<Request()> make, std::function<void(Reply)> on_reply) {
  Request request;
  request.id = next_id_++;
  return outbox_.Post(Outgoing{std::move(request), std::move(on_reply), std::move(make)});
}

void RemoteClient::Run() {
  for (;;) {
    std::vector<zmq::pollitem_t> items = {{dealer_.handle(), 0, ZMQ_POLLIN, 0},
                                          {nullptr, outbox_.fd(), ZMQ_POLLIN, 0}};
    wire::Poll(items.data(), items.size(), std::chrono::milliseconds(-1));
    if (items[1].revents & ZMQ_POLLIN) {
      std::vector<Outgoing> out = outbox_.Take();
      if (outbox_.closed()) return;  // the client is going
      for (auto& o : out) {
        if (o.make) {
          const std::uint64_t id = o.request.id;
          o.request = o.make();
          o.request.id = id;
        }
        ToMaster(std::move(o));
      }
    }
    if (items[0].revents & ZMQ_POLLIN) ReceiveAll();
  }
}

void RemoteClient::ToMaster(Outgoing o) {
  pending_[o.request.id] = std::move(o.on_reply);
  zmq::message_t message = wire::Encode(o.request);
  // The master would drop it unanswered.
  if (const std::string fault = wire::MessageSizeFault(message.size()); !fault.empty())
    Answer(Reply{o.request.id, Status::kRefused, "cannot send " + fault});
  else if (!wire::SendMessage(dealer_, {}, std::move(message)))
    Answer(Reply{o.request.id, Status::kLost, "cannot reach the run's master"});
}

void RemoteClient::ReceiveAll() {
  for (;;) {
    zmq::message_t message;
    std::string err;
    const auto receipt = wire::ReceiveMessage(dealer_, false, nullptr, &message, &err,
                                              zmq::recv_flags::dontwait);
    if (receipt == wire::Receipt::kNone) return;
    Reply reply;
    if (receipt == wire::Receipt::kMalformed || !wire::Decode(message, &reply, &err)) {
      log::Warning("ignored a malformed answer from the master: " + err);
      continue;
    }
    Answer(std::move(reply));
  }
}

void RemoteClient::Fail(const std::string& why) {
  outbox_.Close(why);
  std::vector<Outgoing> out = outbox_.Take();
  log::Error(why);
  for (auto& [id, on_reply] : pending_) on_reply(Reply{id, Status::kLost, why});
  pending_.clear();
  for (auto& o : out) o.on_reply(Reply{o.request.id, Status::kLost, why});
}

void RemoteClient::Answer(Reply reply) {
  auto it = pending_.find(reply.id);
  if (it == pending_.end()) return;
  auto on_reply = std::move(it->second);
  pending_.erase(it);
  on_reply(std::move(reply));
}

}  // namespace fiber::client
