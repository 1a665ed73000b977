#include "wire/item_directory.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

namespace fiber::wire {

namespace {

constexpr const char* kShm = "/dev/shm";
constexpr const char* kSuffix = ".items";
// Where fiber before this user's directory made a run's: /dev/shm/fiber-RUN.items.
constexpr const char* kLegacyPrefix = "fiber-";

// This user's directory of item directories: its name says only that the
// uid uses fiber, what is in it (run ids) is for this user alone.
std::string UserDirectoryName() { return "fiber-" + std::to_string(::geteuid()); }
std::string RunDirectoryName(const std::string& run_id) { return run_id + kSuffix; }

// Ours alone: a directory of this user, mode 0700.
bool Private(int fd) {
  struct stat st {};
  return ::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == ::geteuid() &&
         (st.st_mode & 0777) == 0700;
}

// The directory name in the directory open as parent (-1: fails), made
// first when make says, when it is private (never a link followed); its
// descriptor, or -1 with errno.
int OpenPrivate(int parent, const std::string& name, bool make) {
  if (parent < 0) return -1;
  if (make && ::mkdirat(parent, name.c_str(), 0700) != 0 && errno != EEXIST) return -1;
  const int fd = ::openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 && (errno == ELOOP || errno == ENOTDIR)) errno = EPERM;  // a link, or not a directory
  if (fd >= 0 && !Private(fd)) {
    ::close(fd);
    errno = EPERM;
    return -1;
  }
  return fd;
}

// Whether name in the directory open as parent is the one open as fd.
bool NamedBy(int parent, const std::string& name, int fd) {
  struct stat named {}, open {};
  return ::fstatat(parent, name.c_str(), &named, AT_SYMLINK_NOFOLLOW) == 0 && ::fstat(fd, &open) == 0 &&
         named.st_dev == open.st_dev && named.st_ino == open.st_ino;
}

// This user's directory of item directories (made when make says), or -1.
int OpenUserDirectory(bool make) {
  const int shm = ::open(kShm, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  const int fd = OpenPrivate(shm, UserDirectoryName(), make);
  if (shm >= 0) ::close(shm);
  return fd;
}

// The names in the directory open as fd, but . and ..
std::vector<std::string> Entries(int fd) {
  std::vector<std::string> names;
  const int copy = ::dup(fd);
  DIR* dir = copy < 0 ? nullptr : ::fdopendir(copy);
  if (!dir) {
    if (copy >= 0) ::close(copy);
    return names;
  }
  ::rewinddir(dir);  // the copy shares the offset an earlier pass left at the end
  while (const dirent* e = ::readdir(dir))
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) names.emplace_back(e->d_name);
  ::closedir(dir);
  return names;
}

// Removes the item directories (PREFIX...RUN.items) in the directory open
// as parent that are this user's alone and that no master holds locked.
void RemoveAbandonedIn(int parent, const std::string& prefix) {
  for (const std::string& name : Entries(parent)) {
    if (name.size() <= prefix.size() + std::strlen(kSuffix) || name.compare(0, prefix.size(), prefix) != 0 ||
        name.compare(name.size() - std::strlen(kSuffix), std::string::npos, kSuffix) != 0)
      continue;
    const int fd = OpenPrivate(parent, name, false);
    if (fd < 0) continue;
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
      EmptyDirectory(fd);
      (void)::unlinkat(parent, name.c_str(), AT_REMOVEDIR);
    }
    ::close(fd);
  }
}

// What stops path being used: not private, or errno's reason.
std::string Refusal(const std::string& path, int error) {
  return error == EPERM ? path + " is not a private directory of this user"
                        : "cannot make " + path + ": " + std::strerror(error);
}

}  // namespace

void EmptyDirectory(int fd) {
  for (const std::string& name : Entries(fd)) (void)::unlinkat(fd, name.c_str(), 0);
}

std::string ItemDirectoryOf(const std::string& run_id) {
  return std::string(kShm) + "/" + UserDirectoryName() + "/" + RunDirectoryName(run_id);
}

void RemoveAbandonedItemDirectories() {
  const int shm = ::open(kShm, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (shm < 0) return;
  RemoveAbandonedIn(shm, kLegacyPrefix);
  const int user = OpenPrivate(shm, UserDirectoryName(), false);
  ::close(shm);
  if (user < 0) return;
  RemoveAbandonedIn(user, "");
  ::close(user);
}

int MakeItemDirectory(const std::string& run_id, std::string* err) {
  const std::string path = ItemDirectoryOf(run_id);
  const int user = OpenUserDirectory(true);
  if (user < 0) {
    *err = Refusal(path.substr(0, path.rfind('/')), errno);
    return -1;
  }
  // Held while this master lives. A directory of this run id that another
  // master holds is not taken over; one whose master is gone is, emptied
  // (its workers would use it). Another process's sweep
  // (RemoveAbandonedItemDirectories) may lock and remove it between its
  // making and its lock here: then it is made again.
  int fd = -1;
  bool held = false;
  for (int tries = 0; tries < 3 && fd < 0; ++tries) {
    if (tries > 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    fd = OpenPrivate(user, RunDirectoryName(run_id), true);
    if (fd < 0) {
      *err = Refusal(path, errno);
      ::close(user);
      return -1;
    }
    held = ::flock(fd, LOCK_EX | LOCK_NB) != 0;
    if (held || !NamedBy(user, RunDirectoryName(run_id), fd)) {
      ::close(fd);
      fd = -1;
    }
  }
  ::close(user);
  if (fd < 0) {
    *err = held ? path + " is held by another master of run " + run_id : "cannot make " + path;
    return -1;
  }
  return fd;
}

int OpenItemDirectory(const std::string& run_id) {
  const int user = OpenUserDirectory(false);
  const int fd = OpenPrivate(user, RunDirectoryName(run_id), false);
  if (user >= 0) ::close(user);
  return fd;
}

}  // namespace fiber::wire
