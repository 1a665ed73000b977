// Settings resolved once per process (defaults < environment) into one plain
// struct that is passed down; no other layer reads the environment, except
// the worker bootstrap reading what its backend handed it.
#pragma once

#include <chrono>
#include <functional>
#include <string>

namespace fiber::config {

struct Settings {
  std::string backend = "local";
  /// Address the master listens on and workers connect to.
  std::string listen_host = "127.0.0.1";
  std::chrono::milliseconds heartbeat_interval{500};
  /// Silence after which a worker (or, seen from a worker, the master) is
  /// taken for dead.
  std::chrono::milliseconds heartbeat_timeout{5000};
  /// How long a started worker may take to connect.
  std::chrono::milliseconds start_timeout{60000};
  /// The fewest tasks a worker holds at once (the one it runs included); a
  /// worker fed short tasks asks for more (worker/serve_loop.cpp).
  int prefetch = 2;
  bool verbose = false;
};

using Getenv = std::function<const char*(const char*)>;

/// Applies FIBER_BACKEND, FIBER_LISTEN_HOST, FIBER_HEARTBEAT_INTERVAL,
/// FIBER_HEARTBEAT_TIMEOUT, FIBER_START_TIMEOUT (seconds, may be
/// fractional), FIBER_PREFETCH and FIBER_LOG. False with *err naming the
/// variable and its bad value.
bool ApplyEnvironment(const Getenv& getenv, Settings* settings, std::string* err);

/// Applies FIBER_HEARTBEAT_INTERVAL and FIBER_HEARTBEAT_TIMEOUT, where set,
/// and checks the timeout is more than twice the interval; the master's
/// settings and a worker's bootstrap both read them this way.
bool ApplyHeartbeat(const Getenv& getenv, std::chrono::milliseconds* interval,
                    std::chrono::milliseconds* timeout, std::string* err);
/// ms as seconds in the form the FIBER_* time settings take, e.g. "0.500".
std::string FormatSeconds(std::chrono::milliseconds ms);

/// The settings of this process, resolved by fiber::init.
Settings Current();
void SetCurrent(const Settings& settings);

}  // namespace fiber::config
