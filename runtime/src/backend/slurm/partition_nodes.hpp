// The nodes a Slurm partition's jobs may run on, as sinfo lists them, and
// which of them are this machine: a master listening on a loopback address
// can serve worker jobs only when every such node is this machine (a
// one-machine Slurm), so the backend asks before it submits any.
#pragma once

#include <string>
#include <vector>

namespace fiber::backend {

struct SlurmNode {
  std::string name;      // NodeName
  std::string hostname;  // NodeHostname
  std::string address;   // NodeAddr
};

/// The nodes of partition (empty: the cluster's default partition) in the
/// output of sinfo --noheader --Node --format=kSinfoNodeFormat.
inline constexpr const char* kSinfoNodeFormat = "%P|%N|%n|%o";
std::vector<SlurmNode> ParsePartitionNodes(const std::string& text, const std::string& partition);

/// The nodes of partition, from sinfo; false with *err when sinfo fails.
[[nodiscard]] bool ListPartitionNodes(const std::string& partition, std::vector<SlurmNode>* nodes,
                                      std::string* err);

/// Whether node is the machine named this_host (gethostname): its address
/// is a loopback one, or its name, hostname or address is this_host or
/// this_host's first label.
bool IsThisMachine(const SlurmNode& node, const std::string& this_host);

}  // namespace fiber::backend
