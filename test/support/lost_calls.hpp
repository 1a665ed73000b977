// What a caller of a manager that died sees: how many of its calls, made
// one after the other, failed with fiber::WorkerLost (manager_test,
// programs/manager_hosts).
#pragma once

#include <fiber/fiber.hpp>

#include <functional>
#include <initializer_list>

namespace fiber::testing {

inline int LostCalls(std::initializer_list<std::function<void()>> calls) {
  int lost = 0;
  for (const auto& call : calls) {
    try {
      call();
    } catch (const fiber::WorkerLost&) {
      ++lost;
    }
  }
  return lost;
}

}  // namespace fiber::testing
