// Only workers of a run get in: a peer without the run's key is refused and
// logged, and garbage from any peer never crashes or stalls the master.
// Workers are played by the test (test/support) against an in-process master.
#include <arpa/inet.h>
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <csignal>
#include <fstream>
#include <sstream>

#include <fiber/fiber.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>
#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "process_probe.hpp"
#include "support/scripted_peer.hpp"
#include "support/stderr_capture.hpp"
#include "support/test_master.hpp"
#include "tasks.hpp"
#include "diagnostics/log.hpp"
#include "master/run.hpp"
#include "wire/codec.hpp"
#include "wire/credentials.hpp"
#include "wire/limits.hpp"

using fiber::testing::RefusalIn;
using fiber::testing::ScriptedBackend;
using fiber::testing::ScriptedPeer;
using fiber::testing::StderrCapture;
using fiber::testing::TestMaster;
using fiber::wire::Type;

namespace {

zmq::message_t hello(std::uint8_t version = fiber::wire::kProtocolVersion) {
  return fiber::wire::Writer(Type::kHello, fiber::wire::kRunChannel, version).U64(42).Finish();
}

std::string square_call(int x) { return fiber::detail::encode_args(square, x); }

// A TCP connection the test makes by hand, speaking just enough ZMTP: it
// knows its own port (libzmq reports none for its sockets' connections) and
// can send what no ZeroMQ peer would.
class RawPeer {
 public:
  explicit RawPeer(const std::string& endpoint) : fd_(socket(AF_INET, SOCK_STREAM, 0)) {
    REQUIRE(fd_ >= 0);
    sockaddr_in master{};
    master.sin_family = AF_INET;
    master.sin_port = htons(static_cast<std::uint16_t>(port_of(endpoint)));
    master.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(connect(fd_, reinterpret_cast<sockaddr*>(&master), sizeof master) == 0);
    sockaddr_in local{};
    socklen_t size = sizeof local;
    REQUIRE(getsockname(fd_, reinterpret_cast<sockaddr*>(&local), &size) == 0);
    address_ = "127.0.0.1:" + std::to_string(ntohs(local.sin_port));
    const timeval timeout{10, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
  }
  ~RawPeer() { close(fd_); }
  static int port_of(const std::string& endpoint) {
    return std::stoi(endpoint.substr(endpoint.rfind(':') + 1));
  }
  const std::string& address() const { return address_; }

  /// Sends a ZMTP 3.0 greeting offering mechanism ("NULL", "CURVE").
  void Greet(const std::string& mechanism) {
    std::string greeting(64, '\0');
    greeting[0] = '\xff';
    greeting[9] = '\x7f';
    greeting[10] = 3;
    greeting.replace(12, mechanism.size(), mechanism);
    REQUIRE(send(fd_, greeting.data(), greeting.size(), MSG_NOSIGNAL) == 64);
  }
  /// Reads until the master hangs up (up to 10 s).
  void AwaitHangUp() {
    char buffer[256];
    while (read(fd_, buffer, sizeof buffer) > 0) {
    }
  }
  /// After a CURVE greeting: a command frame that declares declared bytes,
  /// then bytes streamed toward it, most in all. Returns how many the master
  /// took before it hung up.
  std::size_t StreamCommand(std::uint64_t declared, std::size_t most) {
    std::string frame = "\x06";  // command, 8-byte size
    for (int shift = 56; shift >= 0; shift -= 8) frame.push_back(static_cast<char>(declared >> shift));
    frame += "\x05HELLO";
    std::size_t sent = 0;
    const std::string chunk(1 << 16, 'A');
    while (sent < most) {
      const std::string& out = sent == 0 ? frame : chunk;
      const ssize_t n = send(fd_, out.data(), std::min(out.size(), most - sent), MSG_NOSIGNAL);
      if (n <= 0) break;
      sent += static_cast<std::size_t>(n);
    }
    return sent;
  }

 private:
  int fd_;
  std::string address_;
};

}  // namespace

TEST_CASE("a peer without CURVE, or with another run's key, is refused and logged") {
  StderrCapture log;
  TestMaster master;
  zmq::context_t ctx;
  const std::string endpoint = master.dispatcher->endpoint();
  ScriptedPeer plain(ctx, endpoint, "w0", nullptr);
  ScriptedPeer stranger(ctx, endpoint, "w0", &master.keys, true);
  plain.Send(hello());
  stranger.Send(hello());
  CHECK(plain.Receive(1500).size() == 0);
  CHECK(stranger.Receive(500).size() == 0);
  // A peer holding the run's key is answered (refused only for its unknown id).
  ScriptedPeer member(ctx, endpoint, "w99", &master.keys);
  member.Send(hello());
  CHECK(RefusalIn(member.Receive(10000)) == "no worker of this run has that id");
  // A plain ZeroMQ peer may hang up before the master reads its greeting (then
  // it is only an ended connection); one that waits is refused by name.
  RawPeer waits(endpoint);
  waits.Greet("NULL");
  waits.AwaitHangUp();
  // The stranger fails the handshake too, without the master's key (which
  // derives from the run's secret); both are logged.
  CHECK(log.wait_for("security handshake failed (not a fiber worker of this run)", 2));
}

TEST_CASE("a worker of another protocol version is refused with a clear message") {
  StderrCapture log;
  TestMaster master;
  zmq::context_t ctx;
  ScriptedPeer old(ctx, master.dispatcher->endpoint(), "w0", &master.keys);
  old.Send(hello(9));
  CHECK(RefusalIn(old.Receive(10000))
            .find("speaks fiber protocol version 9 but this master speaks version " +
                  std::to_string(fiber::wire::kProtocolVersion)) !=
        std::string::npos);
}

TEST_CASE("garbage from an admitted peer neither crashes nor stalls the master") {
  StderrCapture log;
  TestMaster master;
  zmq::context_t ctx;
  ScriptedPeer hostile(ctx, master.dispatcher->endpoint(), "w7", &master.keys);
  const std::string v(1, static_cast<char>(fiber::wire::kProtocolVersion));
  const std::string channel1("\x01\0\0\0", 4);
  std::vector<std::vector<std::string>> garbage = {
      {""},
      {"\xff\xfe\xfd"},
      {"F", "x"},
      {"F" + v + "\x63" + channel1},                                   // unknown type
      {"F" + v + "\x06" + channel1},                                   // RESULT, not a worker
      {"F" + v + "\x06" + channel1 + std::string("\x01\0\0\0", 4) + "12345678"},
      {"F" + v + "\x04" + channel1 + "toolong-credit"},                // READY, malformed
      {"F" + v + "\x01" + channel1},                                   // HELLO without pid
      {"F" + v + "\x01" + channel1, "12345678"},                       // HELLO in two frames
      {std::string(fiber::wire::kMaxFrameBytes, 'G')},  // the largest frame a socket takes
  };
  for (const auto& frames : garbage) {
    zmq::multipart_t m;
    for (const auto& f : frames) m.addstr(f);
    m.send(hostile.socket);
  }
  for (int i = 0; i < 2000; ++i)  // a flood
    hostile.socket.send(zmq::buffer(std::to_string(i)), zmq::send_flags::none);
  // Still answering, with a proper refusal for the id it does not know.
  hostile.Send(hello());
  std::string refusal;
  for (int i = 0; i < 5 && refusal.empty(); ++i) refusal = RefusalIn(hostile.Receive(10000));
  CHECK(refusal == "no worker of this run has that id");
  CHECK(log.text().find("dropped a malformed message") != std::string::npos);
}

TEST_CASE("a worker writing to a pool it does not belong to is dropped as hostile") {
  StderrCapture log;
  auto a_state = std::make_shared<ScriptedBackend::State>();
  auto b_state = std::make_shared<ScriptedBackend::State>();
  TestMaster master;
  const auto a = master.AddPool(1, a_state);
  const auto b = master.AddPool(1, b_state);
  REQUIRE(a != b);
  zmq::context_t ctx;
  ScriptedPeer of_a(ctx, ScriptedBackend::WaitForLaunch(*a_state, 0));
  ScriptedPeer of_b(ctx, ScriptedBackend::WaitForLaunch(*b_state, 0));
  CHECK(of_a.Join() == a);
  CHECK(of_b.Join() == b);
  // Both pools' workers reached the one endpoint with the one set of keys.
  CHECK(ScriptedBackend::WaitForLaunch(*a_state, 0).bootstrap.master ==
        ScriptedBackend::WaitForLaunch(*b_state, 0).bootstrap.master);
  of_a.Send(fiber::wire::Encode(fiber::wire::Ready{1}, b));
  // Pool a replaces it: its worker was lost for writing to pool b.
  const auto replacement = ScriptedBackend::WaitForLaunch(*a_state, 1);
  CHECK(replacement.bootstrap.worker_id != "w0");
  CHECK(log.text().find("lost: it sent READY for pool " + std::to_string(b) +
                        ", which it does not belong to") != std::string::npos);
}

TEST_CASE("a worker's heartbeat before its WELCOME arrives does not lose it") {
  StderrCapture log;
  auto state = std::make_shared<ScriptedBackend::State>();
  TestMaster master;
  const auto channel = master.AddPool(1, state);
  zmq::context_t ctx;
  ScriptedPeer early(ctx, ScriptedBackend::WaitForLaunch(*state, 0));
  early.Send(hello());
  early.Send(fiber::wire::EncodeControl(Type::kHeartbeat, fiber::wire::kRunChannel));
  fiber::wire::Welcome welcome;
  std::string err;
  REQUIRE(fiber::wire::Decode(early.Receive(10000), &welcome, &err));
  early.Send(fiber::wire::Encode(fiber::wire::Ready{1}, channel));
  auto batch = std::make_shared<fiber::detail::Batch>(1);
  master.OnIoThread([&] {
    master.dispatcher->FindPool(channel)->Submit("square", {square_call(3)}, 1, batch,
                                                 fiber::master::Clock::now());
  });
  zmq::message_t held;
  const auto task = early.NextTasks(&held).at(0);
  early.Answer(channel, task.id, {fiber::detail::to_bytes(9)});
  REQUIRE(batch->wait_all(fiber::detail::deadline_after(std::chrono::seconds(30))));
  CHECK(fiber::detail::decode<int>(batch->at(0)) == 9);
  CHECK(log.text().find("lost") == std::string::npos);
}

TEST_CASE("a pool keeps working while a stranger hammers its port") {
  fiber::Pool pool(2);
  const std::string endpoint = pool.apply(getenv_task, std::string("FIBER_MASTER_ENDPOINT"));
  REQUIRE(endpoint.rfind("tcp://127.0.0.1:", 0) == 0);
  zmq::context_t ctx;
  std::vector<ScriptedPeer> strangers;
  {
    StderrCapture log;
    for (int i = 0; i < 20; ++i) {
      strangers.emplace_back(ctx, endpoint, "w" + std::to_string(i % 3), nullptr);
      strangers.back().Send(hello());
    }
    std::vector<int> xs(500);
    for (int i = 0; i < 500; ++i) xs[i] = i;
    const auto ys = pool.map(square, xs, 1);
    for (int i = 0; i < 500; ++i) REQUIRE(ys[i] == i * i);
    for (auto& s : strangers) CHECK(s.Receive(10).size() == 0);
  }
  // The worker's copy of the run's secret is gone from its environment.
  CHECK(pool.apply(getenv_task, std::string("FIBER_CLIENT_KEY")).empty());
}

namespace {


}  // namespace

TEST_CASE("a peer that declares a huge handshake command is cut off before the master holds it") {
  StderrCapture log;
  TestMaster master;
  const std::string endpoint = master.dispatcher->endpoint();
  const long before = resident_kb();
  std::size_t most_taken = 0;
  for (int i = 0; i < 4; ++i) {
    RawPeer peer(endpoint);
    peer.Greet("CURVE");
    most_taken = std::max(most_taken, peer.StreamCommand(std::uint64_t{1} << 30, std::size_t{256} << 20));
  }
  // Hung up long before 256 MB: what it took sat in socket buffers, not the master.
  CHECK(most_taken < (std::size_t{64} << 20));
  CHECK(resident_kb() - before < 64 * 1024);
  // And the master still serves the run's own peers.
  zmq::context_t ctx;
  ScriptedPeer member(ctx, endpoint, "w99", &master.keys);
  member.Send(hello());
  CHECK(RefusalIn(member.Receive(10000)) == "no worker of this run has that id");
}

TEST_CASE("a hundred peers each halfway through a handshake command of 1 MiB make the master hold little") {
  StderrCapture log;
  TestMaster master;
  const std::string endpoint = master.dispatcher->endpoint();
  const long before = resident_kb();
  // With frames of up to 1 MiB the master took such a command, and held
  // what came of it for the handshake's 5 s: these made it hold about
  // 100 MiB. The frame bound (64 KiB) cuts each off as it declares one.
  std::vector<std::unique_ptr<RawPeer>> peers;
  for (int i = 0; i < 100; ++i) {
    peers.push_back(std::make_unique<RawPeer>(endpoint));
    peers.back()->Greet("CURVE");
    (void)peers.back()->StreamCommand(std::uint64_t{1} << 20, (std::size_t{1} << 20) - 1024);
  }
  // The master still serves the run's own peers; by its answer, its I/O
  // thread has read what the peers sent before.
  zmq::context_t ctx;
  ScriptedPeer member(ctx, endpoint, "w99", &master.keys);
  member.Send(hello());
  CHECK(RefusalIn(member.Receive(10000)) == "no worker of this run has that id");
  CHECK(resident_kb() - before < 32 * 1024);
}

namespace {
// Info lines on for one test: the master says whom it accepted a connection from.
struct VerboseLog {
  VerboseLog() { fiber::log::SetVerbose(true); }
  ~VerboseLog() { fiber::log::SetVerbose(false); }
};
}  // namespace

TEST_CASE("a refused peer is logged with its own address and port, never the master's") {
  VerboseLog verbose;
  StderrCapture log;
  TestMaster master;
  const std::string endpoint = master.dispatcher->endpoint();
  const std::string master_port = std::to_string(RawPeer::port_of(endpoint));
  RawPeer plain(endpoint);
  // It greets only once the master knows who it is: a peer refused at once
  // (hasty, below) can be gone before that, and is then logged as unknown.
  CHECK(log.wait_for("connection from " + plain.address() + "\n"));
  plain.Greet("NULL");
  plain.AwaitHangUp();
  CHECK(log.wait_for("refused connection from " + plain.address() +
                     ": security handshake failed (not a fiber worker of this run)"));
  RawPeer hasty(endpoint);
  hasty.Greet("NULL");
  hasty.AwaitHangUp();
  CHECK(log.wait_for("security handshake failed", 2));
  std::istringstream lines(log.text());
  for (std::string line; std::getline(lines, line);) {
    if (line.find("refused connection from ") == std::string::npos) continue;
    CHECK_MESSAGE(line.find("127.0.0.1:" + master_port) == std::string::npos, line);
    const bool ours = line.find("from " + plain.address() + ":") != std::string::npos ||
                      line.find("from " + hasty.address() + ":") != std::string::npos ||
                      line.find("from a peer gone before") != std::string::npos;
    CHECK_MESSAGE(ours, line);
  }
}

TEST_CASE("a connection that ends before its handshake is not taken for a refusal") {
  VerboseLog verbose;
  StderrCapture log;
  TestMaster master;
  {
    RawPeer gone(master.dispatcher->endpoint());
    CHECK(log.wait_for("connection from " + gone.address() + "\n"));
  }
  CHECK(log.wait_for("closed before its handshake finished"));
  CHECK(log.text().find("refused connection") == std::string::npos);
}

TEST_CASE("a worker's copy of the run's secret is gone from its /proc environ, and it still works") {
  fiber::Pool pool(1);
  const std::string shown = pool.apply(proc_environ_task);
  CHECK(shown.find("PATH=") != std::string::npos);  // the environ was read
  const std::string secret = fiber::master::Run::Get().bootstrap().client_secret;
  CHECK(shown.find(secret) == std::string::npos);
  // Nor was the master's public key ever there: a worker derives it.
  fiber::wire::Credentials keys;
  std::string err;
  REQUIRE(fiber::wire::Credentials::FromClientKey(secret, &keys, &err));
  CHECK(shown.find(keys.server_public) == std::string::npos);
  CHECK(pool.apply(getenv_task, std::string("FIBER_WORKER_ID")).rfind("w", 0) == 0);
  CHECK(pool.apply(getenv_task, std::string("FIBER_CLIENT_KEY")).empty());
  CHECK(pool.apply(square, 9) == 81);
}
