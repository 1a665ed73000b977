// What a Slurm controller allows (backend/slurm/controller_limits.hpp): its
// MaxArraySize read from scontrol's words, and a run's workers cut into job
// arrays whose every index is below it.
#include "backend/slurm/controller_limits.hpp"

#include <doctest/doctest.h>

#include "support/fake_command.hpp"

using fiber::backend::ControllerLimits;
using fiber::backend::ParseControllerConfig;
using fiber::backend::SplitIntoArrays;
using Arrays = std::vector<std::vector<long>>;

TEST_CASE("MaxArraySize is read from scontrol show config; Slurm's default when it says none") {
  CHECK(ParseControllerConfig("Configuration data as of 2026-11-26T08:44:10\n"
                              "MaxArraySize            = 50\n"
                              "MaxJobCount             = 10\n"
                              "MinJobAge               = 2 sec\n")
            .max_array_size == 50);
  CHECK(ParseControllerConfig("MaxJobCount = 10\n").max_array_size == 1001);
  CHECK(ParseControllerConfig("MaxArraySize = none\n").max_array_size == 1001);
}

TEST_CASE("the limits come from the controller's own scontrol; when it cannot say, the defaults and why") {
  {
    const fiber::testing::FakeCommand scontrol("scontrol", "AccountingStorageType   = (null)\nMaxArraySize            = 7\n");
    ControllerLimits limits;
    std::string err;
    REQUIRE_MESSAGE(fiber::backend::ReadControllerLimits(&limits, &err), err);
    CHECK(limits.max_array_size == 7);
  }
  const fiber::testing::FakeCommand scontrol("scontrol", "slurm_load_ctl_conf error: Invalid user for SlurmUser\n", 1);
  ControllerLimits limits;
  limits.max_array_size = 3;
  std::string err;
  CHECK_FALSE(fiber::backend::ReadControllerLimits(&limits, &err));
  CHECK(limits.max_array_size == 1001);
  CHECK_MESSAGE(err.find("scontrol failed") == 0, err);
}

TEST_CASE("120 workers under MaxArraySize=50 are three arrays, each index below 50") {
  std::vector<long> numbers;
  for (long n = 0; n < 120; ++n) numbers.push_back(n);
  const Arrays arrays = SplitIntoArrays(numbers, 50);
  REQUIRE(arrays.size() == 3);
  CHECK(arrays[0].front() == 0);
  CHECK(arrays[0].back() == 49);
  CHECK(arrays[1].front() == 50);
  CHECK(arrays[2].size() == 20);
}

TEST_CASE("a worker's number is not its array index: replacements far from the first start arrays of their own") {
  // w1050 with MaxArraySize 1001 cannot be index 1050 of an array from w0.
  CHECK(SplitIntoArrays({0, 1, 1050}, 1001) == Arrays{{0, 1}, {1050}});
  CHECK(SplitIntoArrays({3, 60, 61, 200}, 50) == Arrays{{3}, {60, 61}, {200}});
  CHECK(SplitIntoArrays({5, 6}, 1) == Arrays{{5}, {6}});
  CHECK(SplitIntoArrays({}, 50).empty());
}
