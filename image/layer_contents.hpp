// The files of an image's one layer, gathered from this machine at the same
// absolute paths, so the dynamic loader finds each library where the program
// was linked to look, and $ORIGIN still means what it meant. A symbolic link
// met on the way to a file (/lib -> usr/lib, libfoo.so.1 -> libfoo.so.1.2)
// is kept as a link and its target added too; directories are added with
// every parent. Modes are normalized: 0755 for directories and executable
// files, 0644 for other files. Written out sorted by path (WriteTo), so the
// order in which things were added does not matter. Not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "engine/tar_writer.hpp"

namespace fiber::image {

class LayerContents {
 public:
  /// Adds the file or directory at the absolute path (a directory with all
  /// it holds), with the links and parents on its way; false with *err when
  /// it is missing or neither a file, a directory nor a link.
  /// *bytes: the size of the files this call added.
  [[nodiscard]] bool Add(const std::string& path, std::int64_t* bytes, std::string* err);
  /// Takes the bytes of the file added at the absolute path path (no link
  /// on the way: a realpath) from source instead (a stripped copy, which
  /// must stay until WriteTo); false with *err when path is no file added
  /// or source cannot be read. *bytes: source's size.
  [[nodiscard]] bool ReplaceFile(const std::string& path, const std::string& source,
                                 std::int64_t* bytes, std::string* err);
  /// An empty directory (e.g. /tmp, 01777).
  void AddDirectory(const std::string& path, int mode);

  /// Writes every entry, sorted by path, through tar.
  [[nodiscard]] bool WriteTo(engine::TarWriter* tar, std::string* err) const;

 private:
  struct Entry {
    char type;  // '0' file, '2' link, '5' directory
    int mode = 0;
    std::int64_t size = 0;
    std::string link;  // a link's target
    std::string source;  // a file's bytes on this machine; empty: its own path
  };
  bool Resolve(const std::string& path, int depth, std::int64_t* bytes, std::string* err);
  bool Walk(const std::string& dir, int depth, std::int64_t* bytes, std::string* err);
  void Parents(const std::string& relative);

  std::map<std::string, Entry> entries_;  // by path without the leading '/'
  std::set<std::string> walked_;          // directories whose contents are in
};

}  // namespace fiber::image
