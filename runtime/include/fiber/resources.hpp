// What a worker asks its backend for: CPUs, memory and GPUs. Given on a Pool
// (PoolOptions.resources, for each of its workers), a Process or a Manager;
// a field left 0 takes the run's setting (cpu, memory, gpu in fiber.yaml or
// FIBER_CPU, FIBER_MEMORY, FIBER_GPU), and 0 there means the backend's
// default. The local backend limits memory (the worker's address space,
// RLIMIT_AS) and applies neither cpu nor gpu; container and pod backends
// turn all three into limits and requests.
#pragma once

#include <cstdint>

namespace fiber {

struct Resources {
  double cpu = 0;              // CPUs, e.g. 0.5 or 2
  std::int64_t memory_mb = 0;  // MiB
  int gpu = 0;
};

}  // namespace fiber
