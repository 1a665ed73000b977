// zmq::poll that a signal does not end. A signal landing on the polling
// thread makes zmq_poll fail with EINTR, which cppzmq throws; a program
// that handles a signal of its own must not abort fiber's loops for it.
// Every poll fiber makes goes through here, but those of descriptors alone
// on a call's path (worker/serve_loop.cpp, client/manager_links.cpp), which
// call poll(2) themselves: zmq_poll would poll them twice.
#pragma once

#include <chrono>
#include <cstddef>
#include <zmq.hpp>

namespace fiber::wire {

/// Waits up to timeout (negative: without end) for an event on items; the
/// number of items with events (0 when the time is up), as zmq::poll, and
/// throws zmq::error_t as it does for other failures (the context ending).
int Poll(zmq::pollitem_t* items, std::size_t count, std::chrono::milliseconds timeout);

}  // namespace fiber::wire
