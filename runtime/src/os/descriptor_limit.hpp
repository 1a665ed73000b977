// How many descriptors and memory mappings a process that listens for the
// run (its master, a manager's own endpoint) may hold. Every connection to
// its port costs a descriptor, admitted or not, so a shared machine's
// default soft limit (1024, on some 256) would let a few hundred idle
// connections starve it of descriptors (wire/admission.hpp bounds them by
// it); a worker's shared values cost the master one each, and its item
// files a mapping each (master/peer_budget.hpp keeps workers to a quarter
// of each).
#pragma once

#include <cstddef>

namespace fiber::os {

/// Raises this process's soft RLIMIT_NOFILE to its hard limit (as the run's
/// master starts, as a manager opens its endpoint); where the kernel refuses, the limit stays as it was.
void RaiseDescriptorLimit();

/// The soft RLIMIT_NOFILE in force.
std::size_t DescriptorLimit();

/// The mappings a process may hold (vm.max_map_count).
std::size_t MappingLimit();

}  // namespace fiber::os
