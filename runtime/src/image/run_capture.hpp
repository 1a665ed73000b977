// Runs a helper program to its end and keeps what it wrote: the dynamic
// loader listing a program's libraries, a credential helper giving a
// registry's password. No shell; the environment is this process's.
#pragma once

#include <string>
#include <vector>

namespace fiber::image {

/// Runs argv (argv[0] searched on PATH when it has no '/') with input on its
/// stdin; *output gets its stdout, and its stderr too when merge_stderr
/// (else stderr is dropped). *status: its exit status, or 128 + signal.
/// False with *err only when it could not be started.
[[nodiscard]] bool RunCapture(const std::vector<std::string>& argv, const std::string& input,
                              bool merge_stderr, std::string* output, int* status, std::string* err);

}  // namespace fiber::image
