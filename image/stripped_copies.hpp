// Copies of shared libraries without their debug sections, for a packaged
// image: an unstripped libfiber alone is some 45 MB, most of every image
// fiber packages, and a worker never reads its debug information. Made with
// binutils' strip --strip-debug (symbols stay, so backtraces and
// -rdynamic's task names still read), in a scratch directory that goes
// with the object. Where strip is missing or refuses a file, there is no
// copy and the library goes into the image as it is. Not thread-safe.
//
//   StrippedCopies copies(blob_dir);
//   const std::string copy = copies.Of("/usr/lib/x86_64-linux-gnu/libzmq.so.5.2.4");
//   if (!copy.empty()) contents.ReplaceFile(real_path, copy, &bytes, &err);
#pragma once

#include <string>

namespace fiber::image {

class StrippedCopies {
 public:
  /// Copies are made in a new directory under parent (made on first use).
  explicit StrippedCopies(std::string parent);
  ~StrippedCopies();
  StrippedCopies(const StrippedCopies&) = delete;
  StrippedCopies& operator=(const StrippedCopies&) = delete;

  /// A copy of the file without debug sections, or "" when none was made.
  std::string Of(const std::string& file);

 private:
  std::string parent_;
  std::string dir_;  // "" until the first copy
  int made_ = 0;
  bool no_strip_ = false;  // strip is missing: never ask again
};

}  // namespace fiber::image
