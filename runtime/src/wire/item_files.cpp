#include "wire/item_files.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <utility>
#include <vector>

#include "wire/limits.hpp"

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

std::string RecycledName(unsigned k) { return "free-" + std::to_string(k); }

// Names worker_id-N, N decimal digits.
bool NamedFor(const std::string& peer, const std::string& name) {
  if (peer.empty() || name.size() <= peer.size() + 1 || name.compare(0, peer.size(), peer) != 0 ||
      name[peer.size()] != '-')
    return false;
  return std::all_of(name.begin() + static_cast<std::ptrdiff_t>(peer.size()) + 1, name.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
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

// Removes every file in the directory open as fd.
void Empty(int fd) {
  for (const std::string& name : Entries(fd)) (void)::unlinkat(fd, name.c_str(), 0);
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
      Empty(fd);
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

void ItemFiles::RemoveAll() { Empty(fd_); }

std::string ItemFiles::DirectoryOf(const std::string& run_id) {
  return std::string(kShm) + "/" + UserDirectoryName() + "/" + RunDirectoryName(run_id);
}

void ItemFiles::RemoveAbandoned() {
  const int shm = ::open(kShm, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (shm < 0) return;
  RemoveAbandonedIn(shm, kLegacyPrefix);
  const int user = OpenPrivate(shm, UserDirectoryName(), false);
  ::close(shm);
  if (user < 0) return;
  RemoveAbandonedIn(user, "");
  ::close(user);
}

std::shared_ptr<ItemFiles> ItemFiles::Create(const std::string& run_id, std::string* err) {
  RemoveAbandoned();
  const std::string path = DirectoryOf(run_id);
  const int user = OpenUserDirectory(true);
  if (user < 0) {
    *err = Refusal(path.substr(0, path.rfind('/')), errno);
    return nullptr;
  }
  // Held while this master lives. A directory of this run id that another
  // master holds is not taken over; one whose master is gone is, emptied
  // (its workers would use it). Another process's sweep (RemoveAbandoned)
  // may lock and remove it between its making and its lock here: then it
  // is made again.
  int fd = -1;
  bool held = false;
  for (int tries = 0; tries < 3 && fd < 0; ++tries) {
    if (tries > 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    fd = OpenPrivate(user, RunDirectoryName(run_id), true);
    if (fd < 0) {
      *err = Refusal(path, errno);
      ::close(user);
      return nullptr;
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
    return nullptr;
  }
  std::shared_ptr<ItemFiles> files(new ItemFiles(path, fd, true));
  files->RemoveAll();
  return files;
}

std::shared_ptr<ItemFiles> ItemFiles::Open(const std::string& run_id) {
  const int user = OpenUserDirectory(false);
  const int fd = OpenPrivate(user, RunDirectoryName(run_id), false);
  if (user >= 0) ::close(user);
  if (fd < 0) return nullptr;
  return std::shared_ptr<ItemFiles>(new ItemFiles(DirectoryOf(run_id), fd, false));
}

ItemFiles::~ItemFiles() {
  if (owner_) {
    RemoveAll();
    (void)::rmdir(path_.c_str());
  }
  ::close(fd_);
}

std::string ItemFiles::Write(const std::string& worker_id, const std::string& item) {
  static std::atomic<std::uint64_t> next{0};
  const std::string name = worker_id + "-" + std::to_string(next++);
  // A file the master has read and kept is taken whole (rename is atomic:
  // one writer gets each); its pages are written over, not made again.
  int fd = -1;
  if (Recycled([&](const std::string& place) {
        return ::renameat(fd_, place.c_str(), fd_, name.c_str()) == 0;
      }))
    fd = ::openat(fd_, name.c_str(), O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    fd = ::openat(fd_, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return "";
  std::size_t at = 0;
  while (at < item.size()) {
    const ssize_t n = ::pwrite(fd, item.data() + at, item.size() - at, static_cast<off_t>(at));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    at += static_cast<std::size_t>(n);
  }
  const bool whole = at == item.size() && ::ftruncate(fd, static_cast<off_t>(at)) == 0;
  ::close(fd);
  if (whole) return name;
  (void)::unlinkat(fd_, name.c_str(), 0);  // /dev/shm full: the socket takes it
  return "";
}

MappedItem& MappedItem::operator=(MappedItem&& other) noexcept {
  if (this == &other) return *this;
  Release();
  files_ = std::move(other.files_);
  address_ = std::exchange(other.address_, nullptr);
  size_ = std::exchange(other.size_, 0);
  name_ = std::move(other.name_);
  return *this;
}

void MappedItem::Release() {
  if (!files_) return;
  if (address_) ::munmap(address_, size_);
  files_->Recycle(name_, size_);
  files_.reset();
  address_ = nullptr;
  size_ = 0;
}

bool ItemFiles::Map(const std::string& peer, const std::string& name, MappedItem* item,
                    std::string* err) {
  if (!NamedFor(peer, name)) {
    *err = "'" + name + "' is not an item file of worker '" + peer + "'";
    return false;
  }
  const int fd = ::openat(fd_, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    *err = "cannot open the item file " + path_ + "/" + name + ": " + std::strerror(errno);
    return false;
  }
  struct stat st {};
  bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid();
  const auto size = static_cast<std::size_t>(st.st_size);
  void* address = nullptr;
  if (!ok) {
    *err = "the item file " + path_ + "/" + name + " is not a regular file of this user";
  } else if (size > kMaxMessageBytes) {
    *err = "the item file " + path_ + "/" + name + " holds more than any message may";
    ok = false;
  } else if (size > 0) {
    // Populated at once: the consumer reads it without faulting page by page.
    address = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    ok = address != MAP_FAILED;
    if (!ok) {
      address = nullptr;
      *err = "cannot map the item file " + path_ + "/" + name + ": " + std::strerror(errno);
    }
  }
  ::close(fd);
  if (!ok) {
    (void)::unlinkat(fd_, name.c_str(), 0);
    return false;
  }
  MappedItem mapped;
  mapped.files_ = shared_from_this();
  mapped.address_ = address;
  mapped.size_ = size;
  mapped.name_ = name;
  *item = std::move(mapped);
  return true;
}

bool ItemFiles::Recycled(const std::function<bool(const std::string& kept)>& move) {
  for (unsigned k = 0; k < kRecycledTries; ++k) {
    const unsigned place = cursor_.load(std::memory_order_relaxed) + k;
    if (move(RecycledName(place % kRecycled))) {
      cursor_.store(place + 1, std::memory_order_relaxed);
      return true;
    }
  }
  return false;
}

void ItemFiles::Recycle(const std::string& name, std::size_t size) {
  const bool kept = size <= kRecycledBytes && Recycled([&](const std::string& place) {
    return ::renameat2(fd_, name.c_str(), fd_, place.c_str(), RENAME_NOREPLACE) == 0;
  });
  if (!kept) (void)::unlinkat(fd_, name.c_str(), 0);
}

}  // namespace fiber::wire
