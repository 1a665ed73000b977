// Warnings for FIBER_* environment variables that are no variable of
// fiber's but look like a misspelt setting ("FIBER_BAKCEND"), which would
// otherwise be ignored without a word. The fiber command and a program
// started on its own print them; names far from every setting (a user's own
// FIBER_SOMETHING, a test harness's) are left alone.
#pragma once

#include <string>
#include <vector>

namespace fiber::config {

/// Every FIBER_* variable fiber itself reads or sets: the settings table's,
/// FIBER_CONFIG, and the run's, a worker's and the local fork server's
/// (config/variables.hpp).
std::vector<std::string> KnownVariables();

/// One line per misspelt setting variable in env (entries "NAME=VALUE"):
/// "FIBER_BAKCEND is not a fiber setting; did you mean FIBER_BACKEND?".
std::vector<std::string> MisspeltVariables(char** env);

}  // namespace fiber::config
