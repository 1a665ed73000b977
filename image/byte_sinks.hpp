// The sinks a layer and an archive are written through: a file, a digest
// counted on the way, and gzip. A layer is tar -> digest (its diff_id) ->
// gzip -> digest (the blob's) -> file, in one pass over the files.
#pragma once

#include <zlib.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "image/sha256.hpp"
#include "engine/tar_writer.hpp"

namespace fiber::image {

/// Writes to a file it creates (truncating), closed by Close or on destruction.
class FileSink : public engine::ByteSink {
 public:
  ~FileSink() override;
  [[nodiscard]] bool Open(const std::string& path, std::string* err);
  /// Creates a new file named prefix + six random characters (mkstemp);
  /// its name is path().
  [[nodiscard]] bool OpenNew(const std::string& prefix, std::string* err);
  const std::string& path() const { return path_; }
  [[nodiscard]] bool Write(std::string_view bytes, std::string* err) override;
  /// Flushes and closes; false with *err when the data did not all reach the file.
  [[nodiscard]] bool Close(std::string* err);

 private:
  std::string path_;
  FILE* file_ = nullptr;
};

/// Passes bytes on to next, counting them and their digest.
class DigestingSink : public engine::ByteSink {
 public:
  explicit DigestingSink(engine::ByteSink* next) : next_(next) {}
  [[nodiscard]] bool Write(std::string_view bytes, std::string* err) override;
  std::int64_t size() const { return size_; }
  std::string Digest() { return sha_.Digest(); }

 private:
  engine::ByteSink* next_;
  Sha256 sha_;
  std::int64_t size_ = 0;
};

/// Compresses to next as a gzip stream through zlib, whose header carries
/// no file name and time 0, so the same bytes in give the same bytes out.
class GzipSink : public engine::ByteSink {
 public:
  explicit GzipSink(engine::ByteSink* next);
  ~GzipSink() override;
  GzipSink(const GzipSink&) = delete;
  GzipSink& operator=(const GzipSink&) = delete;
  [[nodiscard]] bool Write(std::string_view bytes, std::string* err) override;
  /// Ends the stream; nothing may be written after.
  [[nodiscard]] bool Finish(std::string* err);

 private:
  bool Deflate(int flush, std::string* err);
  engine::ByteSink* next_;
  z_stream z_{};
};

}  // namespace fiber::image
