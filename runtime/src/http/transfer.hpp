// One exchange's libcurl handle, set up from a Request, with everything its
// options point to: performed at once by http::Perform, or among others by
// http::StreamSet. The Request and Response must outlive it.
#pragma once

#include <curl/curl.h>

#include <cstdio>
#include <exception>
#include <memory>
#include <string>

#include "http/client.hpp"
#include "http/curl_library.hpp"

namespace fiber::http {

class Transfer {
 public:
  /// Ready to perform; nullptr with *err when libcurl cannot be loaded or
  /// started, or the body file cannot be read.
  static std::unique_ptr<Transfer> Make(const Request& request, Response* response, std::string* err);
  ~Transfer();
  Transfer(const Transfer&) = delete;
  Transfer& operator=(const Transfer&) = delete;

  CURL* handle() const { return handle_; }
  const Curl& curl() const { return cu_; }
  /// Once curl ended it with rc: Perform's result (true for any HTTP
  /// answer, or one a callback stopped), *err naming the cause otherwise.
  [[nodiscard]] bool Finish(CURLcode rc, std::string* err);
  /// What a callback of the caller threw (held while curl unwound its own
  /// frames), or null.
  std::exception_ptr thrown() const { return thrown_; }

 private:
  friend struct TransferCallbacks;
  Transfer(const Curl& cu, const Request& request, Response* response)
      : cu_(cu), request_(request), response_(response) {}
  // Calls f, a caller's callback, from inside curl; false once it threw.
  template <class F>
  bool Guarded(F&& f) {
    try {
      f();
      return true;
    } catch (...) {
      thrown_ = std::current_exception();
      stopped_ = true;
      return false;
    }
  }

  const Curl& cu_;
  const Request& request_;
  Response* response_;
  CURL* handle_ = nullptr;
  curl_slist* headers_ = nullptr;
  std::FILE* upload_ = nullptr;
  char reason_[CURL_ERROR_SIZE] = {0};
  bool stopped_ = false;  // by a callback, or a cancel
  std::size_t header_bytes_ = 0;
  bool too_large_ = false;  // passed kMaxAnswerBytes
  std::exception_ptr thrown_{};
};

}  // namespace fiber::http
