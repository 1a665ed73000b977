#include "engine/tar_writer.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace fiber::engine {

namespace {

constexpr std::size_t kBlock = 512;
constexpr std::int64_t kMaxOctalSize = 077777777777;  // what 11 octal digits hold

void Octal(char* field, std::size_t width, std::int64_t value) {
  std::snprintf(field, width, "%0*llo", static_cast<int>(width - 1),
                static_cast<unsigned long long>(value));
}

// One pax record, "LEN key=value\n", its length counting itself.
std::string PaxRecord(const std::string& key, const std::string& value) {
  const std::size_t body = key.size() + value.size() + 3;  // ' ', '=', '\n'
  std::size_t len = body + 1;
  while (std::to_string(len).size() + body != len) ++len;
  return std::to_string(len) + " " + key + "=" + value + "\n";
}

}  // namespace

bool TarWriter::Pad(std::int64_t size, std::string* err) {
  const std::size_t rest = static_cast<std::size_t>(size) % kBlock;
  if (rest == 0) return true;
  static const char zeros[kBlock] = {};
  return out_->Write(std::string_view(zeros, kBlock - rest), err);
}

bool TarWriter::Header(const std::string& path, char type, int mode, std::int64_t size,
                       const std::string& link, std::string* err) {
  // What ustar's fields cannot hold goes first in a pax extended header.
  std::string pax;
  if (path.size() > 100) pax += PaxRecord("path", path);
  if (link.size() > 100) pax += PaxRecord("linkpath", link);
  if (size > kMaxOctalSize) pax += PaxRecord("size", std::to_string(size));
  if (!pax.empty()) {
    if (!Header("././@PaxHeader", 'x', 0644, static_cast<std::int64_t>(pax.size()), "", err) ||
        !out_->Write(pax, err) || !Pad(static_cast<std::int64_t>(pax.size()), err))
      return false;
  }
  char h[kBlock] = {};
  std::memcpy(h, path.data(), std::min<std::size_t>(path.size(), 100));
  Octal(h + 100, 8, mode);
  Octal(h + 108, 8, 0);
  Octal(h + 116, 8, 0);
  Octal(h + 124, 12, size > kMaxOctalSize ? 0 : size);
  Octal(h + 136, 12, mtime_);
  std::memset(h + 148, ' ', 8);
  h[156] = type;
  std::memcpy(h + 157, link.data(), std::min<std::size_t>(link.size(), 100));
  std::memcpy(h + 257, "ustar\0" "00", 8);
  Octal(h + 329, 8, 0);
  Octal(h + 337, 8, 0);
  unsigned sum = 0;
  for (unsigned char c : h) sum += c;
  std::snprintf(h + 148, 8, "%06o", sum);
  return out_->Write(std::string_view(h, kBlock), err);
}

bool TarWriter::Directory(const std::string& path, int mode, std::string* err) {
  return Header(path + "/", '5', mode, 0, "", err);
}

bool TarWriter::Symlink(const std::string& path, const std::string& target, std::string* err) {
  return Header(path, '2', 0777, 0, target, err);
}

bool TarWriter::FileWith(const std::string& path, int mode, std::string_view contents,
                         std::string* err) {
  const auto size = static_cast<std::int64_t>(contents.size());
  return Header(path, '0', mode, size, "", err) && out_->Write(contents, err) && Pad(size, err);
}

bool TarWriter::FileFrom(const std::string& path, int mode, const std::string& source,
                         std::int64_t size, std::string* err) {
  std::unique_ptr<FILE, int (*)(FILE*)> in(std::fopen(source.c_str(), "rb"), &std::fclose);
  if (!in) {
    *err = "cannot read " + source + ": " + std::strerror(errno);
    return false;
  }
  if (!Header(path, '0', mode, size, "", err)) return false;
  std::int64_t left = size;
  char buf[1 << 16];
  while (left > 0) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::int64_t>(left, sizeof buf));
    const std::size_t n = std::fread(buf, 1, want, in.get());
    if (n == 0) {
      *err = source + " changed while it was being packaged (it is shorter than it was)";
      return false;
    }
    if (!out_->Write(std::string_view(buf, n), err)) return false;
    left -= static_cast<std::int64_t>(n);
  }
  return Pad(size, err);
}

bool TarWriter::Finish(std::string* err) {
  static const char zeros[2 * kBlock] = {};
  return out_->Write(std::string_view(zeros, sizeof zeros), err);
}

}  // namespace fiber::engine
