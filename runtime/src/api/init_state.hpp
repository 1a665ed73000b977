// Whether fiber::init ran in this process: a Pool refuses to start workers
// before it, since a worker that skips init would run the master's main.
#pragma once

#include <string>

namespace fiber::detail {
bool initialized();
/// Throws what making `what` ("a Pool", "a Manager", "a Process") here
/// must: fiber::Error in a worker (it would start a second master with a run
/// of its own), ConfigError before fiber::init.
void RequireMaster(const std::string& what);
}
