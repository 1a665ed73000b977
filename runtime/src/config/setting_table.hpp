// The one list of settings. Each row names a setting three ways (its key in
// a settings file, its environment variable, its flag), says what it takes
// and what it is for, and parses and shows its value; the defaults are
// Settings' initializers. The resolver, the environment and file readers,
// the sources report and the starter file all read it, so a new setting is
// a field in Settings and a row here.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
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

/// One value for one setting, as one source gave it.
struct Assignment {
  const Setting* setting = nullptr;
  std::string text;
  /// Where it came from, as the sources report shows it: the variable, the
  /// flag, or a position in a file ("/p/fiber.yaml:3:11").
  std::string source;
};

/// Where each setting's value came from, by key ("default" when from none).
using Sources = std::map<std::string, std::string>;

/// How errors name an assignment: its variable or flag, or for a file
/// "/p/fiber.yaml:3:11: prefetch".
std::string Subject(const Assignment& a);

/// Sets a's value in *settings; false with *err naming the source and the
/// value ("FIBER_PREFETCH='0' is not a whole number from 1 to 256", "... is
/// empty").
[[nodiscard]] bool Apply(const Assignment& a, Settings* settings, std::string* err);

/// The table's variables that getenv has, in table order.
std::vector<Assignment> FromEnvironment(const Getenv& getenv);

/// The rules between settings, checked once every source is applied; false
/// with *err naming the values and where they came from.
[[nodiscard]] bool CheckTogether(const Settings& settings, const Sources& sources, std::string* err);

}  // namespace fiber::config
