// A value given to a setting by one source (the environment, a flag, a line
// of a settings file), and setting it, with errors that name the source and
// the value. The resolver (resolve.hpp), the file reader (config_file.hpp)
// and the worker's timing (settings.hpp: ApplyTiming) assign through it.
#pragma once

#include <string>
#include <vector>

#include "config/setting_table.hpp"
#include "config/settings.hpp"

namespace fiber::config {

/// One value for one setting, as one source gave it.
struct Assignment {
  const Setting* setting = nullptr;
  std::string text;
  /// Where it came from, as the sources report shows it: the variable, the
  /// flag, or a position in a file ("/p/fiber.yaml:3:11").
  std::string source;
};

/// How errors name an assignment: its variable or flag, or for a file
/// "/p/fiber.yaml:3:11: prefetch".
std::string Subject(const Assignment& a);

/// Sets a's value in *settings; false with *err naming the source and the
/// value ("FIBER_PREFETCH='0' is not a whole number from 1 to 256", "... is
/// empty"); for a value with choices, one close to a choice adds "; did you
/// mean 'docker'?".
[[nodiscard]] bool Apply(const Assignment& a, Settings* settings, std::string* err);

/// The table's variables that getenv has, in table order.
std::vector<Assignment> FromEnvironment(const Getenv& getenv);

}  // namespace fiber::config
