// A tar stream written entry by entry, in the POSIX (pax) format every
// image tool and engine reads: image layers and the archives an engine
// loads (image/), a file put into a container (PUT .../archive) and a root
// filesystem imported as an image. Every entry is owned by 0:0 with no user
// or group names and the one time given, in the order written, so the bytes
// depend only on the paths, modes and contents written; an image's layer
// sorts its entries and normalizes their modes (image/layer_contents.hpp).
// Not thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace fiber::engine {

/// Where bytes go: a file, a digest, a compressor.
class ByteSink {
 public:
  virtual ~ByteSink() = default;
  [[nodiscard]] virtual bool Write(std::string_view bytes, std::string* err) = 0;
};

/// Appends to a string: a small archive kept in memory.
class StringSink : public ByteSink {
 public:
  explicit StringSink(std::string* out) : out_(out) {}
  [[nodiscard]] bool Write(std::string_view bytes, std::string*) override {
    out_->append(bytes);
    return true;
  }

 private:
  std::string* out_;
};

class TarWriter {
 public:
  TarWriter(ByteSink* out, std::int64_t mtime) : out_(out), mtime_(mtime) {}

  /// path is relative ("usr/lib"), with no trailing slash.
  [[nodiscard]] bool Directory(const std::string& path, int mode, std::string* err);
  [[nodiscard]] bool Symlink(const std::string& path, const std::string& target, std::string* err);
  /// The contents of the file at source, which must still hold size bytes.
  [[nodiscard]] bool FileFrom(const std::string& path, int mode, const std::string& source,
                              std::int64_t size, std::string* err);
  [[nodiscard]] bool FileWith(const std::string& path, int mode, std::string_view contents,
                              std::string* err);
  /// The end-of-archive blocks.
  [[nodiscard]] bool Finish(std::string* err);

 private:
  bool Header(const std::string& path, char type, int mode, std::int64_t size,
              const std::string& link, std::string* err);
  bool Pad(std::int64_t size, std::string* err);

  ByteSink* out_;
  std::int64_t mtime_;
};

}  // namespace fiber::engine
