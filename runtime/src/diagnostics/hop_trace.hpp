// Timestamps of a task's hops, from the caller's thread to a worker and
// back, for bench/apply_stages ("Where the time goes" in bench/README.md).
// Compiled in only by -Dhop_trace=true (a build of its own); in every
// other build FIBER_HOP is nothing. With it, each process keeps its marks
// in memory and writes them at exit to $FIBER_HOP_TRACE_DIR/PID.hops, one
// "NANOSECONDS NAME" a line (CLOCK_MONOTONIC, which every process of the
// machine shares). Thread-safe.
#pragma once

#ifdef FIBER_HOP_TRACE
namespace fiber::diagnostics {
/// Marks hop name (a string literal) now.
void Hop(const char* name);
}  // namespace fiber::diagnostics
#define FIBER_HOP(name) ::fiber::diagnostics::Hop(name)
#else
#define FIBER_HOP(name) ((void)0)
#endif
