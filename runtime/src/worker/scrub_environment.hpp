// Takes a secret out of this process's environment for good. unsetenv only
// drops the variable from environ: its bytes stay in the environment block
// set up at exec, which /proc/PID/environ shows to whoever may read it (the
// same user, root). Used by fiber::init for the run's client secret
// (FIBER_CLIENT_KEY), once the worker has read it.
#pragma once

namespace fiber::worker {

/// Overwrites with zero bytes, in place, the value of each "name=value" entry
/// environ points to (at startup: the environment block /proc/PID/environ
/// shows), then unsets name, so that children do not inherit it either.
/// Not thread-safe, like setenv: call before other threads read the
/// environment.
void ScrubEnvironment(const char* name);

}  // namespace fiber::worker
