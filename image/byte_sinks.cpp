#include "image/byte_sinks.hpp"

#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace fiber::image {

FileSink::~FileSink() {
  if (file_) std::fclose(file_);
}

bool FileSink::Open(const std::string& path, std::string* err) {
  path_ = path;
  file_ = std::fopen(path.c_str(), "wb");
  if (!file_) *err = "cannot write " + path + ": " + std::strerror(errno);
  return file_ != nullptr;
}

bool FileSink::OpenNew(const std::string& prefix, std::string* err) {
  std::string name = prefix + "XXXXXX";
  const int fd = ::mkstemp(name.data());
  file_ = fd < 0 ? nullptr : ::fdopen(fd, "wb");
  path_ = name;
  if (!file_) {
    *err = "cannot write a file " + prefix + "...: " + std::strerror(errno);
    if (fd >= 0) ::close(fd);
  }
  return file_ != nullptr;
}

bool FileSink::Write(std::string_view bytes, std::string* err) {
  if (std::fwrite(bytes.data(), 1, bytes.size(), file_) == bytes.size()) return true;
  *err = "cannot write " + path_ + ": " + std::strerror(errno);
  return false;
}

bool FileSink::Close(std::string* err) {
  FILE* file = file_;
  file_ = nullptr;
  if (std::fclose(file) == 0) return true;
  *err = "cannot write " + path_ + ": " + std::strerror(errno);
  return false;
}

bool DigestingSink::Write(std::string_view bytes, std::string* err) {
  sha_.Update(bytes);
  size_ += static_cast<std::int64_t>(bytes.size());
  return next_->Write(bytes, err);
}

GzipSink::GzipSink(engine::ByteSink* next) : next_(next) {
  // 15 + 16: a gzip wrapper around a full-window deflate stream.
  deflateInit2(&z_, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}

GzipSink::~GzipSink() { deflateEnd(&z_); }

bool GzipSink::Deflate(int flush, std::string* err) {
  unsigned char out[1 << 16];
  int rc;
  do {
    z_.next_out = out;
    z_.avail_out = sizeof out;
    rc = deflate(&z_, flush);
    if (rc == Z_STREAM_ERROR) {
      *err = "gzip failed";
      return false;
    }
    const std::size_t n = sizeof out - z_.avail_out;
    if (n && !next_->Write(std::string_view(reinterpret_cast<char*>(out), n), err)) return false;
  } while (z_.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
  return true;
}

bool GzipSink::Write(std::string_view bytes, std::string* err) {
  z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z_.avail_in = static_cast<uInt>(bytes.size());
  return Deflate(Z_NO_FLUSH, err);
}

bool GzipSink::Finish(std::string* err) { return Deflate(Z_FINISH, err); }

}  // namespace fiber::image
