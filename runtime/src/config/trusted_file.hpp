// Whether a settings file, a run's record, or a directory that holds them
// is this user's alone. Settings and run records choose what runs (a
// kubeconfig's credential plugin, templates, images, signals sent) and
// where the master listens, so what anyone else could have written is
// refused, as git refuses a repository another user owns (safe.directory).
// Everything is judged by descriptor: a path is walked from / one name at
// a time, never through a link another user owns, and a file is judged by
// what was opened, not by a second look at its path.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <string>

namespace fiber::config {

/// Why the file or directory of status st is not `uid`'s alone: "owned by
/// nobody (uid 65534), not by you", "writable by its group (mode 0664)",
/// "writable by anyone (mode 1777)"; "" when it is.
std::string NotYoursAlone(const struct stat& st, uid_t uid);

/// Why the directory of status st may not hold `uid`'s private files (run
/// directories, logs) or lead to them: owned by neither uid nor root, or
/// writable by others (a sticky directory of root's, as /tmp, excepted),
/// said as NotYoursAlone says it; "" when it may.
std::string NotSafeParent(const struct stat& st, uid_t uid);

/// Why st is writable by anyone, as NotYoursAlone says it; "" otherwise.
/// For a file the user named: whoever owns it was the user's choice.
std::string WritableByAnyone(const struct stat& st);

/// Opens the directory at the absolute path (O_DIRECTORY, close-on-exec),
/// walking from / one name at a time: every directory on the way, the last
/// too, must pass NotSafeParent, and a symbolic link is followed only when
/// uid or root owns it. With make, missing directories are made, mode 0700.
/// -1 with *err "PATH is WHY" naming the first directory that fails, or
/// the system's reason ("cannot open PATH: No such file or directory";
/// errno is then ENOENT).
int OpenTrustedDirectory(const std::string& path, uid_t uid, bool make, std::string* err);

/// Opens the file `name` of directory dir to read (close-on-exec): never
/// through a link, never waiting on a FIFO. -1 with *why when it is not a
/// regular file that is `uid`'s alone (NotYoursAlone), or the system's
/// reason when it cannot be opened (errno kept: ENOENT when missing).
int OpenTrustedFile(int dir, const std::string& name, uid_t uid, std::string* why);

/// Opens the file at the absolute path to read, as OpenTrustedFile opens
/// it in the directory OpenTrustedDirectory opens; a symbolic link at the
/// end is followed (a dotfile manager's) when uid or root owns it, and its
/// target judged the same way. -1 with *why as those say it.
int OpenTrustedPath(const std::string& path, uid_t uid, std::string* why);

}  // namespace fiber::config
