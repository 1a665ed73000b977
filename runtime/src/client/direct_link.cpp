#include "client/direct_link.hpp"

#include "wire/credentials.hpp"
#include "wire/frames.hpp"
#include "wire/keepalive.hpp"

namespace fiber::client {

DirectLink::DirectLink(zmq::context_t& context, const std::string& client_secret,
                       std::chrono::milliseconds heartbeat_timeout, const std::string& endpoint,
                       wire::Channel channel, std::uint64_t hello_id, Clock::time_point now)
    : endpoint_(endpoint),
      dealer_(context, zmq::socket_type::dealer),
      hello_id_(hello_id),
      connect_deadline_(now + kConnectBound) {
  try {
    dealer_.set(zmq::sockopt::linger, 0);
    // A connection that drops is not made again: its calls go through the
    // master from then on.
    dealer_.set(zmq::sockopt::reconnect_ivl, -1);
    wire::LimitFrames(dealer_);
    // A manager stopped, or its machine gone, closes the connection too.
    wire::KeepAliveWorker(dealer_, heartbeat_timeout);
    wire::MakeCurveClient(dealer_, client_secret);
    if (endpoint.find('[') != std::string::npos) dealer_.set(zmq::sockopt::ipv6, 1);
    monitor_.emplace(context, dealer_,
                     ZMQ_EVENT_HANDSHAKE_SUCCEEDED | ZMQ_EVENT_DISCONNECTED | ZMQ_EVENT_CLOSED |
                         ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL |
                         ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL | ZMQ_EVENT_HANDSHAKE_FAILED_AUTH);
    dealer_.connect(endpoint);
    fd_ = dealer_.get(zmq::sockopt::fd);
    std::size_t size = sizeof events_fd_;
    if (zmq_getsockopt(monitor_->handle(), ZMQ_FD, &events_fd_, &size) != 0)
      throw zmq::error_t();
    wire::Request hello;
    hello.id = hello_id;
    hello.op = wire::Op::kManagerHello;
    hello.object = channel;
    if (!wire::SendMessage(dealer_, {}, wire::Encode(hello))) Close("cannot send to it");
  } catch (const std::exception& e) {
    Close(e.what());
  }
}

std::optional<DirectLink::Clock::time_point> DirectLink::deadline() const {
  if (state_ != State::kHello || connected_) return std::nullopt;
  return connect_deadline_;
}

bool DirectLink::Send(const std::vector<const wire::Request*>& calls, std::uint64_t batch_id) {
  if (state_ != State::kDirect || calls.empty()) return false;
  if (calls.size() == 1) return wire::SendMessage(dealer_, {}, wire::Encode(*calls.front()));
  wire::Request batch;
  batch.id = batch_id;
  batch.op = wire::Op::kManagerCalls;
  batch.object = calls.front()->object;
  batch.body = wire::EncodeCalls(calls);
  if (!wire::SendMessage(dealer_, {}, wire::Encode(batch))) return false;
  std::vector<std::uint64_t>& ids = batches_[batch_id];
  for (const wire::Request* call : calls) ids.push_back(call->id);
  return true;
}

bool DirectLink::Receive(wire::Reply* reply) {
  while (state_ != State::kClosed) {
    if (!unpacked_.empty()) {
      *reply = std::move(unpacked_.front());
      unpacked_.pop_front();
      return true;
    }
    zmq::message_t message;
    std::string err;
    const auto receipt =
        wire::ReceiveMessage(dealer_, false, nullptr, &message, &err, zmq::recv_flags::dontwait);
    if (receipt == wire::Receipt::kNone) return false;
    if (receipt == wire::Receipt::kMalformed || !wire::Decode(message, reply, &err)) {
      Close("it sent a malformed answer (" + err + ")");
      return false;
    }
    if (auto batch = batches_.find(reply->id); batch != batches_.end()) {
      Unpack(*reply, batch->second);
      batches_.erase(batch);
      continue;
    }
    if (reply->id != hello_id_) return true;
    if (reply->status == wire::Status::kOk)
      state_ = State::kDirect;
    else
      Close("it did not answer as the manager meant (" + reply->body + ")");
  }
  return false;
}

// A batch's answer: each call's own, or the batch's refusal for each.
void DirectLink::Unpack(const wire::Reply& answer, const std::vector<std::uint64_t>& ids) {
  std::vector<wire::Reply> replies;
  if (answer.status != wire::Status::kOk) {
    for (std::uint64_t id : ids) unpacked_.push_back({id, answer.status, answer.body});
  } else if (!wire::DecodeReplies(answer.body, &replies) || replies.size() != ids.size()) {
    Close("it sent a malformed answer to " + std::to_string(ids.size()) + " calls");
  } else {
    for (wire::Reply& r : replies) unpacked_.push_back(std::move(r));
  }
}

bool DirectLink::Check(Clock::time_point now) {
  if (state_ == State::kClosed) return false;
  wire::SocketEvent event;
  while (state_ != State::kClosed && monitor_->Next(&event)) {
    if (event.id == ZMQ_EVENT_HANDSHAKE_SUCCEEDED)
      connected_ = true;
    else
      Close(event.id == ZMQ_EVENT_DISCONNECTED || event.id == ZMQ_EVENT_CLOSED
                ? "its connection closed"
                : "the security handshake failed");
  }
  if (state_ == State::kHello && !connected_ && now >= connect_deadline_)
    Close("no connection within " + std::to_string(kConnectBound.count()) + " ms");
  return state_ == State::kClosed;
}

void DirectLink::Close(std::string why) {
  if (state_ == State::kClosed) return;
  state_ = State::kClosed;
  why_ = std::move(why);
  // Monitoring stops before its reader closes: else libzmq's I/O thread,
  // shared by every link of this process, blocks for good sending the
  // connection's next event to a reader gone (libzmq issue 3575), and no
  // later link connects.
  if (dealer_) (void)zmq_socket_monitor(dealer_.handle(), nullptr, 0);
  monitor_.reset();
  dealer_.close();
}

}  // namespace fiber::client
