// 0, 1, ..., n-1: the items of a map in the pool tests.
#pragma once

#include <numeric>
#include <vector>

inline std::vector<int> range(int n) {
  std::vector<int> v(static_cast<std::size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  return v;
}
