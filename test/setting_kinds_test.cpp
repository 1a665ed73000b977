// The kinds of value a setting takes: whole numbers within their range,
// and every setting's value shown in a form it reads back.
#include <doctest/doctest.h>

#include <map>

#include "config/setting_kinds.hpp"
#include "config/setting_table.hpp"
#include "support/environment_settings.hpp"
#include "wire/limits.hpp"

using fiber::config::Settings;
using fiber::testing::apply;

TEST_CASE("FIBER_PREFETCH stops where a worker's credit stops") {
  Settings s;
  std::string err;
  CHECK(apply({{"FIBER_PREFETCH", std::to_string(fiber::wire::kMaxCredit)}}, &s, &err));
  CHECK(s.prefetch == static_cast<int>(fiber::wire::kMaxCredit));
  CHECK_FALSE(apply({{"FIBER_PREFETCH", std::to_string(fiber::wire::kMaxCredit + 1)}}, &s, &err));
}

TEST_CASE("FIBER_GPU takes a whole number of GPUs") {
  Settings s;
  std::string err;
  REQUIRE(apply({{"FIBER_GPU", "2"}}, &s, &err));
  CHECK(s.gpu == 2);
  CHECK_FALSE(apply({{"FIBER_GPU", "0.5"}}, &s, &err));
  CHECK(err == "FIBER_GPU='0.5' is not a whole number from 0 to 1024");
}

TEST_CASE("a value as shown is read back the same") {
  Settings s;
  s.cpu_millis = 1250;
  s.memory_mib = 954;
  s.heartbeat_interval = std::chrono::milliseconds(250);
  for (const fiber::config::Setting& row : fiber::config::Table()) {
    if (row.kind.show(s).empty()) continue;  // a profile: none by default
    Settings back;
    std::string err;
    CHECK_MESSAGE(row.kind.parse(row.kind.show(s), &back, &err), err);
    CHECK_MESSAGE(row.kind.show(back) == row.kind.show(s), row.key);
  }
}
