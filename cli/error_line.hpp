// How a command of fiber says what went wrong: one line on stderr,
// "fiber: error: ...", the form scripts and users read from every command.
#pragma once

#include <string>

namespace fiber::cli {

/// One line on stderr, "fiber: error: ...".
void Error(const std::string& message);

}  // namespace fiber::cli
