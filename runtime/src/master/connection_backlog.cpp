#include "master/connection_backlog.hpp"

#include <netinet/in.h>
#include <linux/tcp.h>  // tcp_info with its byte counts (glibc's lacks them)
#include <sys/socket.h>

#include <algorithm>

namespace fiber::master {

namespace {

// "8 MiB", or to a tenth rounded up ("8.1 MiB"): never less than bytes.
std::string MiB(std::size_t bytes) {
  constexpr std::size_t kMiB = std::size_t{1} << 20;
  const std::size_t tenths = (bytes * 10 + kMiB - 1) / kMiB;
  std::string text = std::to_string(tenths / 10);
  if (tenths % 10 != 0) text += "." + std::to_string(tenths % 10);
  return text + " MiB";
}

}  // namespace

bool ReadTcpCounts(int fd, TcpCounts* counts) {
  tcp_info info{};
  socklen_t size = sizeof info;
  if (::getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &size) != 0) return false;
  counts->received = info.tcpi_bytes_received;
  counts->acked = info.tcpi_bytes_acked;
  return true;
}

ConnectionBacklog::ConnectionBacklog(wire::BacklogLimits limits,
                                     std::chrono::milliseconds heartbeat_interval)
    : limits_(limits), heartbeat_interval_(std::max(heartbeat_interval, std::chrono::milliseconds(1))) {}

ConnectionBacklog::Connection& ConnectionBacklog::At(int fd) {
  Connection& c = connections_[fd];
  c.accepted.event.value = static_cast<std::uint32_t>(fd);
  return c;
}

void ConnectionBacklog::Opened(const wire::PeerEvent& accepted, Clock::time_point now) {
  const int fd = static_cast<int>(accepted.event.value);
  auto it = connections_.find(fd);
  if (it != connections_.end() && it->second.opened) Closed(fd);  // its DISCONNECTED unseen
  Connection& c = At(fd);
  if (!c.opened) c.quiet_since = now;
  if (c.closing) {  // found over its bound before it could be closed: measured again
    c.closing = false;
    total_ += c.held.in + c.held.out;
  }
  c.accepted = accepted;
  c.opened = true;
}

void ConnectionBacklog::Closed(int fd) {
  const auto it = connections_.find(fd);
  if (it == connections_.end()) return;
  const Connection& c = it->second;
  if (!c.closing) total_ -= c.held.in + c.held.out;
  const auto id = fd_of_.find(c.id);
  if (id != fd_of_.end() && id->second == fd) fd_of_.erase(id);
  connections_.erase(it);
}

bool ConnectionBacklog::Due(Connection& c, std::size_t bytes) {
  c.since_measured += bytes;
  return !c.closing && c.since_measured >= limits_.check_every;
}

bool ConnectionBacklog::Read(int fd, const std::string& id, std::size_t bytes, std::size_t frames) {
  if (fd < 0) return false;
  Connection& c = At(fd);
  if (c.id != id) {
    c.id = id;
    fd_of_[id] = fd;
  }
  const std::size_t wire = bytes + frames * wire::kFrameOverheadBytes;
  c.consumed += wire;
  return Due(c, wire);
}

int ConnectionBacklog::Sent(const std::string& id, std::size_t bytes) {
  const auto it = fd_of_.find(id);
  if (it == fd_of_.end()) return -1;
  Connection& c = connections_.at(it->second);
  c.sent += bytes;
  return Due(c, bytes) ? it->second : -1;
}

std::optional<ConnectionBacklog::Excess> ConnectionBacklog::Measure(int fd, const TcpCounts& counts,
                                                                   Clock::time_point now) {
  const auto it = connections_.find(fd);
  if (it == connections_.end() || it->second.closing) return std::nullopt;
  Connection& c = it->second;
  c.since_measured = 0;
  if (c.quiet_since == Clock::time_point{}) c.quiet_since = now;  // first seen in a read
  // In: what was received that neither a message read nor a heartbeat
  // command since it was last zero explains. At or below zero, whatever
  // was left is explained: the count starts again from here.
  const auto beats = static_cast<std::uint64_t>((now - c.quiet_since) / heartbeat_interval_) + 1;
  const std::uint64_t commands = 2 * wire::kHeartbeatCommandBytes * beats;
  std::size_t in = 0;
  if (counts.received <= c.consumed + commands) {
    c.consumed = counts.received;
    c.quiet_since = now;
  } else {
    in = static_cast<std::size_t>(counts.received - c.consumed - commands);
  }
  // Out: handed to ZeroMQ and not yet acknowledged; below zero, the
  // overhead acknowledged so far is set against what comes.
  const std::int64_t acked = static_cast<std::int64_t>(counts.acked) - c.acked_offset;
  std::size_t out = 0;
  if (acked > static_cast<std::int64_t>(c.sent))
    c.acked_offset += acked - static_cast<std::int64_t>(c.sent);
  else
    out = static_cast<std::size_t>(static_cast<std::int64_t>(c.sent) - acked);
  total_ = total_ - c.held.in - c.held.out + in + out;
  c.held = {in, out};
  if (in > limits_.connection)
    return Close(c,
                 MiB(in) + " it sent that the master has not read as whole messages, more than "
                           "the " + MiB(limits_.connection) + " a connection may hold");
  if (out > limits_.connection)
    return Close(c,
                 MiB(out) + " sent to it that it has not read, more than the " +
                     MiB(limits_.connection) + " a connection may hold");
  return std::nullopt;
}

std::optional<ConnectionBacklog::Excess> ConnectionBacklog::OverTotal() {
  if (total_ <= limits_.total) return std::nullopt;
  int most = -1;
  std::size_t most_held = 0;
  for (const auto& [fd, c] : connections_) {
    if (c.closing) continue;
    const std::size_t held = c.held.in + c.held.out;
    if (most < 0 || held > most_held) {
      most = fd;
      most_held = held;
    }
  }
  if (most < 0) return std::nullopt;
  return Close(connections_.at(most),
               MiB(most_held) + ", the most of any connection, while all of them hold " +
                   MiB(total_) + ", more than the " + MiB(limits_.total) +
                   " the master holds below ZeroMQ in all");
}

ConnectionBacklog::Excess ConnectionBacklog::Close(Connection& c, std::string what) {
  total_ -= c.held.in + c.held.out;
  c.closing = true;
  return {c.accepted, c.id, std::move(what)};
}

std::vector<int> ConnectionBacklog::Connections() const {
  std::vector<int> fds;
  fds.reserve(connections_.size());
  for (const auto& [fd, c] : connections_)
    if (!c.closing) fds.push_back(fd);
  return fds;
}

ConnectionBacklog::Held ConnectionBacklog::Of(int fd) const {
  const auto it = connections_.find(fd);
  return it == connections_.end() ? Held{} : it->second.held;
}

}  // namespace fiber::master
