// Roles a backend gives a copy of the user's program besides worker and
// master (the local engine's fork server): fiber::init hands every process
// here first, so the API names no engine's helpers.
#pragma once

#include "os/environment.hpp"

namespace fiber::backend {

/// Serves the helper role env names, if any, and then exits. Returns when
/// env names none, or in a worker such a role forked, with that worker's
/// environment in place.
void RunHelperRole(const os::Getenv& env);

}  // namespace fiber::backend
