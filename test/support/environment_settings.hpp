// A process's settings resolved from FIBER_* variables alone: for the tests
// of settings, of the kinds of value they take and of assigning them.
#pragma once

#include <map>
#include <string>

#include "config/resolve.hpp"

namespace fiber::testing {

/// Resolves from env alone: no HOME, so no user file, and no lookup.
inline bool apply(const std::map<std::string, std::string>& env, config::Settings* s, std::string* err) {
  config::Inputs inputs;
  inputs.getenv = [&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  config::Resolved resolved;
  if (!config::Resolve(inputs, &resolved, err)) return false;
  *s = resolved.settings;
  return true;
}

}  // namespace fiber::testing
