#include "wire/item_files.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "wire/item_directory.hpp"
#include "wire/limits.hpp"

namespace fiber::wire {

namespace {

std::string RecycledName(unsigned k) { return "free-" + std::to_string(k); }

// Names worker_id-N, N decimal digits.
bool NamedFor(const std::string& peer, const std::string& name) {
  if (peer.empty() || name.size() <= peer.size() + 1 || name.compare(0, peer.size(), peer) != 0 ||
      name[peer.size()] != '-')
    return false;
  return std::all_of(name.begin() + static_cast<std::ptrdiff_t>(peer.size()) + 1, name.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

void ItemFiles::RemoveAll() { EmptyDirectory(fd_); }

std::shared_ptr<ItemFiles> ItemFiles::Create(const std::string& run_id, std::string* err) {
  RemoveAbandonedItemDirectories();
  const int fd = MakeItemDirectory(run_id, err);
  if (fd < 0) return nullptr;
  std::shared_ptr<ItemFiles> files(new ItemFiles(ItemDirectoryOf(run_id), fd, true));
  files->RemoveAll();
  return files;
}

std::shared_ptr<ItemFiles> ItemFiles::Open(const std::string& run_id) {
  const int fd = OpenItemDirectory(run_id);
  if (fd < 0) return nullptr;
  return std::shared_ptr<ItemFiles>(new ItemFiles(ItemDirectoryOf(run_id), fd, false));
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
