#include "worker/registered_names.hpp"

namespace fiber::detail {

namespace {

std::string_view Basename(std::string_view path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string WireName(std::string_view name, std::string_view file, int line) {
  return std::string(name) + "@" + std::string(file) + ":" + std::to_string(line);
}

}  // namespace

std::size_t RegisteredNames::Add(std::string_view name, std::string_view file, int line) {
  for (std::size_t i = 0; i < entries_.size(); ++i)
    if (entries_[i].name == name && entries_[i].file == file && entries_[i].line == line) return i;
  const std::size_t index = entries_.size();
  entries_.push_back({std::string(name), std::string(file), line, {}});
  std::string wire = WireName(name, Basename(file), line);
  auto same = by_wire_.find(wire);
  if (same != by_wire_.end()) {
    const Entry& other = entries_[same->second];
    Rename(same->second, WireName(other.name, other.file, other.line));
    wire = WireName(name, file, line);
  }
  Rename(index, std::move(wire));
  return index;
}

bool RegisteredNames::Find(std::string_view wire, std::size_t* index) const {
  auto it = by_wire_.find(std::string(wire));
  if (it == by_wire_.end()) return false;
  *index = it->second;
  return true;
}

void RegisteredNames::Rename(std::size_t index, std::string wire) {
  Entry& entry = entries_[index];
  if (!entry.wire.empty()) by_wire_.erase(entry.wire);
  entry.wire = std::move(wire);
  by_wire_[entry.wire] = index;
}

std::string_view RegisteredAs(std::string_view wire) { return wire.substr(0, wire.find('@')); }

}  // namespace fiber::detail
