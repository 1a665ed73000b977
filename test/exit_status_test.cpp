// ExitStatus: how a process ended, in the words and the one number users
// see from fiber run, fiber ps and the backends' reports.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include "os/exit_status.hpp"

using fiber::ExitStatus;

TEST_CASE("an exit status is said as one and given back as itself") {
  const ExitStatus s = ExitStatus::Exited(3);
  CHECK(s.Describe() == "exit status 3");
  CHECK(s.code() == 3);
  CHECK_FALSE(s.killed());
  CHECK(ExitStatus::Exited(0).Describe() == "exit status 0");
}

TEST_CASE("a process killed by signal N is said by the signal's name and given back as 128+N") {
  const ExitStatus s = ExitStatus::Killed(SIGKILL);
  CHECK(s.Describe() == "killed by SIGKILL");
  CHECK(s.code() == 128 + SIGKILL);
  CHECK(s.signal() == SIGKILL);
  CHECK(s.as_signed() == -SIGKILL);
  // Real-time signals have no name of their own.
  CHECK(ExitStatus::Killed(SIGRTMIN + 1).Describe() == "killed by signal " + std::to_string(SIGRTMIN + 1));
}

TEST_CASE("a shell's or container runtime's code over 128 is a signal, up to 128+64") {
  CHECK(ExitStatus::FromCode(137) == ExitStatus::Killed(9));
  CHECK(ExitStatus::FromCode(137).Describe() == "killed by SIGKILL");
  CHECK(ExitStatus::FromCode(128) == ExitStatus::Exited(128));
  CHECK(ExitStatus::FromCode(193) == ExitStatus::Exited(193));
  CHECK(ExitStatus::FromCode(126).Describe() == "exit status 126");
  for (long code = 0; code < 256; ++code) CHECK(ExitStatus::FromCode(code).code() == code);
}

TEST_CASE("a waitpid status is read as the process ended") {
  const pid_t exits = ::fork();
  if (exits == 0) ::_exit(7);
  int ws = 0;
  REQUIRE(::waitpid(exits, &ws, 0) == exits);
  CHECK(ExitStatus::FromWait(ws) == ExitStatus::Exited(7));
  const pid_t killed = ::fork();
  if (killed == 0) {
    ::pause();
    ::_exit(0);
  }
  // SIGKILL: the child has doctest's handlers for the others.
  ::kill(killed, SIGKILL);
  REQUIRE(::waitpid(killed, &ws, 0) == killed);
  CHECK(ExitStatus::FromWait(ws) == ExitStatus::Killed(SIGKILL));
  CHECK(ExitStatus::FromWait(ws).code() == 128 + SIGKILL);
}

TEST_CASE("the signed form backends report keeps the status") {
  CHECK(ExitStatus::FromSigned(-9) == ExitStatus::Killed(9));
  CHECK(ExitStatus::FromSigned(4) == ExitStatus::Exited(4));
  CHECK(ExitStatus() == ExitStatus::Exited(0));
}
