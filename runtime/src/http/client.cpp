#include "http/client.hpp"

#include <curl/curl.h>
#include <dlfcn.h>
#include <openssl/crypto.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <type_traits>

#include "http/header_text.hpp"

namespace fiber::http {

namespace {

// libcurl is loaded when the first exchange starts, not linked: every
// worker process runs this library too, and libcurl's thirty-odd libraries
// (TLS, Kerberos, LDAP, ...) would double the time each worker takes to start.
struct Curl {
  CURLcode (*global_init)(long);
  CURL* (*easy_init)();
  CURLcode (*easy_setopt)(CURL*, CURLoption, ...);
  CURLcode (*easy_perform)(CURL*);
  CURLcode (*easy_getinfo)(CURL*, CURLINFO, ...);
  void (*easy_cleanup)(CURL*);
  const char* (*easy_strerror)(CURLcode);
  curl_slist* (*slist_append)(curl_slist*, const char*);
  void (*slist_free_all)(curl_slist*);
};

// OpenSSL (libcurl's TLS) cleans itself up from an atexit handler, which it
// registers when first used: after the static objects that made the first
// request, so it would run before their destructors, which may still make
// requests (the master's run ending its pods), and pull OpenSSL away under
// them. Asked before its first use, it leaves that to the process's end.
void KeepOpenSslToTheEnd() {
  void* crypto = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_NOLOAD);
  if (!crypto) return;  // libcurl without OpenSSL 3
  using Init = int (*)(std::uint64_t, const void*);
  if (auto init = reinterpret_cast<Init>(dlsym(crypto, "OPENSSL_init_crypto")))
    (void)init(OPENSSL_INIT_NO_ATEXIT, nullptr);
  dlclose(crypto);
}

// The loaded library, or nullptr with *err saying what is missing.
const Curl* LoadCurl(std::string* err) {
  static Curl curl;
  static std::string failure;
  static std::once_flag once;
  std::call_once(once, [] {
    void* lib = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      failure = std::string("HTTP needs libcurl, which cannot be loaded (") + dlerror() +
                "); install the libcurl4 package";
      return;
    }
    bool ok = true;
    auto bind = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
      ok = ok && fn != nullptr;
    };
    bind(curl.global_init, "curl_global_init");
    bind(curl.easy_init, "curl_easy_init");
    bind(curl.easy_setopt, "curl_easy_setopt");
    bind(curl.easy_perform, "curl_easy_perform");
    bind(curl.easy_getinfo, "curl_easy_getinfo");
    bind(curl.easy_cleanup, "curl_easy_cleanup");
    bind(curl.easy_strerror, "curl_easy_strerror");
    bind(curl.slist_append, "curl_slist_append");
    bind(curl.slist_free_all, "curl_slist_free_all");
    if (!ok) {
      failure = "the libcurl.so.4 found lacks functions fiber needs; install libcurl 7.77 or later";
      return;
    }
    KeepOpenSslToTheEnd();
    curl.global_init(CURL_GLOBAL_DEFAULT);
  });
  if (!failure.empty()) {
    *err = failure;
    return nullptr;
  }
  return &curl;
}


struct Exchange {
  const Request* request;
  Response* response;
  bool stopped = false;
  std::size_t header_bytes = 0;
  bool too_large = false;  // passed kMaxAnswerBytes
  // What a callback of the caller threw: held while curl unwinds its own
  // frames (an exception must not cross them), then thrown on in Perform.
  std::exception_ptr thrown{};
};

// Calls f, a caller's callback, from inside curl; false once it threw.
template <class F>
bool Guarded(Exchange* ex, F&& f) {
  try {
    f();
    return true;
  } catch (...) {
    ex->thrown = std::current_exception();
    ex->stopped = true;
    return false;
  }
}

size_t OnBody(char* data, size_t size, size_t count, void* user) {
  auto* ex = static_cast<Exchange*>(user);
  const size_t n = size * count;
  if (ex->request->on_body) {
    bool more = false;
    if (!Guarded(ex, [&] { more = ex->request->on_body(std::string_view(data, n)); })) return 0;
    if (!more) {
      ex->stopped = true;
      return 0;  // makes curl end the exchange
    }
  } else if (ex->response->body.size() + n > kMaxAnswerBytes) {
    ex->too_large = true;
    return 0;
  } else {
    ex->response->body.append(data, n);
  }
  return n;
}

size_t OnHeader(char* data, size_t size, size_t count, void* user) {
  auto* ex = static_cast<Exchange*>(user);
  const std::string_view line(data, size * count);
  // libcurl 7.84 and later stop at 300 KiB of headers themselves.
  ex->header_bytes += line.size();
  if (ex->header_bytes > kMaxAnswerBytes) {
    ex->too_large = true;
    return 0;
  }
  if (line.rfind("HTTP/", 0) == 0) {
    ex->response->headers.clear();  // a new response (after 100 Continue or a redirect)
    // "HTTP/1.1 403 Forbidden": known before the body, for on_body.
    if (auto space = line.find(' '); space != std::string_view::npos)
      ex->response->status = std::strtol(std::string(line.substr(space + 1, 3)).c_str(), nullptr, 10);
  } else if ((line == "\r\n" || line == "\n") && ex->response->status >= 200) {
    if (ex->request->on_headers &&
        !Guarded(ex, [&] { ex->request->on_headers(*ex->response); }))
      return 0;
  } else if (auto colon = line.find(':'); colon != std::string_view::npos) {
    ex->response->headers[Lower(Trim(line.substr(0, colon)))] =
        std::string(Trim(line.substr(colon + 1)));
  }
  return size * count;
}

// libcurl calls it about once a second even while no data moves.
int OnProgress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* ex = static_cast<Exchange*>(user);
  if (!ex->request->cancel || !ex->request->cancel->load()) return 0;
  ex->stopped = true;
  return 1;  // makes curl end the exchange
}

struct FileCloser {
  void operator()(FILE* f) const { std::fclose(f); }
};

void SetBlob(const Curl& cu, CURL* c, CURLoption option, const std::string& pem) {
  curl_blob blob{const_cast<char*>(pem.data()), pem.size(), CURL_BLOB_COPY};
  cu.easy_setopt(c, option, &blob);
}

}  // namespace

std::string Response::header(std::string_view name) const {
  auto it = headers.find(Lower(name));
  return it == headers.end() ? "" : it->second;
}

bool Perform(const Request& request, Response* response, std::string* err) {
  const Curl* cu = LoadCurl(err);
  if (!cu) return false;
  std::unique_ptr<CURL, void (*)(CURL*)> handle(cu->easy_init(), cu->easy_cleanup);
  if (!handle) {
    *err = "cannot start an HTTP exchange (libcurl failed to initialise)";
    return false;
  }
  CURL* c = handle.get();
  *response = Response{};
  Exchange ex{.request = &request, .response = response};
  char reason[CURL_ERROR_SIZE] = {0};

  cu->easy_setopt(c, CURLOPT_URL, request.url.c_str());
  if (!request.unix_socket.empty())
    cu->easy_setopt(c, CURLOPT_UNIX_SOCKET_PATH, request.unix_socket.c_str());
  cu->easy_setopt(c, CURLOPT_ERRORBUFFER, reason);
  cu->easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  cu->easy_setopt(c, CURLOPT_WRITEFUNCTION, OnBody);
  cu->easy_setopt(c, CURLOPT_WRITEDATA, &ex);
  cu->easy_setopt(c, CURLOPT_HEADERFUNCTION, OnHeader);
  cu->easy_setopt(c, CURLOPT_HEADERDATA, &ex);
  cu->easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, request.connect_timeout_ms);
  cu->easy_setopt(c, CURLOPT_TIMEOUT_MS, request.timeout_ms);
  // Only the protocols fiber speaks; a redirect may not switch to others.
  cu->easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  cu->easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");

  std::unique_ptr<curl_slist, void (*)(curl_slist*)> headers(nullptr, cu->slist_free_all);
  for (const auto& h : request.headers) {
    curl_slist* next = cu->slist_append(headers.get(), h.c_str());
    if (next) {
      (void)headers.release();
      headers.reset(next);
    }
  }
  // No "Expect: 100-continue" pause before large bodies.
  if (curl_slist* next = cu->slist_append(headers.get(), "Expect:")) {
    (void)headers.release();
    headers.reset(next);
  }
  cu->easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());

  std::unique_ptr<FILE, FileCloser> upload;
  if (!request.body_file.empty()) {
    upload.reset(std::fopen(request.body_file.c_str(), "rb"));
    if (!upload) {
      *err = "cannot read " + request.body_file + " to send it";
      return false;
    }
    std::fseek(upload.get(), 0, SEEK_END);
    const long size = std::ftell(upload.get());
    std::rewind(upload.get());
    cu->easy_setopt(c, CURLOPT_UPLOAD, 1L);
    cu->easy_setopt(c, CURLOPT_READDATA, upload.get());
    cu->easy_setopt(c, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(size));
    cu->easy_setopt(c, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  } else if (request.method == "GET") {
    cu->easy_setopt(c, CURLOPT_HTTPGET, 1L);
  } else if (request.method == "HEAD") {
    cu->easy_setopt(c, CURLOPT_NOBODY, 1L);
  } else {
    cu->easy_setopt(c, CURLOPT_CUSTOMREQUEST, request.method.c_str());
    cu->easy_setopt(c, CURLOPT_POSTFIELDS, request.body.data());
    cu->easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  }

  if (!request.ca_pem.empty()) SetBlob(*cu, c, CURLOPT_CAINFO_BLOB, request.ca_pem);
  if (!request.client_cert_pem.empty()) SetBlob(*cu, c, CURLOPT_SSLCERT_BLOB, request.client_cert_pem);
  if (!request.client_key_pem.empty()) SetBlob(*cu, c, CURLOPT_SSLKEY_BLOB, request.client_key_pem);
  if (request.insecure_skip_verify) {
    cu->easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
    cu->easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
  }

  if (request.cancel) {
    cu->easy_setopt(c, CURLOPT_XFERINFOFUNCTION, OnProgress);
    cu->easy_setopt(c, CURLOPT_XFERINFODATA, &ex);
    cu->easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
  }
  const CURLcode rc = cu->easy_perform(c);
  if (ex.thrown) std::rethrow_exception(ex.thrown);
  cu->easy_getinfo(c, CURLINFO_RESPONSE_CODE, &response->status);
  if (rc == CURLE_OK || ((rc == CURLE_WRITE_ERROR || rc == CURLE_ABORTED_BY_CALLBACK) && ex.stopped))
    return true;
  const std::string where = request.unix_socket.empty() ? request.url : request.unix_socket;
  if (ex.too_large) {
    *err = where + ": the answer is larger than " + std::to_string(kMaxAnswerBytes >> 20) +
           " MiB, more than fiber reads of one answer";
    return false;
  }
  *err = where + ": " + (reason[0] ? reason : cu->easy_strerror(rc));
  return false;
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
