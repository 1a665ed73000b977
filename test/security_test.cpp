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

#include <fiber/fiber.hpp>

#include <algorithm>
#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "process_probe.hpp"
#include "support/scripted_peer.hpp"
#include "support/stderr_capture.hpp"
#include "support/test_master.hpp"
#include "tasks.hpp"
#include "wire/codec.hpp"

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
  const std::string text = log.text();
  CHECK(text.find("refused connection from 127.0.0.1: its CURVE key is not this run's") !=
        std::string::npos);
  CHECK(text.find("security handshake failed") != std::string::npos);
}

TEST_CASE("a worker of another protocol version is refused with a clear message") {
  StderrCapture log;
  TestMaster master;
  zmq::context_t ctx;
  ScriptedPeer old(ctx, master.dispatcher->endpoint(), "w0", &master.keys);
  old.Send(hello(9));
  CHECK(RefusalIn(old.Receive(10000))
            .find("speaks fiber protocol version 9 but this master speaks version 3") !=
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
      {std::string(1 << 20, 'G')},
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

TEST_CASE("a worker that answers for a task it does not hold is dropped; the task runs elsewhere") {
  StderrCapture log;
  auto state = std::make_shared<ScriptedBackend::State>();
  TestMaster master;
  const auto channel = master.AddPool(1, state);
  zmq::context_t ctx;
  ScriptedPeer liar(ctx, ScriptedBackend::WaitForLaunch(*state, 0));
  REQUIRE(liar.Join() == channel);
  auto batch = std::make_shared<fiber::detail::Batch>(1);
  master.OnIoThread([&] {
    master.dispatcher->FindPool(channel)->Submit("square", {square_call(7)}, 1, batch,
                                                 fiber::master::Clock::now());
  });
  zmq::message_t held;
  const auto task = liar.NextTasks(&held).at(0);
  liar.Answer(channel, task.id + 1000, {fiber::detail::to_bytes(0)});

  // Its replacement gets the same call and answers it properly.
  ScriptedPeer honest(ctx, ScriptedBackend::WaitForLaunch(*state, 1));
  honest.Join();
  const auto again = honest.NextTasks(&held).at(0);
  REQUIRE(again.calls.size() == 1);
  const int x = std::get<0>(fiber::detail::from_bytes<std::tuple<int>>(again.calls[0]));
  honest.Answer(channel, again.id, {fiber::detail::to_bytes(x * x)});

  REQUIRE(batch->wait_all(fiber::detail::deadline_after(std::chrono::seconds(30))));
  CHECK(fiber::detail::decode<int>(batch->at(0)) == 49);
  {
    std::lock_guard<std::mutex> lock(state->mu);
    CHECK(std::count(state->killed.begin(), state->killed.end(), "w0") >= 1);
  }
  CHECK(log.text().find("worker w0 lost: it sent a result for task " +
                        std::to_string(task.id + 1000) + ", which it does not hold") !=
        std::string::npos);
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

TEST_CASE("a pool keeps working while a stranger hammers its port") {
  fiber::Pool pool(2);
  const std::string endpoint = pool.apply(getenv_task, std::string("FIBER_MASTER"));
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

// A raw TCP peer that speaks just enough ZMTP to get into the CURVE
// handshake, then sends a command frame that declares 1 GiB and streams
// bytes toward it. Returns how many bytes the master took before it hung up.
std::size_t StreamHugeHandshake(int port, std::size_t most) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  const timeval timeout{10, 0};
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
  std::string greeting(64, '\0');
  greeting[0] = '\xff';
  greeting[9] = '\x7f';
  greeting[10] = 3;  // ZMTP 3.0
  greeting.replace(12, 5, "CURVE");
  std::string frame = "\x06";  // command, 8-byte size
  for (int shift = 56; shift >= 0; shift -= 8)
    frame.push_back(static_cast<char>((std::uint64_t{1} << 30) >> shift));
  frame += "\x05HELLO";
  std::string all = greeting + frame;
  signal(SIGPIPE, SIG_IGN);
  std::size_t sent = 0;
  const std::string chunk(1 << 16, 'A');
  while (sent < most) {
    const std::string& out = sent == 0 ? all : chunk;
    const ssize_t n = send(fd, out.data(), out.size(), MSG_NOSIGNAL);
    if (n <= 0) break;
    sent += static_cast<std::size_t>(n);
  }
  close(fd);
  return sent;
}

}  // namespace

TEST_CASE("a peer that declares a huge handshake command is cut off before the master holds it") {
  StderrCapture log;
  TestMaster master;
  const std::string endpoint = master.dispatcher->endpoint();
  const int port = std::stoi(endpoint.substr(endpoint.rfind(':') + 1));
  const long before = resident_kb();
  std::size_t most_taken = 0;
  for (int i = 0; i < 4; ++i)
    most_taken = std::max(most_taken, StreamHugeHandshake(port, std::size_t{256} << 20));
  // Hung up long before 256 MB: what it took sat in socket buffers, not the master.
  CHECK(most_taken < (std::size_t{64} << 20));
  CHECK(resident_kb() - before < 64 * 1024);
  // And the master still serves the run's own peers.
  zmq::context_t ctx;
  ScriptedPeer member(ctx, endpoint, "w99", &master.keys);
  member.Send(hello());
  CHECK(RefusalIn(member.Receive(10000)) == "no worker of this run has that id");
}
