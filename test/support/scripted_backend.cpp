#include "support/scripted_backend.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <utility>

namespace fiber::testing {

bool ScriptedBackend::Start(const backend::Launch& launch, std::string* err) {
  std::lock_guard<std::mutex> lock(state_->mu);
  if (state_->fail_starts) {
    *err = "scripted failure";
    return false;
  }
  state_->launches.push_back(launch);
  return true;
}

void ScriptedBackend::Kill(const std::string& id) {
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->killed.push_back(id);
  if (!state_->kills_untold) state_->exits.push_back({id, backend::EndedWith(ExitStatus::Killed(9)), ExitStatus::Killed(9)});
}

std::vector<backend::Exit> ScriptedBackend::Poll() {
  std::lock_guard<std::mutex> lock(state_->mu);
  // As an engine answer the backend did not foresee would.
  if (!state_->poll_throws.empty()) throw std::runtime_error(state_->poll_throws);
  return std::exchange(state_->exits, {});
}

void ScriptedBackend::Crash(State& state, const std::string& id, const std::string& how,
                            int status) {
  backend::EndCause cause = backend::EndedWith(ExitStatus::FromSigned(status));
  cause.text = how;
  Exit(state, {id, std::move(cause), ExitStatus::FromSigned(status)});
}

void ScriptedBackend::Exit(State& state, backend::Exit exit) {
  std::lock_guard<std::mutex> lock(state.mu);
  state.exits.push_back(std::move(exit));
}

backend::Launch ScriptedBackend::WaitForLaunch(State& state, std::size_t n) {
  for (int i = 0; i < 600; ++i) {
    {
      std::lock_guard<std::mutex> lock(state.mu);
      if (state.launches.size() > n) return state.launches[n];
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  FAIL("the master did not start worker " << n << " within 30 s");
  return {};
}

std::vector<std::string> IdsOf(const std::vector<backend::Exit>& exits) {
  std::vector<std::string> ids;
  for (const backend::Exit& e : exits) ids.push_back(e.worker_id);
  std::sort(ids.begin(), ids.end());
  return ids;
}

}  // namespace fiber::testing
