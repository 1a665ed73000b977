// A backend starts, stops and observes workers. It never carries task data:
// it hands a worker the few settings it needs (as environment variables) and
// reports how it ended.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace fiber::backend {

/// What a backend needs to start one worker.
struct Launch {
  std::string worker_id;
  /// FIBER_* variables that make fiber::init serve; FIBER_CLIENT_KEY among
  /// them is a secret and must not be shown.
  std::map<std::string, std::string> env;
};

/// A worker the backend saw end.
struct Exit {
  std::string worker_id;
  std::string how;  // "exit status 3", "killed by signal 9"
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual const char* name() const = 0;
  /// Starts a worker; false with *err when it could not be started at all.
  virtual bool Start(const Launch& launch, std::string* err) = 0;
  /// Ends a worker now (e.g. SIGKILL); its exit is still reported by Poll.
  virtual void Kill(const std::string& worker_id) = 0;
  /// Workers that ended since the last call; never blocks.
  virtual std::vector<Exit> Poll() = 0;
  /// Kills every remaining worker and waits until they are gone.
  virtual void KillAll() = 0;
};

/// The backend called name ("local"); nullptr with *err for an unknown one.
std::unique_ptr<Backend> Make(const std::string& name, std::string* err);

}  // namespace fiber::backend
