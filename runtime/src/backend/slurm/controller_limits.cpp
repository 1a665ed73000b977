#include "backend/slurm/controller_limits.hpp"

#include <sstream>

#include "backend/slurm/slurm_command.hpp"

namespace fiber::backend {

ControllerLimits ParseControllerConfig(const std::string& text) {
  ControllerLimits limits;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string key, equals;
    long value = 0;
    if (!(words >> key >> equals >> value) || equals != "=") continue;
    if (key == "MaxArraySize" && value > 0) limits.max_array_size = value;
  }
  return limits;
}

bool ReadControllerLimits(ControllerLimits* out, std::string* err, const std::vector<std::string>& env) {
  *out = ControllerLimits{};
  std::string text;
  // Not tried again: the defaults do until sbatch says more.
  if (!RunSlurm({"scontrol", "show", "config"}, "", &text, err, env, {})) return false;
  *out = ParseControllerConfig(text);
  return true;
}

std::vector<std::vector<long>> SplitIntoArrays(const std::vector<long>& numbers, long max_array_size) {
  std::vector<std::vector<long>> arrays;
  for (long n : numbers) {
    if (arrays.empty() || n - arrays.back().front() >= max_array_size) arrays.emplace_back();
    arrays.back().push_back(n);
  }
  return arrays;
}

}  // namespace fiber::backend
