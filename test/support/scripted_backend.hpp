// A backend whose workers are played by the test: it records every launch
// (so a test can connect as that worker, or not), reports a worker it was
// told to kill as ended, and lets the test end one as a crash would.
// Thread-safe: the master drives it from its I/O thread, the test reads it.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backend/backend.hpp"

namespace fiber::testing {

class ScriptedBackend : public backend::Backend {
 public:
  struct State {
    std::mutex mu;
    std::vector<backend::Launch> launches;
    std::vector<std::string> killed;
    std::vector<backend::Exit> exits;  // reported by the next Poll
    bool fail_starts = false;          // Start fails from now on
    std::string poll_throws;           // Poll throws std::runtime_error(this), when set
    bool kills_untold = false;         // Kill reports no end: the test tells (Crash, Exit)
  };
  explicit ScriptedBackend(std::shared_ptr<State> state) : state_(std::move(state)) {}
  const char* name() const override { return "scripted"; }
  bool Start(const backend::Launch& launch, std::string* err) override;
  void Kill(const std::string& id) override;
  std::vector<backend::Exit> Poll() override;
  void KillAll() override {}

  /// Ends worker id as a crash would (reported by the next Poll), with
  /// how and status as a backend reports them (backend::Exit).
  static void Crash(State& state, const std::string& id, const std::string& how,
                    int status = -9);
  /// Ends worker id as its engine tells it (reported by the next Poll).
  static void Exit(State& state, backend::Exit exit);
  /// The n-th launch, waiting (bounded) until the master asked for it.
  static backend::Launch WaitForLaunch(State& state, std::size_t n);

 private:
  std::shared_ptr<State> state_;
};

/// The ids of the workers exits are of, sorted.
std::vector<std::string> IdsOf(const std::vector<backend::Exit>& exits);

}  // namespace fiber::testing
