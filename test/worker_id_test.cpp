// A worker's id, "w" and its number: made from the number, and read back
// into it (Slurm's workers are told their number, the master their id).
#include "worker/worker_id.hpp"

#include <doctest/doctest.h>

using fiber::worker::WorkerId;
using fiber::worker::WorkerNumber;

TEST_CASE("a worker's id is w and its number, and reads back as that number") {
  CHECK(WorkerId(0) == "w0");
  CHECK(WorkerId(1042) == "w1042");
  for (long n : {0L, 7L, 1042L, 99999999999L}) {
    long back = -1;
    REQUIRE(WorkerNumber(WorkerId(static_cast<std::uint64_t>(n)), &back));
    CHECK(back == n);
  }
}

TEST_CASE("an id not of the form wN has no worker number") {
  for (const char* id : {"", "w", "x1", "W1", "w1a", "w-1", "w 1", "1", "w123456789012"}) {
    long n = -1;
    CHECK_MESSAGE(!WorkerNumber(id, &n), id);
    CHECK(n == -1);
  }
}
