// Where one pool is in its life: open, closing (it drains, then its workers
// stop), terminating, or broken (it can run nothing more, and why). Changed
// by its service only; read by its dealing and its crew.
#pragma once

#include <optional>

#include "fiber/detail/batch.hpp"

namespace fiber::master {

struct PoolPhase {
  bool closing = false;
  bool terminating = false;
  std::optional<detail::Outcome> broken;  // why the pool can run nothing more
  /// Tasks may still run: neither terminating nor broken.
  bool running() const { return !terminating && !broken; }
};

}  // namespace fiber::master
