// A tar archive (ustar) built in memory, for the engine's endpoints that take
// one: a file put into a container (PUT /containers/{id}/archive) and a root
// filesystem imported as an image. Entries are written in the order added,
// owned by 0:0 with a fixed time, so the same entries give the same bytes.
// Not thread-safe.
#pragma once

#include <string>

namespace fiber::engine {

class TarWriter {
 public:
  /// A directory entry; path without a trailing slash ("run/fiber").
  void AddDirectory(const std::string& path, int mode);
  /// A regular file with these contents.
  void AddFile(const std::string& path, int mode, const std::string& contents);
  /// A symbolic link at path pointing to target.
  void AddSymlink(const std::string& path, const std::string& target);
  /// The archive, ended by its two zero blocks; false with *err when a path
  /// is too long for ustar (255 bytes, or a name over 100 past the last /).
  [[nodiscard]] bool Finish(std::string* out, std::string* err);

 private:
  void Add(const std::string& path, char type, int mode, const std::string& link,
           const std::string& contents);
  std::string bytes_;
  std::string too_long_;  // the first path that did not fit
};

}  // namespace fiber::engine
