// How many descriptors the master may hold open. Every connection to the
// run's port costs one, admitted or not, so a shared machine's default soft
// limit (1024, on some 256) would let a few hundred idle connections starve
// the run's pools of descriptors.
#pragma once

#include <cstddef>

namespace fiber::master {

/// Raises this process's soft RLIMIT_NOFILE to its hard limit (as the run's
/// master starts); where the kernel refuses, the limit stays as it was.
void RaiseDescriptorLimit();

/// The soft RLIMIT_NOFILE in force.
std::size_t DescriptorLimit();

}  // namespace fiber::master
