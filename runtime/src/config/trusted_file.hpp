// Whether a settings file, or a directory fiber looks in for one, is this
// user's alone. Settings choose what runs (a kubeconfig's credential plugin,
// templates, images) and where the master listens, so a file anyone else
// could have written is refused, as git refuses a repository another user
// owns (safe.directory). Used by the resolver's lookup of fiber.yaml and its
// reading of the user file and a named file, and for the directories that
// hold run directories (runs/run_dir.hpp).
#pragma once

#include <sys/types.h>

#include <string>

namespace fiber::config {

/// Why the file or directory at path is not `uid`'s alone: "owned by nobody
/// (uid 65534), not by you", "writable by its group (mode 0664)", "writable
/// by anyone (mode 1777)"; "" when it is, or when it cannot be read (the
/// reader says why then).
std::string NotYoursAlone(const std::string& path, uid_t uid);

/// Why the directory at path may not hold `uid`'s private files (run
/// directories, logs): owned by neither uid nor root, or writable by others
/// (a sticky directory of root's, as /tmp, excepted), said as NotYoursAlone
/// says it; "" when it may, or when it cannot be read.
std::string NotSafeParent(const std::string& path, uid_t uid);

/// Why path is writable by anyone, as NotYoursAlone says it; "" otherwise.
/// For a file the user named: whoever owns it was the user's choice.
std::string WritableByAnyone(const std::string& path);

}  // namespace fiber::config
