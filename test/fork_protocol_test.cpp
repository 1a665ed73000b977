// What the fork server and its client say to each other: each packet read
// back as it was written, and a malformed start refused rather than read.
#include <doctest/doctest.h>
#include <sys/wait.h>

#include "backend/local/fork_protocol.hpp"

namespace {

using namespace fiber::backend;

}  // namespace

TEST_CASE("a start request reads back whole: log file, memory bound, worker id and environment") {
  ForkRequest sent;
  sent.environment = {"A=1", "EMPTY=", "WITH_EQUALS=x=y"};
  sent.log_file = "";
  sent.worker_id = "w12";
  sent.memory_mb = 512;
  ForkRequest got;
  REQUIRE(DecodeStart(EncodeStart(sent), &got));
  CHECK(got.environment == sent.environment);
  CHECK(got.log_file.empty());
  CHECK(got.worker_id == "w12");
  CHECK(got.memory_mb == 512);
}

TEST_CASE("a start cut short, or a packet of another kind, is not read as a start") {
  ForkRequest request;
  request.worker_id = "w1";
  request.environment = {"A=1"};
  const std::string whole = EncodeStart(request);
  ForkRequest got;
  CHECK_FALSE(DecodeStart(whole.substr(0, whole.size() - 1), &got));
  CHECK_FALSE(DecodeStart(std::string(1, static_cast<char>(ForkPacket::kStart)) + "only", &got));
  CHECK_FALSE(DecodeStart(EncodePid(ForkPacket::kPid, 42), &got));
  CHECK_FALSE(DecodeStart("", &got));
}

TEST_CASE("answers and reports read back: a pid, a reason, a worker's end with its wait status") {
  const std::string pid = EncodePid(ForkPacket::kPid, 4242);
  CHECK(Is(pid, ForkPacket::kPid));
  CHECK(DecodePid(pid) == 4242);
  CHECK(DecodePid(EncodePid(ForkPacket::kKill, 7)) == 7);
  const std::string error = EncodeError("cannot fork a worker: out of memory");
  CHECK(Is(error, ForkPacket::kError));
  CHECK(DecodeError(error) == "cannot fork a worker: out of memory");
  const int killed = 9;  // as waitpid gives it for SIGKILL
  const ForkedExit exit = DecodeExit(EncodeExit({123, killed}));
  CHECK(exit.pid == 123);
  CHECK(WIFSIGNALED(exit.wait_status));
  CHECK(WTERMSIG(exit.wait_status) == 9);
  CHECK(DecodeExit(EncodeExit({5, 3 << 8})).wait_status == 3 << 8);
}
