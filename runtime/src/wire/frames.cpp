#include "wire/frames.hpp"

#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

#include "wire/limits.hpp"

namespace fiber::wire {

namespace {

// A message that the frames sent from it share.
using Shared = std::shared_ptr<zmq::message_t>;
void ReleaseFrame(void*, void* hint) { delete static_cast<Shared*>(hint); }

}  // namespace

void LimitFrames(zmq::socket_t& socket) {
  socket.set(zmq::sockopt::maxmsgsize, static_cast<int64_t>(kMaxFrameBytes + kFrameOverheadBytes));
  socket.set(zmq::sockopt::sndhwm, kHighWaterMark);
  socket.set(zmq::sockopt::rcvhwm, kHighWaterMark);
}

std::string MessageSizeFault(std::size_t bytes) {
  if (bytes <= kMaxMessageBytes) return "";
  return "a message of " + std::to_string(bytes) + " bytes, more than the " +
         std::to_string(kMaxMessageBytes >> 20) + " MiB any message may hold";
}

bool SendMessage(zmq::socket_t& socket, std::string_view routing_id, zmq::message_t&& message) {
  try {
    if (!routing_id.empty()) {
      zmq::message_t to(routing_id.data(), routing_id.size());
      if (!socket.send(to, zmq::send_flags::sndmore | zmq::send_flags::dontwait)) return false;
    }
    if (message.size() <= kMaxFrameBytes)
      return socket.send(message, zmq::send_flags::dontwait).has_value();
    // The frames point into the message, kept until ZeroMQ has sent the
    // last of them: a large message is not copied again.
    const Shared whole = std::make_shared<zmq::message_t>(std::move(message));
    const std::size_t size = whole->size();
    auto* bytes = static_cast<char*>(whole->data());
    for (std::size_t at = 0; at < size; at += kMaxFrameBytes) {
      const std::size_t n = std::min(kMaxFrameBytes, size - at);
      const bool last = at + n == size;
      zmq::message_t frame(bytes + at, n, ReleaseFrame, new Shared(whole));
      if (!socket.send(frame, last ? zmq::send_flags::dontwait
                                   : zmq::send_flags::sndmore | zmq::send_flags::dontwait))
        return false;
    }
    return true;
  } catch (const zmq::error_t&) {
    return false;  // EHOSTUNREACH: no such peer (ROUTER_MANDATORY)
  }
}

Receipt ReceiveMessage(zmq::socket_t& socket, bool routed, std::string* routing_id,
                       zmq::message_t* message, std::string* err, zmq::recv_flags flags,
                       Arrival* arrival) {
  zmq::message_t first;
  try {
    if (!socket.recv(first, flags)) return Receipt::kNone;
  } catch (const zmq::error_t& e) {
    // A signal ended the wait: as a timeout, the caller's loop waits again.
    if (e.num() != EINTR) throw;
    return Receipt::kNone;
  }
  // A multipart message arrives whole, so its other frames are there now.
  std::vector<zmq::message_t> frames;
  frames.push_back(std::move(first));
  while (frames.back().more()) {
    zmq::message_t next;
    if (!socket.recv(next, zmq::recv_flags::dontwait)) break;
    frames.push_back(std::move(next));
  }
  std::size_t body = 0;
  if (routed) {
    *routing_id = frames[0].to_string();
    body = 1;
  }
  const std::size_t parts = frames.size() - body;
  if (arrival) {
    *arrival = {};
    for (std::size_t i = body; i < frames.size(); ++i) {
      if (arrival->fd < 0) arrival->fd = zmq_msg_get(frames[i].handle(), ZMQ_SRCFD);
      arrival->bytes += frames[i].size();
    }
    arrival->frames = parts;
  }
  if (parts == 0) {
    *err = "a message with no frames";
    return Receipt::kMalformed;
  }
  if (parts == 1) {
    *message = std::move(frames[body]);
    return Receipt::kMessage;
  }
  std::size_t total = 0;
  for (std::size_t i = body; i < frames.size(); ++i) {
    const bool last = i + 1 == frames.size();
    const std::size_t n = frames[i].size();
    if (last ? n == 0 || n > kMaxFrameBytes : n != kMaxFrameBytes) {
      *err = "a message of " + std::to_string(parts) + " frames whose frame " +
             std::to_string(i - body + 1) + " holds " + std::to_string(n) +
             " bytes (every frame but the last holds exactly " + std::to_string(kMaxFrameBytes) +
             ", the last from 1 to that)";
      return Receipt::kMalformed;
    }
    total += n;
  }
  if (total > kMaxMessageBytes) {
    *err = MessageSizeFault(total);
    return Receipt::kMalformed;
  }
  zmq::message_t joined(total);
  auto* out = static_cast<char*>(joined.data());
  for (std::size_t i = body; i < frames.size(); ++i) {
    std::memcpy(out, frames[i].data(), frames[i].size());
    out += frames[i].size();
  }
  *message = std::move(joined);
  return Receipt::kMessage;
}

}  // namespace fiber::wire
