// What a connection holds below ZeroMQ, from the kernel's counts and the
// master's reads and sends: the accounting alone, with made-up counters and
// times, so each decision is deterministic.
#include <doctest/doctest.h>

#include <chrono>

#include "master/connection_backlog.hpp"

using fiber::master::ConnectionBacklog;
using fiber::wire::PeerEvent;
using fiber::master::TcpCounts;
using fiber::wire::kFrameOverheadBytes;
using fiber::wire::kHeartbeatCommandBytes;
using namespace std::chrono_literals;

namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;
const fiber::wire::BacklogLimits kLimits{.connection = 8 * kMiB, .total = 20 * kMiB,
                                         .check_every = 4 * kMiB};
const ConnectionBacklog::Clock::time_point t0{1h};

PeerEvent Accepted(int fd) {
  PeerEvent e;
  e.event.value = static_cast<std::uint32_t>(fd);
  e.event.address = "tcp://127.0.0.1:4000";
  e.peer = "127.0.0.1:" + std::to_string(50000 + fd);
  return e;
}

// What a message of bytes takes on the wire, in frames, as the master counts it.
std::size_t Wire(std::size_t bytes, std::size_t frames) {
  return bytes + frames * kFrameOverheadBytes;
}

}  // namespace

TEST_CASE("a peer whose message never ends is over its bound once what it sent passes it, not before") {
  ConnectionBacklog backlog(kLimits, 2000ms);
  backlog.Opened(Accepted(7), t0);
  (void)backlog.Read(7, "w0", 100, 1);  // its HELLO
  // Frames of one message with MORE, received by the kernel, never read.
  std::uint64_t received = Wire(100, 1);
  for (int mib = 1; mib <= 7; ++mib) {
    received += Wire(kMiB, 1);
    CHECK_FALSE(backlog.Measure(7, {received, 0}, t0 + 1s));
  }
  CHECK(backlog.Of(7).in >= 7 * kMiB);
  received += Wire(kMiB, 1);
  const auto excess = backlog.Measure(7, {received, 0}, t0 + 1s);
  REQUIRE(excess);
  CHECK(excess->id == "w0");
  CHECK(excess->accepted.peer == "127.0.0.1:50007");
  CHECK(excess->what == "8.1 MiB it sent that the master has not read as whole messages, more "
                        "than the 8 MiB a connection may hold");
  // Closing: counted no more, and not returned again.
  CHECK(backlog.total() == 0);
  CHECK_FALSE(backlog.Measure(7, {received + kMiB, 0}, t0 + 2s));
  CHECK(backlog.Connections().empty());
}

TEST_CASE("what a peer sent and the master read, and its heartbeats, hold nothing however long it lasts") {
  ConnectionBacklog backlog(kLimits, 2000ms);
  backlog.Opened(Accepted(3), t0);
  std::uint64_t received = 0;
  for (int hour = 1; hour <= 48; ++hour) {
    // A thousand messages an hour, read; a PING and a PONG every 2 s.
    for (int i = 0; i < 1000; ++i) {
      (void)backlog.Read(3, "w1", 3 * kMiB / 2, 2);
      received += 3 * kMiB / 2 + 2 * 42;
    }
    received += 1800 * 2 * 40;
    CHECK_FALSE(backlog.Measure(3, {received, 0}, t0 + hour * 1h));
    CHECK(backlog.Of(3).in == 0);
  }
  // Idle for a day: only heartbeats.
  for (int hour = 1; hour <= 24; ++hour) {
    received += 1800 * 2 * 40;
    CHECK_FALSE(backlog.Measure(3, {received, 0}, t0 + 48h + hour * 1h));
    CHECK(backlog.Of(3).in == 0);
  }
}

TEST_CASE("what the master counts too much per frame is no credit to hide a message behind") {
  ConnectionBacklog backlog(kLimits, 2000ms);
  backlog.Opened(Accepted(4), t0);
  // Many tiny messages: each takes less on the wire than the master counts.
  std::uint64_t received = 0;
  for (int i = 0; i < 100000; ++i) {
    (void)backlog.Read(4, "w2", 1, 1);
    received += 1 + 35;
  }
  CHECK_FALSE(backlog.Measure(4, {received, 0}, t0 + 1s));
  // Then a message that never ends: caught at the same size as without them.
  received += 9 * Wire(kMiB, 1);
  CHECK(backlog.Measure(4, {received, 0}, t0 + 2s));
}

TEST_CASE("a peer that does not read what it asked for is over its bound once unacknowledged bytes pass it") {
  ConnectionBacklog backlog(kLimits, 2000ms);
  backlog.Opened(Accepted(5), t0);
  (void)backlog.Read(5, "w3.client", 50, 1);
  // The handshake and the master's PINGs are acknowledged before anything is sent.
  CHECK_FALSE(backlog.Measure(5, {150, 700}, t0));
  CHECK(backlog.Sent("w3.client", 3 * kMiB) == -1);
  // Sent 3 MiB, all acknowledged (with their overhead): nothing held.
  CHECK_FALSE(backlog.Measure(5, {150, 700 + 3 * kMiB + 3 * 42}, t0 + 1s));
  CHECK(backlog.Of(5).out == 0);
  // Then replies it never reads: the kernel acknowledges 2 MiB more and stops.
  const std::uint64_t acked = 700 + 5 * kMiB + 3 * 42;
  CHECK(backlog.Sent("w3.client", 3 * kMiB) == -1);
  CHECK(backlog.Sent("w3.client", 3 * kMiB) == 5);  // 4 MiB sent since its last measurement
  CHECK_FALSE(backlog.Measure(5, {150, acked}, t0 + 2s));
  CHECK(backlog.Of(5).out == 4 * kMiB);
  CHECK(backlog.Sent("w3.client", 3 * kMiB) == -1);
  CHECK(backlog.Sent("w3.client", 3 * kMiB) == 5);
  const auto excess = backlog.Measure(5, {150, acked}, t0 + 3s);
  REQUIRE(excess);
  CHECK(excess->id == "w3.client");
  CHECK(excess->what ==
        "10 MiB sent to it that it has not read, more than the 8 MiB a connection may hold");
}

TEST_CASE("many connections each within their bound: past the total, the one holding the most is closed") {
  ConnectionBacklog backlog(kLimits, 2000ms);
  for (int fd = 10; fd < 14; ++fd) backlog.Opened(Accepted(fd), t0);
  const std::size_t held[] = {6 * kMiB, 7 * kMiB, 5 * kMiB, 3 * kMiB};
  // Each received what it holds and one PING and PONG's worth.
  const auto counts = [&](int fd) { return TcpCounts{held[fd - 10] + 2 * kHeartbeatCommandBytes, 0}; };
  for (int fd = 10; fd < 13; ++fd) CHECK_FALSE(backlog.Measure(fd, counts(fd), t0));
  CHECK(backlog.total() == 18 * kMiB);
  CHECK_FALSE(backlog.OverTotal());
  CHECK_FALSE(backlog.Measure(13, counts(13), t0));
  const auto most = backlog.OverTotal();
  REQUIRE(most);
  CHECK(most->accepted.event.value == 11);
  CHECK(most->what == "7 MiB, the most of any connection, while all of them hold 21 MiB, more "
                      "than the 20 MiB the master holds below ZeroMQ in all");
  CHECK(backlog.total() == 14 * kMiB);
  CHECK_FALSE(backlog.OverTotal());
}

TEST_CASE("a descriptor closed and reused by a new connection starts afresh, and its routing id goes") {
  ConnectionBacklog backlog(kLimits, 2000ms);
  backlog.Opened(Accepted(6), t0);
  (void)backlog.Read(6, "w4", 100, 1);
  CHECK_FALSE(backlog.Measure(6, {5 * kMiB, 0}, t0));
  CHECK(backlog.total() > 0);
  backlog.Closed(6);
  CHECK(backlog.total() == 0);
  CHECK(backlog.Sent("w4", 9 * kMiB) == -1);  // no connection: nothing to measure
  backlog.Opened(Accepted(6), t0 + 1s);
  CHECK_FALSE(backlog.Measure(6, {2000, 0}, t0 + 1s));
  CHECK(backlog.Of(6).in == 2000 - 2 * kHeartbeatCommandBytes);
}

TEST_CASE("a message read before its connection's ACCEPTED is handled still counts") {
  ConnectionBacklog backlog(kLimits, 2000ms);
  (void)backlog.Read(8, "w5", 6 * kMiB, 6);
  backlog.Opened(Accepted(8), t0);
  CHECK_FALSE(backlog.Measure(8, {Wire(6 * kMiB, 6), 0}, t0));
  CHECK(backlog.Of(8).in == 0);
}
