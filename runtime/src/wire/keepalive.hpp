// ZeroMQ's own heartbeats (ZMTP PING/PONG), answered by libzmq's I/O
// threads, so a process busy with a long task still answers while a stopped
// or vanished one's connection closes. The master PINGs each worker every
// heartbeat interval and asks it (the TTL) to drop the connection after a
// heartbeat timeout without a word. A worker PINGs only once per heartbeat
// timeout, for the one case the TTL misses (a master that stops before its
// first PING): each PING is a wake-up of a process, and with thousands of
// workers those cost the machine more than the master's.
#pragma once

#include <chrono>
#include <zmq.hpp>

namespace fiber::wire {

/// The master's side: PINGs every interval, with the timeout as their TTL.
void KeepAliveMaster(zmq::socket_t& socket, std::chrono::milliseconds interval,
                     std::chrono::milliseconds timeout);
/// A worker's side: one PING per timeout, the connection closed when
/// nothing came back within another.
void KeepAliveWorker(zmq::socket_t& socket, std::chrono::milliseconds timeout);

}  // namespace fiber::wire
