#include "http/curl_library.hpp"

#include <dlfcn.h>
#include <openssl/crypto.h>

#include <cstdint>
#include <mutex>
#include <type_traits>

namespace fiber::http {

namespace {

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

}  // namespace

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
    bind(curl.multi_init, "curl_multi_init");
    bind(curl.multi_add_handle, "curl_multi_add_handle");
    bind(curl.multi_remove_handle, "curl_multi_remove_handle");
    bind(curl.multi_perform, "curl_multi_perform");
    bind(curl.multi_poll, "curl_multi_poll");
    bind(curl.multi_wakeup, "curl_multi_wakeup");
    bind(curl.multi_info_read, "curl_multi_info_read");
    bind(curl.multi_cleanup, "curl_multi_cleanup");
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

}  // namespace fiber::http
