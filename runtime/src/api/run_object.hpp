// Asking the run's master about one of its shared objects (a queue, a lock,
// a semaphore, an event) from whichever process holds the handle.
#pragma once

#include <string>

#include "fiber/detail/run_object.hpp"
#include "wire/request.hpp"

namespace fiber::client {
class RunClient;
}

namespace fiber::detail {

/// This process's client, checking that object is of its run (else throws
/// Error, prefixed with where).
client::RunClient& client_for(const RunObjectRef& object, const char* where);
/// A request of op about object.
wire::Request request_for(const RunObjectRef& object, wire::Op op, std::string body,
                          const Timeout& timeout);
/// reply when it is kOk, kTimeout or kClosed; else throws Error, prefixed
/// with where.
wire::Reply checked(wire::Reply reply, const char* where);

/// Sends op about object to the master and waits for the answer. Returns
/// a reply that is kOk, kTimeout or kClosed (each caller says what those
/// mean); throws Error, prefixed with where, for any other, and for a
/// handle of another run.
wire::Reply ask_master(const RunObjectRef& object, wire::Op op, std::string body,
                       const Timeout& timeout, const char* where);

}  // namespace fiber::detail
