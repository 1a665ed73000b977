// What a Slurm controller allows that a launcher of thousands of jobs must
// fit in: the largest job array (MaxArraySize: every array index must be
// below it), read once per backend from `scontrol show config`, and how a
// run's worker numbers are cut into arrays that fit. Plain functions but
// ReadControllerLimits, which runs scontrol. Thread-safe.
#pragma once

#include <string>
#include <vector>

namespace fiber::backend {

struct ControllerLimits {
  /// Array indexes must be below it; Slurm's default.
  long max_array_size = 1001;
};

/// The limits in `scontrol show config` output ("MaxArraySize = 50");
/// those it lacks keep their defaults.
ControllerLimits ParseControllerConfig(const std::string& text);

/// The controller's limits; false with *err (and the defaults in *out)
/// when scontrol cannot say. env as RunSlurm takes it.
[[nodiscard]] bool ReadControllerLimits(ControllerLimits* out, std::string* err,
                                        const std::vector<std::string>& env = {});

/// Worker numbers (sorted, distinct) cut into runs of numbers that one job
/// array can hold: within each, the last minus the first is below
/// max_array_size, as the array's index is the number minus the first.
std::vector<std::vector<long>> SplitIntoArrays(const std::vector<long>& numbers, long max_array_size);

}  // namespace fiber::backend
