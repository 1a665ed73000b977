// The terms of a run's shared objects that cross processes: which object a
// handle names (RunObjectRef) and what the master makes for a new one
// (RunObjectSpec); the wire's requests carry them, so they stand apart
// from the handles that hold them (fiber/detail/run_object.hpp).
#pragma once

#include <cstdint>
#include <string>

namespace fiber::detail {

/// Which object of which run: what a handle carries to other processes.
struct RunObjectRef {
  std::string run_id;
  std::uint64_t id = 0;
  std::uint64_t maxsize = 0;  // a queue's (0: unbounded, its puts pipelined)
  template <class Archive>
  void serialize(Archive& ar) {
    ar(run_id, id, maxsize);
  }
};

/// A semaphore as the master makes it: the permits it starts with, the most
/// it may hold (kNoBound: no bound), and whether only a holder may release
/// (a Lock).
struct SemaphoreSpec {
  static constexpr std::uint32_t kNoBound = 0xFFFFFFFF;
  std::uint32_t value = 1;
  std::uint32_t bound = kNoBound;
  bool owned = false;
};

/// What the master makes for a new handle.
struct RunObjectSpec {
  enum class Kind : std::uint8_t { kQueue, kSemaphore, kEvent };
  Kind kind = Kind::kQueue;
  SemaphoreSpec semaphore;    // for kSemaphore
  std::uint64_t maxsize = 0;  // for kQueue (0: unbounded)
};

}  // namespace fiber::detail
