// Errors a fiber program can catch: every failure the runtime reports is one
// of these, so a caller can tell a task's own exception from a lost worker.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace fiber {

/// Base of every error fiber throws.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A task threw. what() is "<original type>: <original message>"; the worker
/// survived and the task was not retried.
class RemoteError : public Error {
 public:
  RemoteError(std::string type, std::string message)
      : Error(type + ": " + message), type_(std::move(type)), message_(std::move(message)) {}
  const std::string& type() const { return type_; }
  const std::string& message() const { return message_; }

 private:
  std::string type_;
  std::string message_;
};

/// A task's worker died (or stopped answering) more often than the pool's
/// retry limit allows.
class WorkerLost : public Error {
 public:
  using Error::Error;
};

/// AsyncResult::get(timeout) or an iterator's next(timeout) ran out of time.
class TimeoutError : public Error {
 public:
  using Error::Error;
};

/// A function was used as a task without FIBER_TASK(fn), or a worker does not
/// know the task name it was sent.
class NotRegistered : public Error {
 public:
  using Error::Error;
};

/// The pool was closed or terminated before the call, or terminated before the
/// task finished.
class PoolClosed : public Error {
 public:
  using Error::Error;
};

/// Settings, environment or options that cannot be used; names the culprit.
class ConfigError : public Error {
 public:
  using Error::Error;
};

/// A Queue or Pipe connection that was closed: put or send after close(),
/// get or recv once it is closed and empty.
class Closed : public Error {
 public:
  using Error::Error;
};

/// A shared dict (Manager::dict) has no such key.
class KeyError : public Error {
 public:
  using Error::Error;
};

}  // namespace fiber
