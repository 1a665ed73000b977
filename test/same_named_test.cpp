// Tasks and classes of one name in several files of one program each run
// as themselves: a name on the wire carries where it was registered.
#include <doctest/doctest.h>

#include <fiber/fiber.hpp>

#include <string>
#include <vector>

#include "worker/registered_names.hpp"
#include "same_named/same_named.hpp"

static int work(int x) { return x + 1000; }
FIBER_TASK(work);

namespace {
class Env {
 public:
  explicit Env(int seed) : seed_(seed) {}
  int value() const { return seed_ + 100; }

 private:
  int seed_;
};

int plus_one(int x) { return x + 1; }
int plus_two(int x) { return x + 2; }
}  // namespace
FIBER_CLASS(Env, &Env::value);

// Two registrations on one line, as a user's own macro makes them.
#define FIBER_TEST_TWO_TASKS(a, b) FIBER_TASK(a); FIBER_TASK(b)
FIBER_TEST_TWO_TASKS(plus_one, plus_two);

TEST_CASE("a static work in each of several files: each map runs its own file's work") {
  fiber::Pool pool(2);
  const std::vector<int> items{1, 2, 3};
  CHECK(pool.map(work, items) == std::vector<int>{1001, 1002, 1003});
  CHECK(MapOtherWork(pool, items) == std::vector<int>{2001, 2002, 2003});
  CHECK(MapWorkOfA(pool, items) == std::vector<int>{3001, 3002, 3003});
  CHECK(MapWorkOfB(pool, items) == std::vector<int>{4001, 4002, 4003});
  CHECK(pool.apply(work, 5) == 1005);
  CHECK(pool.map(plus_one, items) == std::vector<int>{2, 3, 4});
  CHECK(pool.map(plus_two, items) == std::vector<int>{3, 4, 5});
}

TEST_CASE("a file-local class Env in each of two files: a manager builds and calls each one") {
  fiber::Manager manager;
  CHECK(manager.make<Env>(1).call(&Env::value).get() == 101);
  CHECK(OtherEnvValue(manager) == 201);
}

TEST_CASE("a task's name says which function and where, readably") {
  const std::string& name =
      fiber::detail::task_name(fiber::detail::key_of(&work), "same_named_test");
  CHECK(name.rfind("work@same_named_test.cpp:", 0) == 0);
  CHECK(fiber::detail::RegisteredAs(name) == "work");
}

TEST_CASE("registered names: one source compiled twice is one name; one base name twice, two") {
  fiber::detail::RegisteredNames names;
  const std::size_t header = names.Add("work", "src/tasks.hpp", 7);
  CHECK(names.Add("work", "src/tasks.hpp", 7) == header);
  CHECK(names.Name(header) == "work@tasks.hpp:7");

  const std::size_t a = names.Add("step", "sim/a/env.cpp", 3);
  CHECK(names.Name(a) == "step@env.cpp:3");
  const std::size_t b = names.Add("step", "sim/b/env.cpp", 3);
  CHECK(names.Name(a) == "step@sim/a/env.cpp:3");
  CHECK(names.Name(b) == "step@sim/b/env.cpp:3");
  std::size_t found = 99;
  REQUIRE(names.Find("step@sim/b/env.cpp:3", &found));
  CHECK(found == b);
  CHECK_FALSE(names.Find("step@env.cpp:3", &found));
  CHECK(fiber::detail::RegisteredAs("step@sim/b/env.cpp:3") == "step");
}
