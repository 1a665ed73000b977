// Only workers of a run get in: a peer without the run's key is refused and
// logged, and garbage from any peer never crashes or stalls the master.
#include <arpa/inet.h>
#include <doctest/doctest.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fiber/fiber.hpp>

#include <cstdio>
#include <algorithm>
#include <fstream>
#include <mutex>
#include <thread>
#include <sstream>
#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "log.hpp"
#include "master/dispatcher.hpp"
#include "tasks.hpp"
#include "wire/message.hpp"
#include "wire/task_batch.hpp"

namespace {

using fiber::wire::Type;

// Captures what this process writes to stderr while alive.
class StderrCapture {
 public:
  StderrCapture() : path_("/tmp/fiber-stderr-" + std::to_string(getpid())) {
    std::fflush(stderr);
    saved_ = dup(2);
    const int fd = open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(fd, 2);
    close(fd);
  }
  ~StderrCapture() { restore(); unlink(path_.c_str()); }
  std::string text() {
    restore();
    return peek();
  }
  /// What was written so far, still capturing.
  std::string peek() const {
    std::ifstream in(path_);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  /// Waits up to 10 s for needle to be written count times.
  bool wait_for(const std::string& needle, int count = 1) const {
    for (int i = 0; i < 1000; ++i) {
      const std::string t = peek();
      int found = 0;
      for (auto at = t.find(needle); at != std::string::npos; at = t.find(needle, at + 1)) ++found;
      if (found >= count) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }

 private:
  void restore() {
    if (saved_ < 0) return;
    std::fflush(stderr);
    dup2(saved_, 2);
    close(saved_);
    saved_ = -1;
  }
  std::string path_;
  int saved_ = -1;
};

// A started master with fresh keys and processes workers from backend (by
// default local ones); with none, only the peers a test makes talk to it.
struct Master {
  fiber::wire::Credentials keys;
  std::unique_ptr<fiber::detail::Dispatcher> dispatcher;
  explicit Master(int processes = 0, std::unique_ptr<fiber::backend::Backend> backend = nullptr) {
    std::string err;
    REQUIRE(fiber::wire::Credentials::Generate(&keys, &err));
    fiber::detail::Dispatcher::Options options;
    options.processes = processes;
    options.credentials = keys;
    if (!backend) backend = fiber::backend::Make("local", &err);
    dispatcher = std::make_unique<fiber::detail::Dispatcher>(options, std::move(backend));
    REQUIRE(dispatcher->Start(&err));
  }
};

zmq::socket_t peer(zmq::context_t& ctx, const std::string& endpoint, const std::string& id,
                   const fiber::wire::Credentials* keys, bool own_keys = false) {
  zmq::socket_t s(ctx, zmq::socket_type::dealer);
  s.set(zmq::sockopt::linger, 0);
  s.set(zmq::sockopt::routing_id, id);
  if (keys) {
    std::string pub = keys->client_public, sec = keys->client_secret;
    if (own_keys) {
      char p[41], k[41];
      zmq_curve_keypair(p, k);
      pub = p;
      sec = k;
    }
    fiber::wire::MakeCurveClient(s, keys->server_public, pub, sec);
  }
  s.connect(endpoint);
  return s;
}

// A TCP connection the test makes by hand, so that it knows the local port:
// libzmq reports none for the connections of its own sockets.
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
  }
  ~RawPeer() { close(fd_); }
  static int port_of(const std::string& endpoint) {
    return std::stoi(endpoint.substr(endpoint.rfind(':') + 1));
  }
  const std::string& address() const { return address_; }
  /// Sends a ZMTP 3.0 greeting offering the NULL mechanism, as a plain
  /// ZeroMQ peer does, and reads until the master hangs up (up to 10 s).
  void GreetWithoutCurve() {
    std::string greeting(64, '\0');
    greeting[0] = '\xff';
    greeting[9] = '\x7f';
    greeting[10] = 3;
    greeting.replace(12, 4, "NULL");
    REQUIRE(write(fd_, greeting.data(), greeting.size()) == 64);
    timeval timeout{10, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    char buffer[256];
    while (read(fd_, buffer, sizeof buffer) > 0) {
    }
  }

 private:
  int fd_;
  std::string address_;
};

zmq::message_t hello(std::uint8_t version = fiber::wire::kProtocolVersion) {
  return fiber::wire::Writer(Type::kHello, version).U64(42).Finish();
}

// The reply to a message, or an empty message after timeout_ms.
zmq::message_t reply(zmq::socket_t& s, int timeout_ms) {
  zmq::pollitem_t item{s.handle(), 0, ZMQ_POLLIN, 0};
  zmq::message_t m;
  if (zmq::poll(&item, 1, std::chrono::milliseconds(timeout_ms)) > 0) (void)s.recv(m);
  return m;
}

std::string refusal(const zmq::message_t& m) {
  fiber::wire::Header h;
  std::string err;
  if (!fiber::wire::ParseHeader(m, &h, &err) || h.type != Type::kRefuse) return "";
  return std::string(fiber::wire::Reader(m).Rest());
}

}  // namespace

TEST_CASE("a peer without CURVE, or with another run's key, is refused and logged") {
  StderrCapture log;
  Master master;
  zmq::context_t ctx;
  auto plain = peer(ctx, master.dispatcher->endpoint(), "w0", nullptr);
  auto stranger = peer(ctx, master.dispatcher->endpoint(), "w0", &master.keys, true);
  plain.send(hello(), zmq::send_flags::none);
  stranger.send(hello(), zmq::send_flags::none);
  CHECK(reply(plain, 1500).size() == 0);
  CHECK(reply(stranger, 500).size() == 0);
  // A peer holding the run's key is answered (refused only for its unknown id).
  auto member = peer(ctx, master.dispatcher->endpoint(), "w99", &master.keys);
  member.send(hello(), zmq::send_flags::none);
  auto answer = reply(member, 10000);
  CHECK(refusal(answer) == "no worker of this pool has that id");
  const std::string text = log.text();
  CHECK(text.find("refused connection from 127.0.0.1: its CURVE key is not this run's") !=
        std::string::npos);
  CHECK(text.find("security handshake failed") != std::string::npos);
}

// Info lines on for one test: the master says whom it accepted a connection from.
struct VerboseLog {
  VerboseLog() { fiber::log::SetVerbose(true); }
  ~VerboseLog() { fiber::log::SetVerbose(false); }
};

TEST_CASE("a refused peer is logged with its own address and port, never the master's") {
  VerboseLog verbose;
  StderrCapture log;
  Master master;
  const std::string master_port = std::to_string(RawPeer::port_of(master.dispatcher->endpoint()));
  RawPeer plain(master.dispatcher->endpoint());
  // It greets only once the master knows who it is: a peer refused at once
  // (hasty, below) can be gone before that, and is then logged as unknown.
  CHECK(log.wait_for("connection from " + plain.address() + "\n"));
  plain.GreetWithoutCurve();
  CHECK(log.wait_for("refused connection from " + plain.address() +
                     ": security handshake failed (not a fiber worker of this run)"));
  RawPeer hasty(master.dispatcher->endpoint());
  hasty.GreetWithoutCurve();
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

TEST_CASE("a worker of another protocol version is refused with a clear message") {
  StderrCapture log;
  Master master;
  zmq::context_t ctx;
  auto old = peer(ctx, master.dispatcher->endpoint(), "w0", &master.keys);
  old.send(hello(9), zmq::send_flags::none);
  auto answer = reply(old, 10000);
  CHECK(refusal(answer).find("speaks fiber protocol version 9 but this master speaks version 2") !=
        std::string::npos);
}

TEST_CASE("garbage from an admitted peer neither crashes nor stalls the master") {
  StderrCapture log;
  Master master;
  zmq::context_t ctx;
  auto hostile = peer(ctx, master.dispatcher->endpoint(), "w7", &master.keys);
  const std::string v(1, static_cast<char>(fiber::wire::kProtocolVersion));
  std::vector<std::vector<std::string>> garbage = {
      {""},
      {"\xff\xfe\xfd"},
      {"F", "x"},
      {"F" + v + "\x63"},                                    // unknown type
      {"F" + v + "\x06"},                                    // RESULT, no body, not a worker
      {"F" + v + std::string("\x06\x01\0\0\0", 5) + "12345678"},  // RESULT from a stranger
      {"F" + v + "\x04" + "toolong-credit"},                 // READY, malformed
      {"F" + v + "\x01"},                                    // HELLO without pid
      {"F" + v + "\x01", "12345678"},                        // HELLO in two frames
      {std::string(1 << 20, 'G')},
  };
  for (const auto& frames : garbage) {
    zmq::multipart_t m;
    for (const auto& f : frames) m.addstr(f);
    m.send(hostile);
  }
  for (int i = 0; i < 2000; ++i)  // a flood
    hostile.send(zmq::buffer(std::to_string(i)), zmq::send_flags::none);
  // Still answering, with a proper refusal for the id it does not know.
  hostile.send(hello(), zmq::send_flags::none);
  zmq::message_t answer;
  for (int i = 0; i < 5 && refusal(answer).empty(); ++i) answer = reply(hostile, 10000);
  CHECK(refusal(answer) == "no worker of this pool has that id");
  CHECK(log.text().find("dropped a malformed message") != std::string::npos);
}

namespace {

// A backend whose workers are played by the test: it records what each
// launch was handed, and reports a worker it was told to kill as ended.
class ScriptedBackend : public fiber::backend::Backend {
 public:
  struct State {
    std::mutex mu;
    std::vector<fiber::backend::Launch> launches;
    std::vector<std::string> killed;
  };
  explicit ScriptedBackend(std::shared_ptr<State> state) : state_(std::move(state)) {}
  const char* name() const override { return "scripted"; }
  bool Start(const fiber::backend::Launch& launch, std::string*) override {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->launches.push_back(launch);
    return true;
  }
  void Kill(const std::string& id) override {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->killed.push_back(id);
    ended_.push_back({id, "killed by signal 9"});
  }
  std::vector<fiber::backend::Exit> Poll() override { return std::exchange(ended_, {}); }
  void KillAll() override {}

 private:
  std::shared_ptr<State> state_;
  std::vector<fiber::backend::Exit> ended_;  // I/O thread only
};

// Plays the n-th worker the backend was asked for, up to READY.
zmq::socket_t play_worker(zmq::context_t& ctx, ScriptedBackend::State& state, std::size_t n) {
  fiber::backend::Launch launch;
  for (int i = 0; i < 600; ++i) {
    {
      std::lock_guard<std::mutex> lock(state.mu);
      if (state.launches.size() > n) launch = state.launches[n];
    }
    if (!launch.worker_id.empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  REQUIRE(!launch.worker_id.empty());
  fiber::wire::Credentials keys;
  keys.server_public = launch.env.at("FIBER_SERVER_KEY");
  keys.client_secret = launch.env.at("FIBER_CLIENT_KEY");
  REQUIRE(fiber::wire::PublicKeyOf(keys.client_secret, &keys.client_public));
  zmq::socket_t s = peer(ctx, launch.env.at("FIBER_MASTER"), launch.worker_id, &keys);
  s.send(hello(), zmq::send_flags::none);
  fiber::wire::Header h;
  std::string err;
  REQUIRE(fiber::wire::ParseHeader(reply(s, 10000), &h, &err));
  REQUIRE(h.type == Type::kWelcome);
  s.send(fiber::wire::Writer(Type::kReady).U32(1).Finish(), zmq::send_flags::none);
  return s;
}

// The next TASK the peer is sent (HEARTBEATs skipped).
fiber::wire::TaskView next_task(zmq::socket_t& s, zmq::message_t* holder) {
  for (int i = 0; i < 100; ++i) {
    *holder = reply(s, 10000);
    fiber::wire::Header h;
    std::string err;
    REQUIRE(fiber::wire::ParseHeader(*holder, &h, &err));
    if (h.type != Type::kTask) continue;
    std::vector<fiber::wire::TaskView> tasks;
    REQUIRE(fiber::wire::ReadTasks(*holder, &tasks, &err));
    REQUIRE(tasks.size() == 1);
    return tasks[0];
  }
  FAIL("no TASK arrived");
  return {};
}

}  // namespace

TEST_CASE("a worker that answers for a task it does not hold is dropped; the task runs elsewhere") {
  StderrCapture log;
  auto state = std::make_shared<ScriptedBackend::State>();
  Master master(1, std::make_unique<ScriptedBackend>(state));
  fiber::detail::Dispatcher& dispatcher = *master.dispatcher;
  zmq::context_t ctx;
  auto liar = play_worker(ctx, *state, 0);
  auto batch = std::make_shared<fiber::detail::Batch>(1);
  dispatcher.Submit("square", {fiber::detail::encode_args(square, 7)}, 1, batch);

  zmq::message_t held;
  const auto task = next_task(liar, &held);
  fiber::wire::Writer lie(Type::kResult);
  lie.U32(1);
  fiber::wire::AppendResultHead(lie, task.id + 1000, 1);
  fiber::wire::AppendOutcome(lie, 0, fiber::detail::to_bytes(0));
  liar.send(lie.Finish(), zmq::send_flags::none);

  // Its replacement gets the same call and answers it properly.
  auto honest = play_worker(ctx, *state, 1);
  const auto again = next_task(honest, &held);
  CHECK(again.calls.size() == 1);
  const int x = std::get<0>(fiber::detail::from_bytes<std::tuple<int>>(again.calls[0]));
  fiber::wire::Writer answer(Type::kResult);
  answer.U32(1);
  fiber::wire::AppendResultHead(answer, again.id, 1);
  fiber::wire::AppendOutcome(answer, 0, fiber::detail::to_bytes(x * x));
  honest.send(answer.Finish(), zmq::send_flags::none);

  REQUIRE(batch->wait_all(fiber::detail::deadline_after(std::chrono::seconds(30))));
  CHECK(fiber::detail::decode<int>(batch->at(0)) == 49);
  {
    std::lock_guard<std::mutex> lock(state->mu);
    CHECK(std::count(state->killed.begin(), state->killed.end(), "w0") >= 1);
  }
  CHECK(log.text().find("worker w0 lost: it sent a result for task " + std::to_string(task.id + 1000) +
                        ", which it does not hold") != std::string::npos);
}

TEST_CASE("a pool keeps working while a stranger hammers its port") {
  fiber::Pool pool(2);
  const std::string endpoint = pool.apply(getenv_task, std::string("FIBER_MASTER"));
  REQUIRE(endpoint.rfind("tcp://127.0.0.1:", 0) == 0);
  zmq::context_t ctx;
  std::vector<zmq::socket_t> strangers;
  {
    StderrCapture log;
    for (int i = 0; i < 20; ++i) {
      strangers.push_back(peer(ctx, endpoint, "w" + std::to_string(i % 3), nullptr));
      strangers.back().send(hello(), zmq::send_flags::none);
    }
    std::vector<int> xs(500);
    for (int i = 0; i < 500; ++i) xs[i] = i;
    const auto ys = pool.map(square, xs, 1);
    for (int i = 0; i < 500; ++i) REQUIRE(ys[i] == i * i);
    for (auto& s : strangers) CHECK(reply(s, 10).size() == 0);
  }
  // The worker's copy of the run's secret is gone from its environment.
  CHECK(pool.apply(getenv_task, std::string("FIBER_CLIENT_KEY")).empty());
}

TEST_CASE("a worker's copy of the run's secret is gone from its /proc environ, and it still works") {
  Master master(1);
  fiber::detail::Dispatcher& dispatcher = *master.dispatcher;
  auto environ_batch = std::make_shared<fiber::detail::Batch>(1);
  dispatcher.Submit("proc_environ_task", {fiber::detail::encode_args(proc_environ_task)}, 1,
                    environ_batch);
  auto square_batch = std::make_shared<fiber::detail::Batch>(1);
  dispatcher.Submit("square", {fiber::detail::encode_args(square, 9)}, 1, square_batch);
  const auto deadline = fiber::detail::deadline_after(std::chrono::seconds(30));
  REQUIRE(environ_batch->wait_all(deadline));
  REQUIRE(square_batch->wait_all(deadline));
  const auto shown = fiber::detail::decode<std::string>(environ_batch->at(0));
  CHECK(shown.find("FIBER_WORKER_ID=w0") != std::string::npos);  // it is the worker's
  CHECK(shown.find(master.keys.client_secret) == std::string::npos);
  CHECK(fiber::detail::decode<int>(square_batch->at(0)) == 81);
}
