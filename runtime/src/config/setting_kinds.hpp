// The kinds of value a setting takes: text, paths, whole numbers, durations,
// quantities, true or false, and the few with words of their own (backends,
// engines, log levels). Each reads its text into a field of Settings and
// shows it back; each row of the setting table (setting_table.hpp) has one,
// and the readers of settings, the reports and completion go through it.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "config/settings.hpp"

namespace fiber::config {

/// What a setting takes, and how its value is read and shown.
struct Kind {
  const char* takes;  // "a number of seconds", for errors
  /// Sets the value from non-empty text; false with *err as "'TEXT' is not
  /// ...", for Apply to name the source.
  std::function<bool(const std::string& text, Settings* settings, std::string* err)> parse;
  /// The value, in a form parse takes back.
  std::function<std::string(const Settings& settings)> show;
  /// Set for a list: a settings file may give a YAML list, whose items are
  /// joined with this separator (as the variable and flag take them).
  const char* list_separator = nullptr;
  /// Every value it takes, when they are few: what completion offers.
  std::vector<std::string> choices = {};
};

/// The field of Settings a kind reads and shows.
template <typename T>
using Field = T Settings::*;

/// Any text.
Kind Text(Field<std::string> field, const char* takes);
/// Paths joined with ':', as PATH; a settings file may list them.
Kind Paths(Field<std::string> field);
/// A whole number from lo to hi.
Kind Whole(Field<int> field, long lo, long hi, const char* takes);
/// true or false.
Kind YesNo(Field<bool> field);
/// A duration (config/quantities.hpp) from min to a day.
Kind Seconds(Field<std::chrono::milliseconds> field, std::chrono::milliseconds min);
/// Empty (none) or an address to listen on (config/host_port.hpp).
Kind ListenAddress(Field<std::string> field);
/// Variable names, ','-separated; a settings file may list them.
Kind VariableNames(Field<std::string> field);

/// A value with a parser and a formatter of its own (config/quantities.hpp).
template <typename T>
Kind Quantity(Field<T> field, const char* takes,
              bool (*parse)(const std::string&, T*, std::string*), std::string (*format)(T)) {
  return {takes,
          [=](const std::string& text, Settings* s, std::string* err) {
            return parse(text, &(s->*field), err);
          },
          [=](const Settings& s) { return format(s.*field); }};
}

// The kinds of one setting each, named after what they take.

/// One of kBackends (config/backend_names.hpp): Settings::backend.
Kind BackendName();
/// One of kEngineNames: Settings::engine.
Kind EngineName();
/// local or cluster: Settings::master_in_cluster.
Kind MasterPlace();
/// Slurm's --time: Settings::time_limit.
Kind TimeLimit();
/// sbatch options, whitespace-separated: Settings::sbatch_options.
Kind SbatchOptions();
/// debug, info or warning, in any case: Settings::verbose.
Kind LogLevel();

}  // namespace fiber::config
