// A file descriptor with one owner, closed when that owner goes: the one
// descriptor type of the runtime (cppzmq's shape: move-only, no hidden
// work), and WriteAll, the one writer of a whole buffer to a descriptor.
// A Descriptor is not thread-safe; share the number (get()), not the object.
#pragma once

#include <string_view>
#include <utility>

namespace fiber::os {

class Descriptor {
 public:
  Descriptor() = default;
  /// Owns fd (closed with this); -1 owns nothing.
  explicit Descriptor(int fd) : fd_(fd) {}
  Descriptor(Descriptor&& other) noexcept : fd_(other.Release()) {}
  Descriptor& operator=(Descriptor&& other) noexcept {
    if (this != &other) Reset(other.Release());
    return *this;
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() { Reset(); }

  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  /// Gives up ownership: the caller closes what this returns.
  int Release() { return std::exchange(fd_, -1); }
  /// Closes what it owned, and owns fd instead.
  void Reset(int fd = -1);
  /// Closes it now, for a caller that must know it closed (a file written
  /// through it: a full disk can show only here); false with errno set.
  [[nodiscard]] bool Close();

 private:
  int fd_ = -1;
};

/// Writes all of data to fd, across short writes and signals; false (errno
/// set) when fd fails first (a closed pipe, a full disk): a caller that
/// writes to stderr or a log may lose the text and go on.
bool WriteAll(int fd, std::string_view data);

}  // namespace fiber::os
