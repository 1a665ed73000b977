#include "os/elf_file.hpp"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>

namespace fiber::os {

namespace {

constexpr std::uint32_t kPtInterp = 3;
constexpr std::uint16_t kEtExec = 2, kEtDyn = 3;

// Reads integers of the file's own byte order from a buffer.
struct Fields {
  const std::string& bytes;
  bool little;
  std::uint64_t Get(std::size_t at, int size) const {
    std::uint64_t v = 0;
    for (int i = 0; i < size; ++i) {
      const auto byte = static_cast<unsigned char>(bytes[at + (little ? size - 1 - i : i)]);
      v = (v << 8) | byte;
    }
    return v;
  }
};

const char* Architecture(std::uint16_t machine, bool wide, bool little) {
  switch (machine) {
    case 62: return "amd64";
    case 183: return "arm64";
    case 3: return "386";
    case 40: return "arm";
    case 21: return wide && little ? "ppc64le" : nullptr;
    case 22: return wide ? "s390x" : nullptr;
    case 243: return wide ? "riscv64" : nullptr;
    default: return nullptr;
  }
}

}  // namespace

bool ReadElfFile(const std::string& path, ElfFile* out, std::string* err) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *err = "cannot read " + path + ": " + std::strerror(errno);
    return false;
  }
  // Reads size bytes at offset; false when the file is shorter.
  const auto read_at = [&in](std::uint64_t offset, std::uint64_t size, std::string* bytes) {
    bytes->assign(size, '\0');
    in.clear();
    in.seekg(static_cast<std::streamoff>(offset));
    return in.read(bytes->data(), static_cast<std::streamsize>(size)).gcount() ==
           static_cast<std::streamsize>(size);
  };
  std::string header;
  const std::string not_elf = path + " is not an ELF executable";
  if (!read_at(0, 64, &header) || header.compare(0, 4, "\x7f" "ELF") != 0) {
    *err = not_elf + (header.compare(0, 2, "#!") == 0 ? " (it is a script)" : "");
    return false;
  }
  const bool wide = header[4] == 2;
  const bool little = header[5] == 1;
  const Fields f{header, little};
  const auto type = static_cast<std::uint16_t>(f.Get(16, 2));
  if (type != kEtExec && type != kEtDyn) {
    *err = not_elf + " (an object file or core dump)";
    return false;
  }
  const auto machine = static_cast<std::uint16_t>(f.Get(18, 2));
  const char* arch = Architecture(machine, wide, little);
  if (!arch) {
    *err = path + " is built for a machine fiber cannot name for an image (ELF machine " +
           std::to_string(machine) + ")";
    return false;
  }
  out->architecture = arch;
  out->interpreter.clear();
  const std::uint64_t phoff = f.Get(wide ? 32 : 28, wide ? 8 : 4);
  const std::uint64_t phentsize = f.Get(wide ? 54 : 42, 2);
  const std::uint64_t phnum = f.Get(wide ? 56 : 44, 2);
  std::string headers;
  if (phentsize < (wide ? 56u : 32u) || !read_at(phoff, phnum * phentsize, &headers)) {
    *err = not_elf + " (its program headers are cut short)";
    return false;
  }
  const Fields ph{headers, little};
  for (std::uint64_t at = 0; at < headers.size(); at += phentsize) {
    if (ph.Get(at, 4) != kPtInterp) continue;
    const std::uint64_t offset = ph.Get(at + (wide ? 8 : 4), wide ? 8 : 4);
    const std::uint64_t size = ph.Get(at + (wide ? 32 : 16), wide ? 8 : 4);
    std::string interp;
    if (size > 4096 || !read_at(offset, size, &interp)) {
      *err = not_elf + " (its interpreter's name is cut short)";
      return false;
    }
    out->interpreter = interp.substr(0, interp.find('\0'));
  }
  return true;
}

}  // namespace fiber::os
