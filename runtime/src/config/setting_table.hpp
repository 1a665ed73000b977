// The one list of settings. Each row names a setting three ways (its key in
// a settings file, its environment variable, its flag), says what it is for
// and what kind of value it takes (setting_kinds.hpp); the defaults are
// Settings' initializers. The resolver, the environment and file readers
// (assignment.hpp), the sources report and the starter file all read it, so
// a new setting is a field in Settings and a row here.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "config/setting_kinds.hpp"
#include "config/settings.hpp"

namespace fiber::config {

struct Setting {
  const char* key;          // in a settings file: "heartbeat_timeout"
  const char* variable;     // "FIBER_HEARTBEAT_TIMEOUT"
  const char* flag;         // "--heartbeat-timeout"
  const char* description;  // one line, for the starter file and help
  Kind kind;
  /// It chooses what runs or what is shipped, or where the run listens:
  /// fiber run names where it came from as it starts (a settings file in a
  /// shared directory is the way someone else could have chosen it).
  bool shown_at_run = false;
};

inline constexpr bool kShownAtRun = true;

/// Every setting, in the order they are listed to users.
const std::vector<Setting>& Table();
/// The setting with this key, or nullptr.
const Setting* FindSetting(std::string_view key);

/// Where each setting's value came from, by key ("default" when from none).
using Sources = std::map<std::string, std::string>;

/// The rules between settings, checked once every source is applied; false
/// with *err naming the values and where they came from.
[[nodiscard]] bool CheckTogether(const Settings& settings, const Sources& sources, std::string* err);

}  // namespace fiber::config
