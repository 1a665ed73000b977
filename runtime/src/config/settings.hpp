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
  /// The run's one port; 0 lets the system choose a free one.
  int listen_port = 0;
  std::chrono::milliseconds heartbeat_interval{500};
  /// Silence after which a worker (or, seen from a worker, the master) is
  /// taken for dead.
  std::chrono::milliseconds heartbeat_timeout{5000};
  /// How long a started worker may take to connect.
  std::chrono::milliseconds start_timeout{60000};
  /// The fewest tasks a worker holds at once (the one it runs included); a
  /// worker fed short tasks asks for more (worker/serve_loop.cpp), up to
  /// wire::kMaxCredit.
  int prefetch = 2;
  bool verbose = false;
};

// The timing variables, which a worker's bootstrap carries too.
inline constexpr const char* kHeartbeatInterval = "FIBER_HEARTBEAT_INTERVAL";
inline constexpr const char* kHeartbeatTimeout = "FIBER_HEARTBEAT_TIMEOUT";
inline constexpr const char* kStartTimeout = "FIBER_START_TIMEOUT";

using Getenv = std::function<const char*(const char*)>;

/// Applies FIBER_BACKEND, FIBER_LISTEN_HOST, FIBER_LISTEN_PORT, the timing
/// variables (seconds, may be fractional), FIBER_PREFETCH and FIBER_LOG.
/// False with *err naming the variable and its bad value.
[[nodiscard]] bool ApplyEnvironment(const Getenv& getenv, Settings* settings, std::string* err);

/// Applies the timing variables, where set, and checks the heartbeat
/// timeout is more than twice the interval; the master's settings and a
/// worker's bootstrap both read them this way.
[[nodiscard]] bool ApplyTiming(const Getenv& getenv, std::chrono::milliseconds* interval,
                               std::chrono::milliseconds* timeout,
                               std::chrono::milliseconds* start_timeout, std::string* err);
/// ms as seconds in the form the timing variables take, e.g. "0.500".
std::string FormatSeconds(std::chrono::milliseconds ms);

/// The settings of this process, resolved by fiber::init.
Settings Current();
void SetCurrent(const Settings& settings);

}  // namespace fiber::config
