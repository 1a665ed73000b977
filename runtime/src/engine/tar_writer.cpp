#include "engine/tar_writer.hpp"

#include <cstdio>
#include <cstring>

namespace fiber::engine {

namespace {

constexpr std::size_t kBlock = 512;

void Octal(char* field, std::size_t width, unsigned long long value) {
  std::snprintf(field, width, "%0*llo", static_cast<int>(width - 1), value);
}

// Splits path into ustar's prefix and name fields; false when it cannot.
bool Split(const std::string& path, std::string* prefix, std::string* name) {
  if (path.size() <= 100) {
    *name = path;
    return true;
  }
  for (std::size_t slash = path.find('/'); slash != std::string::npos;
       slash = path.find('/', slash + 1)) {
    if (slash <= 155 && path.size() - slash - 1 <= 100) {
      *prefix = path.substr(0, slash);
      *name = path.substr(slash + 1);
      return true;
    }
  }
  return false;
}

}  // namespace

void TarWriter::AddDirectory(const std::string& path, int mode) { Add(path + "/", '5', mode, {}, {}); }

void TarWriter::AddFile(const std::string& path, int mode, const std::string& contents) {
  Add(path, '0', mode, {}, contents);
}

void TarWriter::AddSymlink(const std::string& path, const std::string& target) {
  Add(path, '2', 0777, target, {});
}

void TarWriter::Add(const std::string& path, char type, int mode, const std::string& link,
                    const std::string& contents) {
  std::string prefix, name;
  if (!Split(path, &prefix, &name) || link.size() > 100) {
    if (too_long_.empty()) too_long_ = path;
    return;
  }
  char h[kBlock] = {};
  std::memcpy(h, name.data(), name.size());
  Octal(h + 100, 8, static_cast<unsigned>(mode) & 07777);
  Octal(h + 108, 8, 0);   // uid
  Octal(h + 116, 8, 0);   // gid
  Octal(h + 124, 12, contents.size());
  Octal(h + 136, 12, 0);  // mtime: fixed
  h[156] = type;
  std::memcpy(h + 157, link.data(), link.size());
  std::memcpy(h + 257, "ustar", 6);
  std::memcpy(h + 263, "00", 2);
  std::memcpy(h + 345, prefix.data(), prefix.size());
  std::memset(h + 148, ' ', 8);
  unsigned sum = 0;
  for (unsigned char c : h) sum += c;
  std::snprintf(h + 148, 8, "%06o", sum);  // six digits, NUL, and the space left
  bytes_.append(h, kBlock);
  bytes_.append(contents);
  bytes_.append((kBlock - contents.size() % kBlock) % kBlock, '\0');
}

bool TarWriter::Finish(std::string* out, std::string* err) {
  if (!too_long_.empty()) {
    *err = "'" + too_long_ + "' is too long a path for a tar archive";
    return false;
  }
  *out = bytes_ + std::string(2 * kBlock, '\0');
  return true;
}

}  // namespace fiber::engine
