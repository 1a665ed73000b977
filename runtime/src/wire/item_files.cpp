#include "wire/item_files.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>

#include "wire/limits.hpp"

namespace fiber::wire {

namespace {

std::string DirectoryOf(const std::string& run_id) { return "/dev/shm/fiber-" + run_id + ".items"; }

// Ours alone: a directory of this user, mode 0700.
bool Private(int fd) {
  struct stat st {};
  return ::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == ::geteuid() &&
         (st.st_mode & 0777) == 0700;
}

// Names worker_id-N, N decimal digits.
bool NamedFor(const std::string& peer, const std::string& name) {
  if (peer.empty() || name.size() <= peer.size() + 1 || name.compare(0, peer.size(), peer) != 0 ||
      name[peer.size()] != '-')
    return false;
  return std::all_of(name.begin() + static_cast<std::ptrdiff_t>(peer.size()) + 1, name.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

std::unique_ptr<ItemFiles> ItemFiles::Create(const std::string& run_id, std::string* err) {
  const std::string path = DirectoryOf(run_id);
  // One left by a master of this run id that was killed is taken over, as
  // its workers would use it.
  if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) {
    *err = "cannot make " + path + ": " + std::strerror(errno);
    return nullptr;
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 || !Private(fd)) {
    *err = path + " is not a private directory of this user";
    if (fd >= 0) ::close(fd);
    return nullptr;
  }
  std::unique_ptr<ItemFiles> files(new ItemFiles(path, fd, true));
  files->RemoveAll();
  return files;
}

std::unique_ptr<ItemFiles> ItemFiles::Open(const std::string& run_id) {
  const std::string path = DirectoryOf(run_id);
  const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return nullptr;
  if (!Private(fd)) {
    ::close(fd);
    return nullptr;
  }
  return std::unique_ptr<ItemFiles>(new ItemFiles(path, fd, false));
}

ItemFiles::~ItemFiles() {
  if (owner_) {
    RemoveAll();
    (void)::rmdir(path_.c_str());
  }
  ::close(fd_);
}

void ItemFiles::RemoveAll() {
  const int copy = ::dup(fd_);
  if (copy < 0) return;
  DIR* dir = ::fdopendir(copy);
  if (!dir) {
    ::close(copy);
    return;
  }
  ::rewinddir(dir);  // the copy shares the offset an earlier pass left at the end
  while (const dirent* e = ::readdir(dir))
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0)
      (void)::unlinkat(fd_, e->d_name, 0);
  ::closedir(dir);
}

std::string ItemFiles::Write(const std::string& worker_id, const std::string& item) {
  static std::atomic<std::uint64_t> next{0};
  const std::string name = worker_id + "-" + std::to_string(next++);
  const int fd = ::openat(fd_, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                          0600);
  if (fd < 0) return "";
  std::size_t at = 0;
  while (at < item.size()) {
    const ssize_t n = ::write(fd, item.data() + at, item.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    at += static_cast<std::size_t>(n);
  }
  ::close(fd);
  if (at == item.size()) return name;
  (void)::unlinkat(fd_, name.c_str(), 0);  // /dev/shm full: the socket takes it
  return "";
}

bool ItemFiles::Take(const std::string& peer, const std::string& name, std::string* item,
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
  (void)::unlinkat(fd_, name.c_str(), 0);  // whatever comes next, it is read once
  struct stat st {};
  bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid();
  if (!ok) {
    *err = "the item file " + path_ + "/" + name + " is not a regular file of this user";
  } else if (const std::size_t size = static_cast<std::size_t>(st.st_size); size > kMaxMessageBytes) {
    *err = "the item file " + path_ + "/" + name + " holds more than any message may";
    ok = false;
  } else if (size == 0) {
    item->clear();
  } else {
    // Mapped whole at once and copied: one pass over the bytes.
    void* bytes = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    ok = bytes != MAP_FAILED;
    if (ok) {
      item->assign(static_cast<const char*>(bytes), size);
      ::munmap(bytes, size);
    } else {
      *err = "cannot map the item file " + path_ + "/" + name + ": " + std::strerror(errno);
    }
  }
  ::close(fd);
  return ok;
}

}  // namespace fiber::wire
