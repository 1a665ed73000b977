// What may name an environment variable that fiber writes into a shell
// script (the Slurm master's batch script) or passes on as --env: the
// portable shell name [A-Za-z_][A-Za-z0-9_]*. Anything else in a script
// would be run as shell code, not set as a variable.
#pragma once

#include <string>

namespace fiber::backend {

inline bool IsEnvironmentName(const std::string& name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  for (char c : name)
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

}  // namespace fiber::backend
