// Where a run's item files (wire/item_files.hpp) live on a machine, and
// whose they are: the run's directory RUN.items in this user's
// /dev/shm/fiber-UID, both mode 0700, so other users see no run ids, only
// that the uid uses fiber. Each is opened by descriptor, without following
// links, and used only when it is this user's and no one else's. A master
// holds a lock (flock) on its run's directory while it lives, released
// however it dies: one that can be locked is nobody's, and the sweep
// removes it (a master killed with kill -9 removes nothing). Thread-safe
// (no state).
#pragma once

#include <string>

namespace fiber::wire {

/// Where the run's directory is on this machine (for messages and tests).
std::string ItemDirectoryOf(const std::string& run_id);

/// The master's: makes the run's directory, or takes the one a master of
/// this run id that is gone left, and locks it; its descriptor, or -1
/// with *err (another master holds it, or it is not this user's alone).
int MakeItemDirectory(const std::string& run_id, std::string* err);

/// A worker's: the run's directory when this process sees it, this
/// user's alone; its descriptor, or -1.
int OpenItemDirectory(const std::string& run_id);

/// The sweep: removes, with what is in them, the directories of this
/// user's masters gone from this machine, and those fiber left in
/// /dev/shm itself (fiber-RUN.items) before each user had a directory.
/// For a master starting, and for fiber ps, run and prune.
void RemoveAbandonedItemDirectories();

/// Removes every file in the directory open as fd.
void EmptyDirectory(int fd);

}  // namespace fiber::wire
