// ZeroMQ's own heartbeats (ZMTP PING/PONG), set alike on the master's and a
// worker's socket. libzmq's I/O thread answers them, so a process busy with
// a long task still answers; a stopped or vanished one does not, and its
// connection closes once the run's heartbeat timeout passes. PINGs go every
// heartbeat interval: each costs each of thousands of workers a wake-up.
#pragma once

#include <chrono>
#include <zmq.hpp>

namespace fiber::wire {

/// Sets PING interval, timeout and (for the master) the TTL it asks of peers.
void KeepAlive(zmq::socket_t& socket, std::chrono::milliseconds interval,
               std::chrono::milliseconds timeout, bool with_ttl);

}  // namespace fiber::wire
