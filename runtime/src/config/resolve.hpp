// The one resolution of a process's settings, for fiber::init and the fiber
// command alike, highest first:
//   flags > FIBER_* environment > project file > user file > defaults
// The project file is the one named by --config (or FIBER_CONFIG), else the
// nearest fiber.yaml from the current directory upward; the user file is
// $XDG_CONFIG_HOME/fiber/config.yaml (by default ~/.config/fiber/...).
// Only files that are the user's alone are read (trusted_file.hpp): the
// lookup stops at the first directory that is not, and a file found there
// or one that is not is refused with a line saying why; a named file is the
// user's choice, refused only when anyone may write it. A
// profile chosen by --profile, FIBER_PROFILE or a file's profile: key (the
// highest of them) applies, in each file that defines it, over that file's
// top level. Every value of every source is checked, even one overridden.
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "config/setting_table.hpp"
#include "config/settings.hpp"
#include "os/descriptor.hpp"

namespace fiber::config {

/// Names the project file, as --config does, when no flag does.
inline constexpr const char* kConfigVariable = "FIBER_CONFIG";
inline constexpr const char* kProjectFileName = "fiber.yaml";

/// What settings are resolved from, besides the files.
struct Inputs {
  /// The FIBER_* settings, FIBER_CONFIG, XDG_CONFIG_HOME and HOME.
  Getenv getenv;
  /// Where the lookup of fiber.yaml starts; empty: no lookup.
  std::string cwd;
  /// --config FILE: read instead of the lookup.
  std::string config_file;
  /// The flags given, by key: {"prefetch", "4"} for --prefetch 4.
  std::map<std::string, std::string> flags;
  /// Whose files are trusted: the files the lookup and the user file read
  /// must be this user's and writable by no one else.
  uid_t uid = ::geteuid();
};

struct Resolved {
  Settings settings;
  /// Where each setting's value came from: "default", "--prefetch",
  /// "FIBER_PREFETCH", "/p/fiber.yaml:3:11".
  Sources sources;
  /// The files read, user file first.
  std::vector<std::string> files;
  /// The profiles those files define, by name (for completion).
  std::set<std::string> profiles;
  /// Settings files found but not read, each one line naming it and why
  /// ("ignoring /tmp/fiber.yaml: its directory /tmp is writable by anyone
  /// (mode 1777)"), for the caller to show.
  std::vector<std::string> refused;
};

/// False with *err naming the first bad input: a flag or variable with its
/// value, or a file with line and column.
[[nodiscard]] bool Resolve(const Inputs& inputs, Resolved* out, std::string* err);

/// The nearest fiber.yaml in dir or above it, looking no further than the
/// first directory that is not uid's alone; "" for none. A fiber.yaml found
/// but not the user's alone, or in that last directory, is not returned:
/// *refused (when given) says why. The file is judged by the descriptor it
/// was opened with, the directories above it too (trusted_file.hpp);
/// *fd (when given) is that descriptor, to read it from.
std::string FindProjectFile(const std::string& dir, std::string* refused = nullptr,
                            uid_t uid = ::geteuid(), os::Descriptor* fd = nullptr);
/// Where the user file belongs, whether or not it exists; "" when neither
/// XDG_CONFIG_HOME nor HOME says.
std::string UserFile(const Getenv& getenv);

}  // namespace fiber::config
