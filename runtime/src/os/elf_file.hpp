// What fiber needs to know of an executable before anything runs it: that
// it is an ELF executable, which machine it is built for (an image's
// architecture), and which dynamic loader it names (none: static). Read by
// the image packager and by the container backend, to name a loader missing
// from an image.
#pragma once

#include <string>

namespace fiber::os {

struct ElfFile {
  /// The image platform's name for the machine: "amd64", "arm64", ...
  std::string architecture;
  /// PT_INTERP, the dynamic loader's path; empty for a static executable.
  std::string interpreter;
};

/// Reads path's ELF header and program headers; false with *err ("PATH is
/// not an ELF executable (...)", "cannot read PATH: ...") otherwise.
[[nodiscard]] bool ReadElfFile(const std::string& path, ElfFile* out, std::string* err);

}  // namespace fiber::os
