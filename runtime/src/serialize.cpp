#include "fiber/serialize.hpp"

#include <streambuf>

namespace fiber::detail {

namespace {

// Appends what cereal writes to a string.
class StringSink : public std::streambuf {
 public:
  std::string* out = nullptr;

 protected:
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    out->append(s, static_cast<std::size_t>(n));
    return n;
  }
  int_type overflow(int_type c) override {
    if (!traits_type::eq_int_type(c, traits_type::eof())) out->push_back(traits_type::to_char_type(c));
    return traits_type::not_eof(c);
  }
};

// Serves bytes that live elsewhere, without copying them.
class ViewSource : public std::streambuf {
 public:
  std::string_view bytes() const { return {eback(), static_cast<std::size_t>(egptr() - eback())}; }
  std::size_t pos() const { return static_cast<std::size_t>(gptr() - eback()); }
  void set(std::string_view bytes, std::size_t pos) {
    char* p = const_cast<char*>(bytes.data());  // only ever read
    setg(p, p + pos, p + bytes.size());
  }
};

struct Streams {
  StringSink sink;
  std::ostream out{&sink};
  ViewSource source;
  std::istream in{&source};
};

Streams& streams() {
  thread_local Streams s;
  return s;
}

}  // namespace

// Nesting (a serialize function that encodes or decodes something itself)
// restores the outer stream's target and position when the inner one ends.
OutputStream::OutputStream(std::string* out) {
  Streams& s = streams();
  previous_ = s.sink.out;
  s.sink.out = out;
  s.out.clear();
  stream_ = &s.out;
}

OutputStream::~OutputStream() { streams().sink.out = previous_; }

InputStream::InputStream(std::string_view bytes) {
  Streams& s = streams();
  previous_ = s.source.bytes();
  previous_pos_ = s.source.pos();
  s.source.set(bytes, 0);
  s.in.clear();
  stream_ = &s.in;
}

InputStream::~InputStream() {
  Streams& s = streams();
  s.source.set(previous_, previous_pos_);
  s.in.clear();
}

}  // namespace fiber::detail
