// A settings file (a project's fiber.yaml, the user's config.yaml, or one
// named by --config) read into the values it sets, each with its position,
// so that errors and the sources report point at the line. Every key and
// value is checked here, those of profiles not chosen too; which of them
// apply is for config/resolve.hpp to say.
//
//   heartbeat_timeout: 10
//   profile: big          # chooses a profile, unless a flag or FIBER_PROFILE does
//   profiles:
//     big: {cpu: 4, memory: 8Gi}
#pragma once

#include <map>
#include <string>
#include <vector>

#include "config/assignment.hpp"

namespace fiber::config {

struct ConfigFile {
  std::string path;
  /// The top level's values, in file order (a profile: key among them).
  std::vector<Assignment> values;
  /// Each profile's values, by profile name.
  std::map<std::string, std::vector<Assignment>> profiles;
};

/// Reads and checks the file at path; false with *err as
/// "PATH:LINE:COLUMN: what is wrong" (or "PATH: cannot read: why").
[[nodiscard]] bool ReadConfigFile(const std::string& path, ConfigFile* out, std::string* err);
/// Checks the text of the settings file at path (read by the caller, from a
/// descriptor it judged), as ReadConfigFile does.
[[nodiscard]] bool ParseConfigFile(const std::string& path, const std::string& text, ConfigFile* out,
                                   std::string* err);

}  // namespace fiber::config
