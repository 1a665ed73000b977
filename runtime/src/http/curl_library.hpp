// libcurl, loaded when the first exchange starts rather than linked: every
// worker process runs this library too, and libcurl's thirty-odd libraries
// (TLS, Kerberos, LDAP, ...) would double the time each worker takes to
// start. The functions fiber calls, for http::Perform and http::StreamSet.
#pragma once

#include <curl/curl.h>

#include <string>

namespace fiber::http {

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
  CURLM* (*multi_init)();
  CURLMcode (*multi_add_handle)(CURLM*, CURL*);
  CURLMcode (*multi_remove_handle)(CURLM*, CURL*);
  CURLMcode (*multi_perform)(CURLM*, int*);
  CURLMcode (*multi_poll)(CURLM*, curl_waitfd*, unsigned, int, int*);
  CURLMcode (*multi_wakeup)(CURLM*);
  CURLMsg* (*multi_info_read)(CURLM*, int*);
  CURLMcode (*multi_cleanup)(CURLM*);
};

/// The loaded library (once per process), or nullptr with *err saying
/// what is missing.
const Curl* LoadCurl(std::string* err);

}  // namespace fiber::http
