// The names FIBER_TASK and FIBER_CLASS give what they register, as the
// master sends them and a worker or manager looks them up: the function or
// class as written, then where: "work@a.cpp:12". Two file-local functions of
// one name (a static `work` in each of two files) so never stand for each
// other. The master and its workers are the same executable, so they agree
// on every name. Not thread-safe; its owner locks.
#pragma once

#include <cstddef>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>

namespace fiber::detail {

class RegisteredNames {
 public:
  /// Adds a registration of name (as written) at file:line; returns its
  /// index, from 0 in order. The same name, file and line again is the same
  /// source compiled into several files (a header), so it gets the index it
  /// had. Two files of one base name ("a/sim.cpp", "b/sim.cpp") registering
  /// one name on one line are told apart by their whole paths.
  std::size_t Add(std::string_view name, std::string_view file, int line);
  /// The name on the wire of the registration at index.
  const std::string& Name(std::size_t index) const { return entries_.at(index).wire; }
  /// The index of the registration called wire; false when there is none.
  [[nodiscard]] bool Find(std::string_view wire, std::size_t* index) const;

 private:
  struct Entry {
    std::string name, file;
    int line = 0;
    std::string wire;
  };
  void Rename(std::size_t index, std::string wire);

  std::deque<Entry> entries_;  // deque: Name's references stay valid
  std::unordered_map<std::string, std::size_t> by_wire_;
};

/// The function or class part of a wire name, for messages: "work" of
/// "work@a.cpp:12".
std::string_view RegisteredAs(std::string_view wire);

}  // namespace fiber::detail
