// How many descriptors and memory mappings the master may hold. Every
// connection to the run's port costs a descriptor, admitted or not, so a
// shared machine's default soft limit (1024, on some 256) would let a few
// hundred idle connections starve the run's pools of descriptors; a
// worker's shared values cost one each, and its item files a mapping each
// (PeerBudget keeps workers to a quarter of each).
#pragma once

#include <cstddef>

namespace fiber::master {

/// Raises this process's soft RLIMIT_NOFILE to its hard limit (as the run's
/// master starts); where the kernel refuses, the limit stays as it was.
void RaiseDescriptorLimit();

/// The soft RLIMIT_NOFILE in force.
std::size_t DescriptorLimit();

/// The mappings a process may hold (vm.max_map_count).
std::size_t MappingLimit();

}  // namespace fiber::master
