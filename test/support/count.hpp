// How many times a piece of text occurs in another: for tests of what a
// log or an output says, and how often.
#pragma once

#include <cstddef>
#include <string>

namespace fiber::testing {

inline std::size_t Count(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

}  // namespace fiber::testing
