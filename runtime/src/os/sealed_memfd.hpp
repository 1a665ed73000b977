// Bytes written once into a memfd, then sealed and mapped read-only: one
// copy in memory that every process of the machine may read through
// /proc/PID/fd/FD but none may change (the run's shared values,
// api/shared.cpp and master/share_table.hpp). Move-only; not thread-safe
// to move, safe to read from many threads.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "os/descriptor.hpp"

namespace fiber::os {

class SealedMemfd {
 public:
  SealedMemfd() = default;
  SealedMemfd(SealedMemfd&& other) noexcept { *this = std::move(other); }
  SealedMemfd& operator=(SealedMemfd&& other) noexcept;
  SealedMemfd(const SealedMemfd&) = delete;
  SealedMemfd& operator=(const SealedMemfd&) = delete;
  ~SealedMemfd();

  /// A new memfd called name holding bytes, sealed against any change;
  /// false with *err.
  [[nodiscard]] static bool Make(const std::string& name, std::string_view bytes, SealedMemfd* out,
                                 std::string* err);
  /// Process pid's descriptor fd, when it is a memfd called name holding
  /// size bytes, sealed: false with *why otherwise (a process of another
  /// machine, or of another PID namespace, as in a container).
  [[nodiscard]] static bool OpenOf(std::uint64_t pid, std::uint64_t fd, const std::string& name,
                                   std::uint64_t size, SealedMemfd* out, std::string* why);

  std::string_view bytes() const { return {static_cast<const char*>(map_), size_}; }
  int fd() const { return fd_.get(); }

 private:
  /// Maps fd_ read-only; false with *err.
  bool Map(std::size_t size, std::string* err);

  Descriptor fd_;
  void* map_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace fiber::os
