#include "support/recording_outbox.hpp"

#include <algorithm>

#include <doctest/doctest.h>

#include "wire/codec.hpp"

namespace fiber::testing {

std::vector<wire::Type> RecordingOutbox::Types(const std::string& worker) const {
  std::vector<wire::Type> types;
  auto it = sent.find(worker);
  if (it == sent.end()) return types;
  for (const auto& m : it->second) {
    wire::Header h;
    std::string err;
    REQUIRE(wire::ParseHeader(m, &h, &err));
    types.push_back(h.type);
  }
  return types;
}

bool RecordingOutbox::Sent(const std::string& worker, wire::Type type) const {
  const std::vector<wire::Type> types = Types(worker);
  return std::find(types.begin(), types.end(), type) != types.end();
}

std::vector<wire::TaskView> RecordingOutbox::Tasks(const std::string& worker) const {
  std::vector<wire::TaskView> all;
  const std::vector<wire::Type> types = Types(worker);
  for (std::size_t i = 0; i < types.size(); ++i) {
    if (types[i] != wire::Type::kTask) continue;
    std::vector<wire::TaskView> tasks;
    std::string err;
    REQUIRE(wire::ReadTasks(sent.at(worker)[i], &tasks, &err));
    all.insert(all.end(), tasks.begin(), tasks.end());
  }
  return all;
}

std::vector<std::uint64_t> RecordingOutbox::TaskIds(const std::string& worker) const {
  std::vector<std::uint64_t> ids;
  for (const auto& t : Tasks(worker)) ids.push_back(t.id);
  return ids;
}

std::vector<std::uint64_t> RecordingOutbox::Revoked(const std::string& worker) const {
  std::vector<std::uint64_t> ids;
  const std::vector<wire::Type> types = Types(worker);
  for (std::size_t i = 0; i < types.size(); ++i) {
    if (types[i] != wire::Type::kRevoke) continue;
    wire::Revoke revoke;
    std::string err;
    REQUIRE(wire::Decode(sent.at(worker)[i], &revoke, &err));
    ids.insert(ids.end(), revoke.ids.begin(), revoke.ids.end());
  }
  return ids;
}

}  // namespace fiber::testing
