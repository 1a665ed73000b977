// fiber::Manager across real processes: a shared dict used from the master,
// a Process and Pool tasks; remote objects called in order; several
// managers; a killed manager; and the errors of misuse. Calls in one hop:
// a worker calls a manager's own endpoint, not through the master, in
// order, failing fast when the manager dies, falling back to the master
// where it cannot reach that endpoint, which admits only the run's peers
// and closes a stranger's idle connections as the master does;
// calls made while others are in flight go together and are answered so.
#include <doctest/doctest.h>
#include <signal.h>
#include <unistd.h>

#include <fiber/fiber.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <future>
#include <optional>
#include <zmq.hpp>

#include "master/run.hpp"
#include "support/idle_connections.hpp"
#include "support/lost_calls.hpp"
#include "wire/credentials.hpp"
#include "wire/frames.hpp"
#include "wire/limits.hpp"
#include "wire/request.hpp"
#include "wire/socket_monitor.hpp"
#include <stdexcept>
#include <thread>
#include <vector>

namespace fiber::detail {
// The built-in a manager runs for a method call (api/manager.cpp).
std::string fiber_manager_call(std::uint64_t object, std::string method, std::string args);
}  // namespace fiber::detail

namespace {

class Counter {
 public:
  explicit Counter(int start) : total_(start) {}
  int add(int n) { return total_ += n; }
  int value() const { return total_; }
  long pid() const { return static_cast<long>(::getpid()); }
  int slow(int ms) {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    return ms;
  }
  int fail(int) { throw std::invalid_argument("no"); }
  // Says it runs, then sleeps: a call the test knows has started.
  int announce(fiber::Queue<int> started, int ms) {
    started.put(1);
    return slow(ms);
  }
  int secret() { return 42; }  // not registered

 private:
  int total_;
};
FIBER_CLASS(Counter, &Counter::add, &Counter::value, &Counter::pid, &Counter::slow, &Counter::fail,
            &Counter::announce);

class Unregistered {
 public:
  int f() { return 1; }
};

void set_in_child(fiber::Dict<std::string, int> d) { d.set("child", d.get("parent") + 1); }
FIBER_TASK(set_in_child);

int add_remote(fiber::RemoteObject<Counter> c, int n) { return c.call(&Counter::add, n).get(); }
FIBER_TASK(add_remote);

void set_square(fiber::Dict<int, int> d, int x) { d.set(x, x * x); }
FIBER_TASK(set_square);

// n calls made at once from this worker, then their results in order.
std::vector<int> add_many(fiber::RemoteObject<Counter> c, int n) {
  std::vector<fiber::AsyncResult<int>> pending;
  for (int i = 0; i < n; ++i) pending.push_back(c.call(&Counter::add, 1));
  std::vector<int> out;
  for (auto& r : pending) out.push_back(r.get());
  return out;
}
FIBER_TASK(add_many);

// add_many, as a Process: its answers put into out.
void add_many_into(fiber::RemoteObject<Counter> c, int n, fiber::Queue<std::vector<int>> out) {
  out.put(add_many(c, n));
}
FIBER_TASK(add_many_into);

void add_in_process(fiber::RemoteObject<Counter> c, int n) {
  for (int i = 0; i < n; ++i) c.call(&Counter::add, 1).get();
}
FIBER_TASK(add_in_process);

// A call in flight when the manager is killed, and one after: how many
// failed with WorkerLost.
int calls_lost(fiber::RemoteObject<Counter> c, fiber::Queue<int> started) {
  auto pending = c.call(&Counter::slow, 600000);
  started.put(1);
  return fiber::testing::LostCalls({[&] { pending.get(); }, [&] { c.call(&Counter::value).get(); }});
}
FIBER_TASK(calls_lost);

// Calls made while others to the same manager are in flight go together
// in one message: one call alone, then four with a call that blocks second
// (the caller's wait sends them), which the manager is killed in. How many
// of the blocked call, those after it and a later one failed with
// WorkerLost (-1: a call before it answered wrong; its batch's answer is
// lost with the manager, unless it went alone).
int batch_lost(fiber::RemoteObject<Counter> c, fiber::Queue<int> started) {
  c.call(&Counter::value).get();  // the connection is made: the next call goes alone
  auto first = c.call(&Counter::add, 1);
  auto before = c.call(&Counter::add, 1);
  auto blocked = c.call(&Counter::announce, started, 600000);
  auto after = c.call(&Counter::add, 1);
  auto last = c.call(&Counter::add, 1);
  if (first.get() != 1) return -1;
  try {
    if (before.get() != 2) return -1;
  } catch (const fiber::WorkerLost&) {
  }
  return fiber::testing::LostCalls({[&] { blocked.get(); }, [&] { after.get(); }, [&] { last.get(); },
                                    [&] { c.call(&Counter::value).get(); }});
}
FIBER_TASK(batch_lost);

// A call's result seen without get(): ready() polled until true, then
// wait(timeout) of a second call made meanwhile; both right.
bool ready_without_get(fiber::RemoteObject<Counter> c) {
  auto first = c.call(&Counter::add, 1);
  auto second = c.call(&Counter::add, 1);  // held behind the first, to go with the next answer
  while (!first.ready()) std::this_thread::yield();
  return second.wait(std::chrono::minutes(5)) && second.get() == first.get() + 1;
}
FIBER_TASK(ready_without_get);

using Counters = std::vector<fiber::RemoteObject<Counter>>;

// Rounds of one call to each counter at once, then their results: each
// counter's totals, round after round, as a list per counter.
std::vector<std::vector<int>> step_all(Counters counters, int rounds) {
  std::vector<std::vector<int>> got(counters.size());
  for (int r = 0; r < rounds; ++r) {
    std::vector<fiber::AsyncResult<int>> steps;
    for (std::size_t i = 0; i < counters.size(); ++i) steps.push_back(counters[i].call(&Counter::add, int(i) + 1));
    for (std::size_t i = 0; i < counters.size(); ++i) got[i].push_back(steps[i].get());
  }
  return got;
}
FIBER_TASK(step_all);

// Four threads stepping the counters at once, each its own rounds: each
// thread sees every counter's totals grow.
bool threads_step(Counters counters, int rounds) {
  std::vector<std::future<std::vector<std::vector<int>>>> threads;
  for (int t = 0; t < 4; ++t)
    threads.push_back(std::async(std::launch::async, [&] { return step_all(counters, rounds); }));
  bool ok = true;
  for (auto& t : threads)
    for (const std::vector<int>& totals : t.get())
      ok = ok && totals.size() == std::size_t(rounds) &&
           std::adjacent_find(totals.begin(), totals.end(), [](int a, int b) { return b <= a; }) == totals.end();
  return ok;
}
FIBER_TASK(threads_step);

// Eight counters in two managers, as eight environments.
Counters EightCounters(fiber::Manager& a, fiber::Manager& b) {
  Counters counters;
  for (int i = 0; i < 8; ++i) counters.push_back((i % 2 ? b : a).make<Counter>(0));
  return counters;
}

// The calls on managers' objects the master forwarded for workers.
std::uint64_t ForwardedCalls() {
  fiber::master::Dispatcher& d = fiber::master::Run::Get().dispatcher();
  std::promise<std::uint64_t> count;
  auto got = count.get_future();
  REQUIRE(d.Post([&] { count.set_value(d.requests().manager_calls_forwarded()); }));
  return got.get();
}

// A connection of the run's own, as a worker's, to a manager's endpoint.
zmq::socket_t PeerOf(zmq::context_t& context, const std::string& endpoint) {
  zmq::socket_t dealer(context, zmq::socket_type::dealer);
  dealer.set(zmq::sockopt::linger, 0);
  dealer.set(zmq::sockopt::rcvtimeo, 60000);
  fiber::wire::MakeCurveClient(dealer, fiber::master::Run::Get().bootstrap().client_secret);
  dealer.connect(endpoint);
  return dealer;
}

// Sends request on a connection made by PeerOf; the answer to it.
fiber::wire::Reply AskOn(zmq::socket_t& dealer, const fiber::wire::Request& request) {
  REQUIRE(fiber::wire::SendMessage(dealer, {}, fiber::wire::Encode(request)));
  zmq::message_t message;
  std::string err;
  REQUIRE(fiber::wire::ReceiveMessage(dealer, false, nullptr, &message, &err) == fiber::wire::Receipt::kMessage);
  fiber::wire::Reply reply;
  REQUIRE(fiber::wire::Decode(message, &reply, &err));
  CHECK(reply.id == request.id);
  return reply;
}

bool Increasing(const std::vector<int>& v) {
  return std::adjacent_find(v.begin(), v.end(), [](int a, int b) { return b <= a; }) == v.end();
}

}  // namespace

TEST_CASE("a manager's dict is shared by the master, a Process and Pool tasks") {
  fiber::Manager m;
  auto d = m.dict<std::string, int>();
  d.set("parent", 41);
  fiber::Process p(set_in_child, d);
  p.start();
  p.join();
  CHECK(p.exitcode() == 0);
  CHECK(d.get("child") == 42);

  auto squares = m.dict<int, int>();
  fiber::Pool pool(2);
  std::vector<std::tuple<fiber::Dict<int, int>, int>> items;
  for (int i = 0; i < 10; ++i) items.emplace_back(squares, i);
  pool.starmap(set_square, items);
  CHECK(squares.size() == 10);
  auto keys = squares.keys();
  std::sort(keys.begin(), keys.end());
  CHECK(keys == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  CHECK(squares.get(9) == 81);
}

TEST_CASE("dict operations: get, fallback, update, erase, contains, KeyError") {
  fiber::Manager m;
  auto d = m.dict<std::string, std::vector<double>>();
  CHECK(d.size() == 0);
  CHECK_THROWS_AS(d.get("absent"), fiber::KeyError);
  CHECK(d.get("absent", {1.5}) == std::vector<double>{1.5});
  d.update({{"a", {1}}, {"b", {2, 3}}});
  CHECK(d.contains("b"));
  CHECK(d.get("b") == std::vector<double>{2, 3});
  CHECK(d.erase("a"));
  CHECK_FALSE(d.erase("a"));
  CHECK_FALSE(d.contains("a"));
  CHECK(d.size() == 1);
}

TEST_CASE("calls on one remote object run in the order they were made") {
  fiber::Manager m;
  auto c = m.make<Counter>(10);
  std::vector<fiber::AsyncResult<int>> pending;
  for (int i = 0; i < 100; ++i) pending.push_back(c.call(&Counter::add, 1));
  for (int i = 0; i < 100; ++i) CHECK(pending[i].get() == 11 + i);
  CHECK(c.call(&Counter::value).get() == 110);
  CHECK_THROWS_WITH_AS(c.call(&Counter::fail, 1).get(), doctest::Contains("no"), fiber::RemoteError);
  CHECK(c.call(&Counter::value).get() == 110);  // the object survives its method's exception
}

TEST_CASE("several managers serve their objects, and handles work in Pool tasks") {
  std::vector<fiber::Manager> managers(3);
  std::vector<fiber::RemoteObject<Counter>> counters;
  for (int i = 0; i < 3; ++i) counters.push_back(managers[i].make<Counter>(i * 100));
  std::vector<long> pids;
  for (auto& c : counters) pids.push_back(c.call(&Counter::pid).get());
  std::sort(pids.begin(), pids.end());
  CHECK(std::unique(pids.begin(), pids.end()) == pids.end());  // three processes
  fiber::Pool pool(2);
  CHECK(pool.apply(add_remote, counters[2], 5) == 205);
  CHECK(counters[2].call(&Counter::value).get() == 205);
}

TEST_CASE("a killed manager fails its pending and later calls with WorkerLost") {
  fiber::Manager m;
  auto c = m.make<Counter>(0);
  const long pid = c.call(&Counter::pid).get();
  auto pending = c.call(&Counter::slow, 600000);
  ::kill(static_cast<pid_t>(pid), SIGKILL);
  CHECK_THROWS_AS(pending.get(), fiber::WorkerLost);
  CHECK_THROWS_AS(c.call(&Counter::value).get(), fiber::WorkerLost);
  CHECK_THROWS_AS((m.dict<int, int>()), fiber::WorkerLost);
}

TEST_CASE("misuse is a clear error") {
  fiber::Manager m;
  CHECK_THROWS_WITH_AS(m.make<Unregistered>(), doctest::Contains("FIBER_CLASS"), fiber::NotRegistered);
  auto c = m.make<Counter>(1);
  CHECK_THROWS_WITH_AS(c.call(&Counter::secret), doctest::Contains("not registered"),
                       fiber::NotRegistered);
  fiber::RemoteObject<Counter> foreign(fiber::detail::ObjectRef{"another-run", 1, 1, {}});
  CHECK_THROWS_WITH_AS(foreign.call(&Counter::value), doctest::Contains("belongs to run another-run"),
                       fiber::Error);
  m.shutdown();
  CHECK_THROWS_AS(c.call(&Counter::value).get(), fiber::WorkerLost);
  CHECK_THROWS_AS((m.dict<int, int>()), fiber::Error);
}

TEST_CASE("a Process's and Pool tasks' calls go to the manager in one hop, not through the master") {
  fiber::Manager m;
  auto c = m.make<Counter>(0);
  CHECK(c.ref().endpoint.rfind("tcp://", 0) == 0);
  const std::uint64_t forwarded = ForwardedCalls();
  fiber::Process p(add_in_process, c, 50);
  p.start();
  p.join();
  CHECK(p.exitcode() == 0);
  fiber::Pool pool(2);
  std::vector<std::tuple<fiber::RemoteObject<Counter>, int>> items(4, {c, 1});
  CHECK(pool.starmap(add_remote, items).size() == 4);
  CHECK(c.call(&Counter::value).get() == 54);
  CHECK(ForwardedCalls() == forwarded);
}

TEST_CASE("calls in one hop stay in order per caller, with several callers at once") {
  fiber::Manager m;
  auto c = m.make<Counter>(0);
  // Two Processes, each a caller of its own.
  fiber::Queue<std::vector<int>> answers;
  fiber::Process a(add_many_into, c, 300, answers), b(add_many_into, c, 300, answers);
  a.start();
  b.start();
  const std::vector<int> first = answers.get(std::chrono::seconds(60)), second = answers.get(std::chrono::seconds(60));
  a.join();
  b.join();
  CHECK(a.exitcode() == 0);
  CHECK(b.exitcode() == 0);
  CHECK(first.size() == 300);
  CHECK(second.size() == 300);
  CHECK(Increasing(first));
  CHECK(Increasing(second));
  CHECK(c.call(&Counter::value).get() == 600);
}

TEST_CASE("threads of one process calling one object at once: each thread's calls in order, none lost") {
  fiber::Manager m;
  auto c = m.make<Counter>(0);
  std::vector<std::future<std::vector<int>>> threads;
  for (int t = 0; t < 4; ++t)
    threads.push_back(std::async(std::launch::async, [c] {
      std::vector<fiber::AsyncResult<int>> pending;
      std::vector<int> got;
      for (int i = 0; i < 200; ++i) {
        pending.push_back(c.call(&Counter::add, 1));
        if (i % 3 == 0) got.push_back(c.call(&Counter::add, 0).get());  // some synchronous
      }
      for (auto& r : pending) got.push_back(r.get());
      return got;
    }));
  for (auto& t : threads) {
    const std::vector<int> got = t.get();
    CHECK(got.size() == 267);
    CHECK(Increasing({got.begin(), got.begin() + 67}));
    CHECK(Increasing({got.begin() + 67, got.end()}));
  }
  CHECK(c.call(&Counter::value).get() == 800);
}

TEST_CASE("a killed manager fails a worker's call in flight, and its later ones, with WorkerLost") {
  fiber::Manager m;
  auto c = m.make<Counter>(0);
  const long pid = c.call(&Counter::pid).get();
  fiber::Queue<int> started;
  fiber::Pool pool(1);
  auto lost = pool.apply_async(calls_lost, c, started);
  started.get();
  ::kill(static_cast<pid_t>(pid), SIGKILL);
  CHECK(lost.get() == 2);
}

TEST_CASE("a worker, or the master, that cannot reach the manager's own endpoint calls it through the master") {
  // The manager listens on 127.0.0.1 and tells callers 127.0.0.2, where
  // nothing listens: their connections are refused.
  REQUIRE(::setenv("FIBER_MANAGER_HOST", "127.0.0.2", 1) == 0);
  fiber::Manager m;
  auto c = m.make<Counter>(0);
  ::unsetenv("FIBER_MANAGER_HOST");
  CHECK(c.ref().endpoint.rfind("tcp://127.0.0.2:", 0) == 0);
  const std::uint64_t forwarded = ForwardedCalls();
  fiber::Pool pool(1);
  const std::vector<int> got = pool.apply(add_many, c, 20);
  CHECK(got == std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20});
  CHECK(ForwardedCalls() == forwarded + 20);
  // The master's own calls fall back too, in order, through its dispatcher.
  std::vector<fiber::AsyncResult<int>> pending;
  for (int i = 0; i < 5; ++i) pending.push_back(c.call(&Counter::add, 1));
  for (int i = 0; i < 5; ++i) CHECK(pending[i].get() == 21 + i);
}

TEST_CASE("a peer without the run's keys cannot call a manager's own endpoint") {
  fiber::Manager m;
  auto c = m.make<Counter>(7);
  REQUIRE(!c.ref().endpoint.empty());
  fiber::wire::Credentials other;
  std::string err;
  REQUIRE(fiber::wire::Credentials::Generate(&other, &err));
  for (const bool curve : {true, false}) {
    CAPTURE(curve);
    zmq::context_t context(1);
    zmq::socket_t dealer(context, zmq::socket_type::dealer);
    dealer.set(zmq::sockopt::linger, 0);
    if (curve) fiber::wire::MakeCurveClient(dealer, other.client_secret);  // another run's keys
    fiber::wire::SocketMonitor events(context, dealer,
                                      ZMQ_EVENT_HANDSHAKE_SUCCEEDED | ZMQ_EVENT_DISCONNECTED |
                                          ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL |
                                          ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL |
                                          ZMQ_EVENT_HANDSHAKE_FAILED_AUTH);
    dealer.connect(c.ref().endpoint);
    fiber::wire::Request call;
    call.id = 1;
    call.op = fiber::wire::Op::kManagerCall;
    call.object = c.ref().manager;
    call.body = fiber::wire::EncodePair(
        fiber::detail::task_name(fiber::detail::key_of(&fiber::detail::fiber_manager_call), "test"),
        fiber::detail::encode_args(&fiber::detail::fiber_manager_call, c.ref().object,
                                   std::string("Counter::add"), fiber::detail::to_bytes(std::tuple<int>(1000))));
    REQUIRE(fiber::wire::SendMessage(dealer, {}, fiber::wire::Encode(call)));
    // The connection ends in its handshake, never admitted.
    fiber::wire::SocketEvent event;
    for (bool ended = false; !ended;) {
      zmq::pollitem_t item{events.handle(), 0, ZMQ_POLLIN, 0};
      REQUIRE(zmq::poll(&item, 1, std::chrono::seconds(30)) == 1);
      while (!ended && events.Next(&event)) {
        REQUIRE(event.id != ZMQ_EVENT_HANDSHAKE_SUCCEEDED);
        ended = true;
      }
    }
  }
  CHECK(c.call(&Counter::value).get() == 7);  // the call never ran
}

TEST_CASE("a manager closes 300 idle connections of a stranger to its own endpoint within its handshake time, answering calls meanwhile") {
  fiber::Manager m;
  auto c = m.make<Counter>(0);
  const std::string& endpoint = c.ref().endpoint;
  REQUIRE(endpoint.rfind("tcp://127.0.0.1:", 0) == 0);
  const auto opened = std::chrono::steady_clock::now();
  fiber::testing::IdleConnections idle(std::stoi(endpoint.substr(endpoint.rfind(':') + 1)), 300);
  for (int i = 1; i <= 20; ++i) CHECK(c.call(&Counter::add, 1).get() == i);
  // The run's handshake time, with room for a loaded machine, yet well
  // short of libzmq's own 30 s, which the endpoint had before.
  const auto ends = idle.WaitAllEnded(opened + fiber::wire::kHandshakeTimeout + std::chrono::seconds(15));
  CHECK_MESSAGE(ends.closed_by_peer == 300, ends.open << " still open, " << ends.never_connected
                                                      << " never connected");
  CHECK(c.call(&Counter::value).get() == 20);
}

TEST_CASE("a manager's own endpoint answers the run's peers its hello and method calls, nothing else") {
  fiber::Manager m;
  auto c = m.make<Counter>(7);
  zmq::context_t context(1);
  zmq::socket_t dealer = PeerOf(context, c.ref().endpoint);
  auto ask = [&](fiber::wire::Op op, std::uint64_t channel, std::string function, std::string args) {
    fiber::wire::Request request;
    request.id = 9;
    request.op = op;
    request.object = channel;
    request.body = fiber::wire::EncodePair(function, args);
    return AskOn(dealer, request);
  };
  const std::uint64_t channel = c.ref().manager;
  CHECK(ask(fiber::wire::Op::kManagerHello, channel, {}, {}).status == fiber::wire::Status::kOk);
  CHECK(ask(fiber::wire::Op::kManagerHello, channel + 1, {}, {}).status == fiber::wire::Status::kRefused);
  const std::string call =
      fiber::detail::task_name(fiber::detail::key_of(&fiber::detail::fiber_manager_call), "test");
  const std::string add = fiber::detail::encode_args(&fiber::detail::fiber_manager_call, c.ref().object,
                                                     std::string("Counter::add"),
                                                     fiber::detail::to_bytes(std::tuple<int>(1)));
  const fiber::wire::Reply added = ask(fiber::wire::Op::kManagerCall, channel, call, add);
  REQUIRE(added.status == fiber::wire::Status::kOk);
  // The built-in's result: the method's, encoded.
  CHECK(fiber::detail::from_bytes<int>(fiber::detail::from_bytes<std::string>(added.body)) == 8);
  // Not another manager's call, nor any other task of the program, nor a queue's request.
  CHECK(ask(fiber::wire::Op::kManagerCall, channel + 1, call, add).status == fiber::wire::Status::kRefused);
  const std::string other = fiber::detail::task_name(fiber::detail::key_of(&add_remote), "test");
  CHECK(ask(fiber::wire::Op::kManagerCall, channel, other, add).status == fiber::wire::Status::kRefused);
  CHECK(ask(fiber::wire::Op::kQueueGet, channel, {}, {}).status == fiber::wire::Status::kRefused);
  CHECK(c.call(&Counter::value).get() == 8);
}

TEST_CASE("after its manager is shut down, the master calls the next manager in one hop still") {
  // A call in one hop lost with its manager names the manager's endpoint;
  // one through the master names the task it was. Each manager shut down
  // once its link is made used to leave the master's later links unable
  // to connect (libzmq's I/O thread blocked on their monitor), all of its
  // calls going through the master.
  for (int i = 0; i < 3; ++i) {
    fiber::Manager a;
    auto ca = a.make<Counter>(0);
    CHECK(ca.call(&Counter::add, 1).get() == 1);
    fiber::Pool pool(1);
    CHECK(pool.apply(add_remote, ca, 1) == 2);
  }
  fiber::Manager b;
  auto cb = b.make<Counter>(0);
  const long pid = cb.call(&Counter::pid).get();
  auto pending = cb.call(&Counter::slow, 600000);
  ::kill(static_cast<pid_t>(pid), SIGKILL);
  const std::string in_one_hop = "lost the manager at " + cb.ref().endpoint;
  CHECK_THROWS_WITH_AS(pending.get(), doctest::Contains(in_one_hop.c_str()), fiber::WorkerLost);
}

TEST_CASE("eight objects in two managers stepped at once: each call gets its own answer, round after round") {
  fiber::Manager a, b;
  const Counters counters = EightCounters(a, b);
  fiber::Pool pool(1);
  const auto from_task = pool.apply(step_all, counters, 30);
  const auto from_master = step_all(counters, 30);
  for (std::size_t i = 0; i < 8; ++i) {
    CAPTURE(i);
    const int n = int(i) + 1;
    REQUIRE(from_task[i].size() == 30);
    REQUIRE(from_master[i].size() == 30);
    for (int r = 0; r < 30; ++r) {
      CHECK(from_task[i][r] == n * (r + 1));
      CHECK(from_master[i][r] == n * (30 + r + 1));
    }
  }
}

TEST_CASE("four threads of a Pool task and of the master stepping objects in two managers: every thread's calls in order") {
  fiber::Manager a, b;
  const Counters counters = EightCounters(a, b);
  fiber::Pool pool(1);
  auto in_task = pool.apply_async(threads_step, counters, 50);
  CHECK(threads_step(counters, 50));
  CHECK(in_task.get());
  for (std::size_t i = 0; i < 8; ++i) CHECK(counters[i].call(&Counter::value).get() == int(i + 1) * 8 * 50);
}

TEST_CASE("a manager killed while it runs calls sent together fails each of them with WorkerLost, none hangs") {
  for (const bool from_task : {false, true}) {
    CAPTURE(from_task);
    fiber::Manager m;
    auto c = m.make<Counter>(0);
    const long pid = c.call(&Counter::pid).get();
    fiber::Queue<int> started;
    fiber::Pool pool(1);
    std::future<int> in_master;
    std::optional<fiber::AsyncResult<int>> in_task;
    if (from_task)
      in_task = pool.apply_async(batch_lost, c, started);
    else
      in_master = std::async(std::launch::async, [&] { return batch_lost(c, started); });
    started.get();
    ::kill(static_cast<pid_t>(pid), SIGKILL);
    // The blocked call, the two after it and one made later fail.
    CHECK((from_task ? in_task->get() : in_master.get()) == 4);
  }
}

TEST_CASE("a manager's own endpoint answers calls sent together in one message with one answer, in order") {
  fiber::Manager m;
  auto c = m.make<Counter>(0);
  zmq::context_t context(1);
  zmq::socket_t dealer = PeerOf(context, c.ref().endpoint);
  const std::string call =
      fiber::detail::task_name(fiber::detail::key_of(&fiber::detail::fiber_manager_call), "test");
  std::vector<fiber::wire::Request> calls(3);
  for (std::size_t i = 0; i < calls.size(); ++i) {
    calls[i].id = 100 + i;
    calls[i].op = fiber::wire::Op::kManagerCall;
    calls[i].object = c.ref().manager;
    calls[i].body = fiber::wire::EncodePair(
        call, fiber::detail::encode_args(&fiber::detail::fiber_manager_call, c.ref().object,
                                         std::string(i == 1 ? "Counter::fail" : "Counter::add"),
                                         fiber::detail::to_bytes(std::tuple<int>(10))));
  }
  fiber::wire::Request batch;
  batch.id = 7;
  batch.op = fiber::wire::Op::kManagerCalls;
  batch.object = c.ref().manager;
  batch.body = fiber::wire::EncodeCalls({&calls[0], &calls[1], &calls[2]});
  const fiber::wire::Reply reply = AskOn(dealer, batch);
  REQUIRE(reply.status == fiber::wire::Status::kOk);
  std::vector<fiber::wire::Reply> replies;
  REQUIRE(fiber::wire::DecodeReplies(reply.body, &replies));
  REQUIRE(replies.size() == 3);
  CHECK(replies[0].id == 100);
  CHECK(replies[0].status == fiber::wire::Status::kOk);
  CHECK(fiber::detail::from_bytes<int>(fiber::detail::from_bytes<std::string>(replies[0].body)) == 10);
  CHECK(replies[1].id == 101);
  CHECK(replies[1].status == fiber::wire::Status::kRaised);  // one call's exception ends nothing
  CHECK(replies[2].id == 102);
  CHECK(fiber::detail::from_bytes<int>(fiber::detail::from_bytes<std::string>(replies[2].body)) == 20);
}

TEST_CASE("a manager's own endpoint refuses a batch claiming more calls than a caller may have in "
          "flight, by name, and serves the next") {
  fiber::Manager m;
  auto c = m.make<Counter>(0);
  zmq::context_t context(1);
  zmq::socket_t dealer = PeerOf(context, c.ref().endpoint);
  // Calls of no bytes at all: what they would cost the manager is all count.
  std::vector<fiber::wire::Request> calls(fiber::wire::kMaxCallsInFlight + 1);
  std::vector<const fiber::wire::Request*> each;
  for (const auto& call : calls) each.push_back(&call);
  fiber::wire::Request batch;
  batch.id = 8;
  batch.op = fiber::wire::Op::kManagerCalls;
  batch.object = c.ref().manager;
  batch.body = fiber::wire::EncodeCalls(each);
  const fiber::wire::Reply reply = AskOn(dealer, batch);
  CHECK(reply.status == fiber::wire::Status::kRefused);
  CHECK(reply.body == "a malformed MANAGER_CALLS: a call cut short, or more than 1024 calls");
  CHECK(c.call(&Counter::add, 5).get() == 5);  // the manager goes on
}

TEST_CASE("a call's result turns ready without get, polled with ready() or waited for with a timeout") {
  fiber::Manager m;
  auto c = m.make<Counter>(0);
  CHECK(ready_without_get(c));
  fiber::Pool pool(1);
  CHECK(pool.apply(ready_without_get, c));
  CHECK(c.call(&Counter::value).get() == 4);
}
