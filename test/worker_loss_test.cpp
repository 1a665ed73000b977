// What an exit the backend reports means for the pool whose worker it was,
// case by case: an exit and the pool's record of its worker in, a meaning
// and the loss it is out, with no crew, backend or clock.
#include "master/worker_loss.hpp"

#include <doctest/doctest.h>

using fiber::ExitStatus;
using fiber::backend::Exit;
using fiber::master::ExitMeaning;
using fiber::master::MeaningOf;
using fiber::master::Worker;
namespace word = fiber::backend::end_word;

namespace {

// Worker w0's exit with status.
Exit ExitWith(ExitStatus status) { return Exit{"w0", fiber::backend::EndedWith(status), status}; }
Worker Connected() {
  Worker w;
  w.connected = true;
  return w;
}

}  // namespace

TEST_CASE("an exit means, in turn: retired as asked, the backend cannot start workers, the worker cannot "
          "start, lost, or settled after a connection loss") {
  const Exit crashed = ExitWith(ExitStatus::Killed(11));
  const Exit loader = ExitWith(ExitStatus::Exited(127));
  Exit not_made = ExitWith(ExitStatus::Exited(1));
  not_made.not_started = true;
  Worker stopped = Connected();
  stopped.stop_sent = fiber::master::Clock::time_point{};
  const Worker connected = Connected(), starting;

  // Asked to stop with no task left, whatever its end says.
  CHECK(MeaningOf(crashed, &stopped, false, false) == ExitMeaning::kRetired);
  CHECK(MeaningOf(not_made, &stopped, false, false) == ExitMeaning::kRetired);
  CHECK(MeaningOf(crashed, &stopped, true, false) == ExitMeaning::kLost);  // with tasks it held
  // The backend could not make it: nor can it any other.
  CHECK(MeaningOf(not_made, &starting, false, false) == ExitMeaning::kBackendCannotStart);
  CHECK(MeaningOf(not_made, &connected, true, false) == ExitMeaning::kBackendCannotStart);
  // Its process could not start (126, 127) before it connected.
  CHECK(MeaningOf(loader, &starting, false, false) == ExitMeaning::kCannotStart);
  CHECK(MeaningOf(ExitWith(ExitStatus::Exited(126)), &starting, false, false) == ExitMeaning::kCannotStart);
  CHECK(MeaningOf(loader, &connected, false, false) == ExitMeaning::kLost);  // the program's own 127
  CHECK(MeaningOf(crashed, &starting, false, false) == ExitMeaning::kLost);
  CHECK(MeaningOf(crashed, &connected, true, false) == ExitMeaning::kLost);
  // A pool terminating breaks on no failed start.
  CHECK(MeaningOf(not_made, &starting, false, true) == ExitMeaning::kLost);
  CHECK(MeaningOf(loader, &starting, false, true) == ExitMeaning::kLost);
  // A worker no longer the pool's: lost with its connection, its end told now.
  CHECK(MeaningOf(crashed, nullptr, false, false) == ExitMeaning::kSettled);
  CHECK(MeaningOf(not_made, nullptr, false, true) == ExitMeaning::kSettled);
}

TEST_CASE("the loss an exit is: the cause its engine gave, or why no worker can start") {
  using fiber::master::LossOf;
  Exit not_made = ExitWith(ExitStatus::Exited(1));
  not_made.cause = fiber::backend::Because(word::kUnknown, "no such image");
  const auto backend = LossOf(not_made, ExitMeaning::kBackendCannotStart, "scripted", "");
  CHECK(backend.id == "w0");
  CHECK(backend.cause == not_made.cause);
  CHECK(backend.cannot_start == "the scripted backend cannot start workers: no such image");
  const auto loader = LossOf(ExitWith(ExitStatus::Exited(127)), ExitMeaning::kCannotStart, "scripted", "");
  CHECK(loader.cause == fiber::backend::Because(word::kCannotStart, "exit status 127"));
  CHECK(loader.cannot_start == "worker w0 could not start: exit status 127");
  const auto lost = LossOf(ExitWith(ExitStatus::Killed(11)), ExitMeaning::kLost, "scripted", "");
  CHECK(lost.cause == fiber::backend::Because(word::kSignal, "killed by SIGSEGV"));
  CHECK_FALSE(lost.cannot_start);
}
