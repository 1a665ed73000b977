// fiber::share and fiber::Shared<T>: one value broadcast by reference to
// every process of the run (a learner's weights to its actors, a data set
// to a pool's tasks). share(value) serializes it once into the run's
// master; the handle it gives is small and travels like a queue handle, as
// a task's, a Process's or a manager call's argument or a queue item.
// get() returns the value, loaded once per process and kept by its id: a
// worker on the master's machine reads the master's one shared-memory copy
// (a sealed memfd, mapped read-only), any other fetches the bytes from the
// master once. The value never changes; a new version is a new share.
//
// The master holds the value while a handle to it lives in any process of
// the run, or is on its way to one (a handle sent but never received, as in
// a queue item nobody took, keeps it until the run ends); then it is freed.
// A process also keeps the last few values it loaded, so a worker running
// task after task with the same handle loads it once.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <typeinfo>

#include "fiber/errors.hpp"
#include "fiber/serialize.hpp"

namespace fiber::detail {

/// What a handle carries to another process: the value's id in its run's
/// master, where a process on the master's machine finds its bytes, and a
/// token the receiving process hands back to the master.
struct SharedRef {
  std::string run_id;
  std::uint64_t id = 0;
  std::uint64_t size = 0;    // bytes of the serialized value
  std::uint64_t pid = 0;     // the master's process, its memfd there,
  std::uint64_t fd = 0;      // and the key in the memfd's name
  std::uint64_t key = 0;
  std::uint64_t token = 0;   // this copy's, while on its way
  template <class Archive>
  void serialize(Archive& ar) {
    ar(run_id, id, size, pid, fd, key, token);
  }
};

/// One shared value as this process knows it: held in the master as long
/// as this lives (api/shared.cpp). Thread-safe.
class SharedEntry;

/// Decodes bytes into a T on the heap.
using SharedDecode = std::shared_ptr<const void> (*)(std::string_view bytes);

/// A new shared value of bytes in the run's master; value (may be null) is
/// this process's copy of it, so that it loads nothing.
std::shared_ptr<SharedEntry> shared_new(std::string bytes, std::shared_ptr<const void> value,
                                        const std::type_info& type);
/// A handle that came from another process.
std::shared_ptr<SharedEntry> shared_received(const SharedRef& ref);
/// A handle's copy on its way to another process (a new token).
SharedRef shared_sent(SharedEntry& entry);
/// The value, loaded and decoded on first use in this process.
const void* shared_value(SharedEntry& entry, const std::type_info& type, SharedDecode decode);
std::uint64_t shared_id(const SharedEntry& entry);

/// How many times this process loaded a shared value's bytes: read from
/// the master's shared memory, or fetched from the master (for tests).
struct SharedLoads {
  std::uint64_t mapped = 0, fetched = 0;
};
SharedLoads shared_loads();

}  // namespace fiber::detail

namespace fiber {

template <class T>
class Shared {
 public:
  /// An empty handle: get() throws.
  Shared() = default;

  /// The value. Throws fiber::Error on an empty (moved-from) handle, or when
  /// the value cannot be loaded.
  const T& get() const {
    if (!entry_) throw Error("Shared::get: this handle is empty (made empty, or moved from)");
    return *static_cast<const T*>(detail::shared_value(*entry_, typeid(T), &Decode));
  }
  /// False for an empty handle.
  explicit operator bool() const { return entry_ != nullptr; }
  /// The value's id within its run: a new share, a new id.
  std::uint64_t id() const { return entry_ ? detail::shared_id(*entry_) : 0; }

  /// An empty handle travels as an empty one.
  template <class Archive>
  void save(Archive& ar) const {
    ar(entry_ ? detail::shared_sent(*entry_) : detail::SharedRef{});
  }
  template <class Archive>
  void load(Archive& ar) {
    detail::SharedRef ref;
    ar(ref);
    entry_ = ref.id == 0 ? nullptr : detail::shared_received(ref);
  }

 private:
  template <class U>
  friend Shared<U> share(const U& value);
  explicit Shared(std::shared_ptr<detail::SharedEntry> entry) : entry_(std::move(entry)) {}

  static std::shared_ptr<const void> Decode(std::string_view bytes) {
    try {
      return std::make_shared<const T>(detail::from_bytes<T>(bytes));
    } catch (const cereal::Exception& e) {
      throw Error(std::string("Shared::get: the shared value does not decode as the handle's type (") +
                  e.what() + ")");
    }
  }

  std::shared_ptr<detail::SharedEntry> entry_;
};

/// Puts a copy of value in the run's master, for every process of the run
/// to read by reference. Throws fiber::Error when the master cannot take it
/// (the run has ended, or a worker is over what it may make the master hold).
template <class T>
Shared<T> share(const T& value) {
  return Shared<T>(detail::shared_new(detail::to_bytes(value), std::make_shared<const T>(value),
                                      typeid(T)));
}

}  // namespace fiber
