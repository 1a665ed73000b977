// Runs a helper program to its end and keeps what it wrote: the dynamic
// loader listing a program's libraries, a credential helper giving a
// registry's password, a Kubernetes exec credential plugin giving a token.
// No shell. Thread-safe (posix_spawn; nothing shared): SIGPIPE is blocked
// on the calling thread alone while it runs, never ignored process-wide.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace fiber {

/// What to run and how.
struct Capture {
  /// argv[0] is searched on PATH when it has no '/'.
  std::vector<std::string> argv;
  /// Written to its stdin as it reads it, which is then closed; one that
  /// stops reading early only ends the writing.
  std::string input;
  /// "NAME=value" entries set on top of this process's environment.
  std::vector<std::string> env;
  /// Its stderr goes into Captured::output too; else into Captured::errors.
  bool merge_stderr = false;
  /// More than 0: it is killed (SIGKILL) once it has run this long.
  long timeout_ms = 0;
  /// Asked of its stderr so far as it comes: true kills it (SIGKILL), as
  /// for a command that said it will wait on its own (sbatch's "sleeping
  /// and retrying"). Unset: never.
  std::function<bool(const std::string& errors)> give_up;
};

struct Captured {
  std::string output;
  std::string errors;
  /// Its exit status, or 128 + signal.
  int status = 0;
  bool timed_out = false;
  /// Killed because Capture::give_up said so.
  bool gave_up = false;
  /// When it could not be started: the errno (ENOENT: no such program).
  int start_errno = 0;
};

/// The last line of what a helper said that is not blank: where a failing
/// command names the cause.
std::string LastLine(std::string text);

/// Runs it to its end (or its timeout). False with *err only when it could
/// not be started.
[[nodiscard]] bool RunCapture(const Capture& what, Captured* result, std::string* err);

}  // namespace fiber
