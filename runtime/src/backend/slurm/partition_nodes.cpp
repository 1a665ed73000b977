#include "backend/slurm/partition_nodes.hpp"

#include <sstream>

#include "backend/master_reach.hpp"
#include "backend/slurm/slurm_command.hpp"

namespace fiber::backend {

std::vector<SlurmNode> ParsePartitionNodes(const std::string& text, const std::string& partition) {
  std::vector<SlurmNode> nodes;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> f;
    std::istringstream fields(line);
    for (std::string field; std::getline(fields, field, '|');) f.push_back(field);
    if (f.size() != 4 || f[1].empty()) continue;
    // sinfo marks the default partition with a '*'.
    const bool is_default = !f[0].empty() && f[0].back() == '*';
    if (is_default) f[0].pop_back();
    if (partition.empty() ? !is_default : f[0] != partition) continue;
    nodes.push_back({f[1], f[2], f[3]});
  }
  return nodes;
}

bool ListPartitionNodes(const std::string& partition, std::vector<SlurmNode>* nodes, std::string* err) {
  std::vector<std::string> argv = {"sinfo", "--noheader", "--Node", std::string("--format=") + kSinfoNodeFormat};
  if (!partition.empty()) argv.push_back("--partition=" + partition);
  std::string out;
  if (!RunSlurm(argv, "", &out, err, {}, {})) return false;  // not tried again: optional
  *nodes = ParsePartitionNodes(out, partition);
  return true;
}

bool IsThisMachine(const SlurmNode& node, const std::string& this_host) {
  if (ThisMachineOnly(node.address)) return true;
  const std::string short_host = this_host.substr(0, this_host.find('.'));
  for (const std::string& n : {node.name, node.hostname, node.address})
    if (!n.empty() && (n == this_host || n == short_host)) return true;
  return false;
}

}  // namespace fiber::backend
