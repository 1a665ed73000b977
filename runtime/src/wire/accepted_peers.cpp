#include "wire/accepted_peers.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <zmq.h>

namespace fiber::wire {

namespace {

// Rounds of reading events before the reads of the last round are dropped
// unchecked; ends a flood's batch.
constexpr int kMaxRounds = 64;

// True when e shows fd closed: ended, or accepted again (so closed and reused).
bool Closes(const SocketEvent& e, std::uint32_t fd) {
  return (e.id == ZMQ_EVENT_DISCONNECTED || e.id == ZMQ_EVENT_CLOSED ||
          e.id == ZMQ_EVENT_ACCEPTED) &&
         e.value == fd;
}

// "ip:port" ("[ip]:port" for IPv6) and the port of a TCP address; false for others.
bool Format(const sockaddr_storage& a, std::string* text, int* port) {
  char ip[INET6_ADDRSTRLEN] = {};
  if (a.ss_family == AF_INET) {
    const auto& v4 = reinterpret_cast<const sockaddr_in&>(a);
    inet_ntop(AF_INET, &v4.sin_addr, ip, sizeof ip);
    *port = ntohs(v4.sin_port);
    *text = std::string(ip) + ":" + std::to_string(*port);
    return true;
  }
  if (a.ss_family == AF_INET6) {
    const auto& v6 = reinterpret_cast<const sockaddr_in6&>(a);
    inet_ntop(AF_INET6, &v6.sin6_addr, ip, sizeof ip);
    *port = ntohs(v6.sin6_port);
    // Not "[" + std::string(ip): GCC 12 warns falsely (-Wrestrict) at -O3.
    *text = std::string("[").append(ip).append("]:") + std::to_string(*port);
    return true;
  }
  return false;
}

// The peer of the connection on fd, if fd's local port is still the one in
// bound_address (the endpoint "tcp://host:port" libzmq reported with it).
std::string PeerOf(int fd, const std::string& bound_address) {
  sockaddr_storage local{}, peer{};
  socklen_t local_size = sizeof local, peer_size = sizeof peer;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &local_size) != 0 ||
      getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &peer_size) != 0)
    return "";
  std::string local_text, peer_text;
  int local_port = 0, peer_port = 0;
  if (!Format(local, &local_text, &local_port) || !Format(peer, &peer_text, &peer_port)) return "";
  const auto colon = bound_address.rfind(':');
  if (colon == std::string::npos || bound_address.substr(colon + 1) != std::to_string(local_port))
    return "";
  return peer_text;
}

// Appends the events waiting on monitor to events; false when there were none.
bool ReadWaiting(SocketMonitor& monitor, std::vector<PeerEvent>* events) {
  const std::size_t before = events->size();
  PeerEvent e;
  while (monitor.Next(&e.event)) events->push_back(e);
  return events->size() > before;
}

// True when an event from index from on shows the fd of events[i] closed.
bool ClosedFrom(const std::vector<PeerEvent>& events, std::size_t i, std::size_t from) {
  for (std::size_t j = from; j < events.size(); ++j)
    if (Closes(events[j].event, events[i].event.value)) return true;
  return false;
}

}  // namespace

bool ShutDown(const PeerEvent& accepted) {
  const int fd = static_cast<int>(accepted.event.value);
  return !accepted.peer.empty() && PeerOf(fd, accepted.event.address) == accepted.peer &&
         ::shutdown(fd, SHUT_RDWR) == 0;
}

std::vector<PeerEvent> ReadWithPeers(SocketMonitor& monitor) {
  std::vector<PeerEvent> events;
  std::vector<std::size_t> unchecked;  // ACCEPTED events read, not yet checked
  std::size_t start = 0;
  ReadWaiting(monitor, &events);
  for (int round = 0; start < events.size(); ++round) {
    for (std::size_t i = start; i < events.size(); ++i) {
      if (events[i].event.id != ZMQ_EVENT_ACCEPTED || ClosedFrom(events, i, i + 1)) continue;
      events[i].peer = PeerOf(static_cast<int>(events[i].event.value), events[i].event.address);
      unchecked.push_back(i);
    }
    // The fd was still the connection's when read unless an event sent since
    // (so readable now) says it was closed.
    const std::size_t end = events.size();
    const bool more = round + 1 < kMaxRounds && ReadWaiting(monitor, &events);
    for (std::size_t i : unchecked)
      if (round + 1 == kMaxRounds || ClosedFrom(events, i, end)) events[i].peer.clear();
    unchecked.clear();
    if (!more) break;
    start = end;
  }
  return events;
}

}  // namespace fiber::wire
