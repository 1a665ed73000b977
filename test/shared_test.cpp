// fiber::share across real processes: a value read by many Pool tasks on
// several workers, loaded once by each; shared from a Process and kept by a
// manager's object; freed in the master once no handle is left (a holder
// killed holds nothing); and the errors of misuse, a handle read from bytes
// after its value was freed and a share once the run has ended among them.
#include <doctest/doctest.h>
#include <signal.h>

#include <fiber/fiber.hpp>

#include <future>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "master/run.hpp"
#include "support/connected_pid.hpp"
#include "support/fiber_command.hpp"
#include "subprocess.hpp"
#include "tasks.hpp"

using fiber::testing::eventually;
using Numbers = std::vector<std::uint32_t>;

namespace {

// Shared values the run's master holds now.
std::size_t ValuesHeld() {
  fiber::master::Dispatcher& d = fiber::master::Run::Get().dispatcher();
  std::promise<std::size_t> held;
  REQUIRE(d.Post([&] { held.set_value(d.requests().shares().values()); }));
  return held.get_future().get();
}

// Shares a value from a Process, and holds it until done is set.
void share_from_process(fiber::Queue<fiber::Shared<Numbers>> out, fiber::Event done) {
  out.put(fiber::share(shared_numbers(1000)));
  done.wait();
}
FIBER_TASK(share_from_process);

// Holds a handle until killed.
void hold_forever(fiber::Shared<Numbers> numbers, fiber::Queue<int> holding) {
  holding.put(1);
  fiber::Event never;
  never.wait();
  (void)numbers;
}
FIBER_TASK(hold_forever);

// Reads a handle from its bytes: the value, or the error.
std::string get_from_bytes(std::string bytes) {
  try {
    return std::to_string(fiber::detail::from_bytes<fiber::Shared<int>>(bytes).get());
  } catch (const fiber::Error& e) {
    return e.what();
  }
}
FIBER_TASK(get_from_bytes);

// A manager's object that keeps a handle it was given.
class Keeper {
 public:
  void keep(fiber::Shared<Numbers> numbers) { numbers_ = std::move(numbers); }
  std::uint64_t sum() const { return checksum(numbers_.get()); }

 private:
  fiber::Shared<Numbers> numbers_;
};
FIBER_CLASS(Keeper, &Keeper::keep, &Keeper::sum);

}  // namespace

TEST_CASE("a value read by 200 tasks on four workers equals the original; each worker loads it once, "
          "in place") {
  const Numbers numbers = shared_numbers(1 << 18);  // 1 MiB
  auto shared = fiber::share(numbers);
  CHECK(shared.get() == numbers);  // the master's own copy
  std::vector<std::tuple<fiber::Shared<Numbers>, int>> items;
  for (int i = 0; i < 200; ++i) items.emplace_back(shared, i);
  fiber::Pool pool(4);
  for (const auto& [sum, mapped, fetched] : pool.starmap(read_shared, items)) {
    CHECK(sum == checksum(numbers));
    CHECK(mapped == 1);  // never again for a later task on the same worker
    CHECK(fetched == 0);
  }
}

TEST_CASE("a value is freed in the master once no process holds a handle to it") {
  const std::size_t before = ValuesHeld();
  fiber::Pool pool(2);
  {
    auto shared = fiber::share(shared_numbers(1000));
    CHECK(ValuesHeld() == before + 1);
    std::vector<std::tuple<fiber::Shared<Numbers>, int>> items;
    for (int i = 0; i < 20; ++i) items.emplace_back(shared, i);
    pool.starmap(read_shared, items);
    CHECK(ValuesHeld() == before + 1);
  }
  CHECK(eventually([&] { return ValuesHeld() == before; }));

  // A Process holding the only handle keeps it; killed, it holds nothing.
  fiber::Queue<int> holding;
  fiber::Process holder(hold_forever, fiber::share(shared_numbers(10)), holding);
  holder.start();
  CHECK(holding.get() == 1);
  CHECK(ValuesHeld() == before + 1);
  ::kill(static_cast<pid_t>(connected_pid(holder)), SIGKILL);
  holder.join();
  CHECK(eventually([&] { return ValuesHeld() == before; }));
}

TEST_CASE("a value shared in a Process reaches the master through a queue, and a manager's object "
          "keeps its handle") {
  const std::size_t before = ValuesHeld();
  fiber::Queue<fiber::Shared<Numbers>> out;
  fiber::Event done;
  fiber::Process sharer(share_from_process, out, done);
  sharer.start();
  fiber::Shared<Numbers> shared = out.get();
  CHECK(shared.get() == shared_numbers(1000));
  done.set();
  sharer.join();
  CHECK(sharer.exitcode() == 0);

  fiber::Manager m;
  auto keeper = m.make<Keeper>();
  keeper.call(&Keeper::keep, shared).get();
  shared = {};  // the master's handle gone: the manager's keeps the value
  CHECK(keeper.call(&Keeper::sum).get() == checksum(shared_numbers(1000)));
  CHECK(ValuesHeld() == before + 1);
  keeper.call(&Keeper::keep, fiber::Shared<Numbers>()).get();
  CHECK(eventually([&] { return ValuesHeld() == before; }));
}

TEST_CASE("misuse is a clear error") {
  fiber::Shared<int> empty;
  CHECK_FALSE(empty);
  CHECK_THROWS_WITH_AS(empty.get(), doctest::Contains("empty"), fiber::Error);
  auto one = fiber::share(1);
  auto moved = std::move(one);
  CHECK(moved.get() == 1);
  CHECK_THROWS_WITH_AS(one.get(), doctest::Contains("moved from"), fiber::Error);
  fiber::Queue<fiber::Shared<int>> q;
  q.put(one);  // travels empty
  CHECK_THROWS_WITH_AS(q.get().get(), doctest::Contains("empty"), fiber::Error);

  // Bytes of another type.
  const auto as_string = fiber::detail::from_bytes<fiber::Shared<std::string>>(
      fiber::detail::to_bytes(fiber::share(5)));
  CHECK_THROWS_WITH_AS(as_string.get(), doctest::Contains("does not decode"), fiber::Error);

  // A handle kept as bytes past its value's life (a Dict's, read again).
  const std::size_t before = ValuesHeld();
  const std::string bytes = fiber::detail::to_bytes(fiber::share(7));
  CHECK(fiber::detail::from_bytes<fiber::Shared<int>>(bytes).get() == 7);  // then dropped
  CHECK(eventually([&] { return ValuesHeld() == before; }));
  fiber::Pool pool(1);  // a process that has not loaded it
  CHECK(pool.apply(get_from_bytes, bytes).find("was freed") != std::string::npos);

  // A handle of another run.
  fiber::detail::SharedRef other;
  other.run_id = "another-run";
  other.id = 1;
  CHECK_THROWS_WITH_AS(fiber::detail::from_bytes<fiber::Shared<int>>(fiber::detail::to_bytes(other)),
                       doctest::Contains("belongs to run another-run"), fiber::Error);
}

TEST_CASE("share once the run has ended (in an exit handler) is a clear error") {
  const Child child = spawn({built_program("share_at_exit")}, {});
  REQUIRE(child.pid > 0);
  const std::string out = read_all(child.stdout_fd);
  CHECK(wait_exit(child) == 0);
  CHECK(out == "shared 1\nat exit: fiber::share: the run has ended (the program is exiting)\n");
}
