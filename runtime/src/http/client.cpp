#include "http/client.hpp"

#include <cctype>

#include "http/header_text.hpp"
#include "http/transfer.hpp"

namespace fiber::http {

std::string Response::header(std::string_view name) const {
  auto it = headers.find(Lower(name));
  return it == headers.end() ? "" : it->second;
}

bool Perform(const Request& request, Response* response, std::string* err) {
  const std::unique_ptr<Transfer> t = Transfer::Make(request, response, err);
  if (!t) return false;
  const CURLcode rc = t->curl().easy_perform(t->handle());
  if (t->thrown()) std::rethrow_exception(t->thrown());
  return t->Finish(rc, err);
}

std::string Escape(std::string_view text) {
  std::string out;
  static const char kHex[] = "0123456789ABCDEF";
  for (unsigned char ch : text) {
    if (std::isalnum(ch) || ch == '-' || ch == '_' || ch == '.' || ch == '~') {
      out += static_cast<char>(ch);
    } else {
      out += '%';
      out += kHex[ch >> 4];
      out += kHex[ch & 15];
    }
  }
  return out;
}

}  // namespace fiber::http
