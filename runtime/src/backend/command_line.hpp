// The arguments this process was started with, recorded by fiber::init: a
// worker is the same program with the same arguments, started again by a
// backend (here as /proc/self/exe, in a container as the same path in the
// image), so it shows up in ps like its master. Thread-safe.
#pragma once

#include <string>
#include <vector>

namespace fiber::backend {

void SetCommandLine(int argc, char** argv);
/// The recorded arguments; {"fiber-worker"} before fiber::init.
std::vector<std::string> CommandLine();
/// The same with this executable's absolute path first (/proc/self/exe):
/// where an image built from it holds the program.
std::vector<std::string> CommandLineAtOwnPath();

}  // namespace fiber::backend
