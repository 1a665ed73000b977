#include "encoding/base64.hpp"

namespace fiber {

namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int Value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

}  // namespace

std::string Base64Encode(std::string_view bytes) {
  std::string out;
  out.reserve(4 * ((bytes.size() + 2) / 3));
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t n = bytes.size() - i < 3 ? bytes.size() - i : 3;
    unsigned group = static_cast<unsigned char>(bytes[i]) << 16;
    if (n > 1) group |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    if (n > 2) group |= static_cast<unsigned char>(bytes[i + 2]);
    out += kAlphabet[(group >> 18) & 63];
    out += kAlphabet[(group >> 12) & 63];
    out += n > 1 ? kAlphabet[(group >> 6) & 63] : '=';
    out += n > 2 ? kAlphabet[group & 63] : '=';
  }
  return out;
}

bool Base64Decode(std::string_view text, std::string* bytes) {
  bytes->clear();
  unsigned group = 0;
  int count = 0;    // characters in the group so far
  int padding = 0;  // '=' seen; only at the end of the last group
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    if (c == '=') {
      if (count < 2) return false;
      ++padding;
      ++count;
    } else {
      const int v = Value(c);
      if (v < 0 || padding > 0) return false;
      group = (group << 6) | static_cast<unsigned>(v);
      ++count;
    }
    if (count == 4) {
      group <<= 6 * padding;
      bytes->push_back(static_cast<char>((group >> 16) & 255));
      if (padding < 2) bytes->push_back(static_cast<char>((group >> 8) & 255));
      if (padding < 1) bytes->push_back(static_cast<char>(group & 255));
      group = 0;
      count = 0;
      if (padding > 0) padding = -1;  // nothing may follow a padded group
    } else if (padding < 0) {
      return false;
    }
  }
  return count == 0;
}

}  // namespace fiber
