// fiber::Pipe across real processes: both ends of a duplex pipe, a one-way
// pipe, poll, close, and an end passed through a Pool task.
#include <doctest/doctest.h>

#include <fiber/fiber.hpp>

#include <cctype>
#include <string>

namespace {

using StringPipe = fiber::Pipe<std::string>;

// Answers each message in capitals until "bye", then closes its end.
void shout_back(StringPipe::Connection c) {
  for (;;) {
    std::string m = c.recv();
    if (m == "bye") return c.close();
    for (char& ch : m) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    c.send(m);
  }
}
FIBER_TASK(shout_back);

void send_numbers(fiber::Pipe<int>::Connection w, int n) {
  for (int i = 0; i < n; ++i) w.send(i);
  w.close();
}
FIBER_TASK(send_numbers);

int recv_one(fiber::Pipe<int>::Connection c) { return c.recv(); }
FIBER_TASK(recv_one);

}  // namespace

TEST_CASE("a duplex pipe carries messages both ways between processes") {
  auto [a, b] = StringPipe(true);
  fiber::Process p(shout_back, b);
  p.start();
  a.send("hello");
  CHECK(a.recv() == "HELLO");
  a.send("fiber");
  CHECK(a.poll(std::chrono::seconds(60)));
  CHECK(a.recv() == "FIBER");
  CHECK_FALSE(a.poll());  // nothing more for now
  CHECK_FALSE(a.poll(0.05));  // seconds, as multiprocessing's poll(0.05)
  a.send("bye");
  p.join();
  CHECK(p.exitcode() == 0);
  // The other end closed: recv and send say so.
  CHECK(a.poll());
  CHECK(a.poll(60));
  CHECK_THROWS_AS(a.recv(), fiber::Closed);
  CHECK_THROWS_AS(a.send("more"), fiber::Closed);
}

TEST_CASE("a one-way pipe: the first end receives what the second sends, to the last") {
  auto [r, w] = fiber::Pipe<int>(false);
  fiber::Process p(send_numbers, w, 50);
  p.start();
  for (int i = 0; i < 50; ++i) CHECK(r.recv() == i);
  CHECK_THROWS_AS(r.recv(), fiber::Closed);  // drained, and the sender closed
  p.join();
  CHECK_THROWS_WITH_AS(r.send(1), doctest::Contains("cannot send"), fiber::Error);
  CHECK_THROWS_WITH_AS(w.recv(), doctest::Contains("cannot recv"), fiber::Error);
}

TEST_CASE("a pipe end passed through a Pool task receives there") {
  auto [a, b] = fiber::Pipe<int>(true);
  fiber::Pool pool(1);
  auto r = pool.apply_async(recv_one, b);
  a.send(42);
  CHECK(r.get() == 42);
}
