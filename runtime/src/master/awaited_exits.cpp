#include "master/awaited_exits.hpp"

namespace fiber::master {

std::vector<std::string> AwaitedExits::GiveUp(Clock::time_point now) {
  std::vector<std::string> given_up;
  std::erase_if(since_, [&](const auto& awaited) {
    if (now - awaited.second <= longest_) return false;
    given_up.push_back(awaited.first);
    return true;
  });
  return given_up;
}

}  // namespace fiber::master
