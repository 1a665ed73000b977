#include "os/sealed_memfd.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace fiber::os {

namespace {

constexpr int kSeals = F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE;

std::string Errno(const std::string& what) { return what + ": " + std::strerror(errno); }

}  // namespace

SealedMemfd& SealedMemfd::operator=(SealedMemfd&& other) noexcept {
  if (this == &other) return *this;
  if (map_) ::munmap(map_, size_);
  fd_ = std::move(other.fd_);
  map_ = std::exchange(other.map_, nullptr);
  size_ = std::exchange(other.size_, 0);
  return *this;
}

SealedMemfd::~SealedMemfd() {
  if (map_) ::munmap(map_, size_);
}

bool SealedMemfd::Map(std::size_t size, std::string* err) {
  size_ = size;
  if (size == 0) return true;  // nothing to map
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd_.get(), 0);
  if (map == MAP_FAILED) {
    *err = Errno("cannot map the shared memory");
    size_ = 0;
    return false;
  }
  map_ = map;
  return true;
}

bool SealedMemfd::Make(const std::string& name, std::string_view bytes, SealedMemfd* out,
                       std::string* err) {
  SealedMemfd m;
  m.fd_.Reset(::memfd_create(name.c_str(), MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (!m.fd_) {
    *err = Errno("cannot make shared memory (memfd_create)");
    return false;
  }
  if (!WriteAll(m.fd_.get(), bytes)) {
    *err = Errno("cannot fill shared memory of " + std::to_string(bytes.size()) + " bytes");
    return false;
  }
  if (::fcntl(m.fd_.get(), F_ADD_SEALS, kSeals) != 0) {
    *err = Errno("cannot seal shared memory");
    return false;
  }
  if (!m.Map(bytes.size(), err)) return false;
  *out = std::move(m);
  return true;
}

bool SealedMemfd::OpenOf(std::uint64_t pid, std::uint64_t fd, const std::string& name,
                         std::uint64_t size, SealedMemfd* out, std::string* why) {
  const std::string path = "/proc/" + std::to_string(pid) + "/fd/" + std::to_string(fd);
  const std::string expected = "/memfd:" + name + " (deleted)";
  auto links_to_it = [&](const std::string& link) {
    char target[512];
    const ssize_t n = ::readlink(link.c_str(), target, sizeof target);
    return n >= 0 && std::string_view(target, static_cast<std::size_t>(n)) == expected;
  };
  // Named first, so that nothing else is opened (on another machine that
  // pid is another process: its descriptor may be a FIFO, a device).
  if (!links_to_it(path)) {
    *why = path + " is not the master's shared memory " + name;
    return false;
  }
  SealedMemfd m;
  m.fd_.Reset(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (!m.fd_) {
    *why = Errno("cannot open " + path);
    return false;
  }
  // The descriptor opened must be the one too: the number may have been
  // reused since.
  if (!links_to_it("/proc/self/fd/" + std::to_string(m.fd_.get()))) {
    *why = path + " is not the master's shared memory " + name;
    return false;
  }
  struct stat st;
  const int seals = ::fcntl(m.fd_.get(), F_GET_SEALS);
  if (::fstat(m.fd_.get(), &st) != 0 || static_cast<std::uint64_t>(st.st_size) != size ||
      seals < 0 || (seals & kSeals) != kSeals) {
    *why = path + " is not sealed, or not of " + std::to_string(size) + " bytes";
    return false;
  }
  if (!m.Map(size, why)) return false;
  *out = std::move(m);
  return true;
}

}  // namespace fiber::os
