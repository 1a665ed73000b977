#include "http/transfer.hpp"

#include <cstdlib>

#include "http/header_text.hpp"

namespace fiber::http {

// libcurl's callbacks, with the Transfer as their user data.
struct TransferCallbacks {
  static size_t OnBody(char* data, size_t size, size_t count, void* user) {
    auto* t = static_cast<Transfer*>(user);
    const size_t n = size * count;
    if (t->request_.on_body) {
      bool more = false;
      if (!t->Guarded([&] { more = t->request_.on_body(std::string_view(data, n)); })) return 0;
      if (!more) {
        t->stopped_ = true;
        return 0;  // makes curl end the exchange
      }
    } else if (t->response_->body.size() + n > kMaxAnswerBytes) {
      t->too_large_ = true;
      return 0;
    } else {
      t->response_->body.append(data, n);
    }
    return n;
  }

  static size_t OnHeader(char* data, size_t size, size_t count, void* user) {
    auto* t = static_cast<Transfer*>(user);
    Response& r = *t->response_;
    const std::string_view line(data, size * count);
    // libcurl 7.84 and later stop at 300 KiB of headers themselves.
    t->header_bytes_ += line.size();
    if (t->header_bytes_ > kMaxAnswerBytes) {
      t->too_large_ = true;
      return 0;
    }
    if (line.rfind("HTTP/", 0) == 0) {
      r.headers.clear();  // a new response (after 100 Continue or a redirect)
      // "HTTP/1.1 403 Forbidden": known before the body, for on_body.
      if (auto space = line.find(' '); space != std::string_view::npos)
        r.status = std::strtol(std::string(line.substr(space + 1, 3)).c_str(), nullptr, 10);
    } else if ((line == "\r\n" || line == "\n") && r.status >= 200) {
      if (t->request_.on_headers && !t->Guarded([&] { t->request_.on_headers(r); })) return 0;
    } else if (auto colon = line.find(':'); colon != std::string_view::npos) {
      r.headers[Lower(Trim(line.substr(0, colon)))] = std::string(Trim(line.substr(colon + 1)));
    }
    return size * count;
  }

  // libcurl calls it about once a second even while no data moves.
  static int OnProgress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
    auto* t = static_cast<Transfer*>(user);
    if (!t->request_.cancel || !t->request_.cancel->load()) return 0;
    t->stopped_ = true;
    return 1;  // makes curl end the exchange
  }
};

namespace {

void SetBlob(const Curl& cu, CURL* c, CURLoption option, const std::string& pem) {
  curl_blob blob{const_cast<char*>(pem.data()), pem.size(), CURL_BLOB_COPY};
  cu.easy_setopt(c, option, &blob);
}

}  // namespace

std::unique_ptr<Transfer> Transfer::Make(const Request& request, Response* response, std::string* err) {
  const Curl* cu = LoadCurl(err);
  if (!cu) return nullptr;
  std::unique_ptr<Transfer> t(new Transfer(*cu, request, response));
  t->handle_ = cu->easy_init();
  if (!t->handle_) {
    *err = "cannot start an HTTP exchange (libcurl failed to initialise)";
    return nullptr;
  }
  CURL* c = t->handle_;
  *response = Response{};
  cu->easy_setopt(c, CURLOPT_PRIVATE, t.get());
  cu->easy_setopt(c, CURLOPT_URL, request.url.c_str());
  if (!request.unix_socket.empty()) cu->easy_setopt(c, CURLOPT_UNIX_SOCKET_PATH, request.unix_socket.c_str());
  cu->easy_setopt(c, CURLOPT_ERRORBUFFER, t->reason_);
  cu->easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  cu->easy_setopt(c, CURLOPT_WRITEFUNCTION, TransferCallbacks::OnBody);
  cu->easy_setopt(c, CURLOPT_WRITEDATA, t.get());
  cu->easy_setopt(c, CURLOPT_HEADERFUNCTION, TransferCallbacks::OnHeader);
  cu->easy_setopt(c, CURLOPT_HEADERDATA, t.get());
  cu->easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, request.connect_timeout_ms);
  cu->easy_setopt(c, CURLOPT_TIMEOUT_MS, request.timeout_ms);
  // Only the protocols fiber speaks; a redirect may not switch to others.
  cu->easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  cu->easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");

  for (const std::string& h : request.headers)
    if (curl_slist* next = cu->slist_append(t->headers_, h.c_str())) t->headers_ = next;
  // No "Expect: 100-continue" pause before large bodies.
  if (curl_slist* next = cu->slist_append(t->headers_, "Expect:")) t->headers_ = next;
  cu->easy_setopt(c, CURLOPT_HTTPHEADER, t->headers_);

  if (!request.body_file.empty()) {
    t->upload_ = std::fopen(request.body_file.c_str(), "rb");
    if (!t->upload_) {
      *err = "cannot read " + request.body_file + " to send it";
      return nullptr;
    }
    std::fseek(t->upload_, 0, SEEK_END);
    const long size = std::ftell(t->upload_);
    std::rewind(t->upload_);
    cu->easy_setopt(c, CURLOPT_UPLOAD, 1L);
    cu->easy_setopt(c, CURLOPT_READDATA, t->upload_);
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
    cu->easy_setopt(c, CURLOPT_XFERINFOFUNCTION, TransferCallbacks::OnProgress);
    cu->easy_setopt(c, CURLOPT_XFERINFODATA, t.get());
    cu->easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
  }
  return t;
}

Transfer::~Transfer() {
  if (handle_) cu_.easy_cleanup(handle_);
  if (headers_) cu_.slist_free_all(headers_);
  if (upload_) std::fclose(upload_);
}

bool Transfer::Finish(CURLcode rc, std::string* err) {
  cu_.easy_getinfo(handle_, CURLINFO_RESPONSE_CODE, &response_->status);
  if (rc == CURLE_OK || ((rc == CURLE_WRITE_ERROR || rc == CURLE_ABORTED_BY_CALLBACK) && stopped_))
    return true;
  const std::string where = request_.unix_socket.empty() ? request_.url : request_.unix_socket;
  if (too_large_) {
    *err = where + ": the answer is larger than " + std::to_string(kMaxAnswerBytes >> 20) +
           " MiB, more than fiber reads of one answer";
    return false;
  }
  *err = where + ": " + (reason_[0] ? reason_ : cu_.easy_strerror(rc));
  return false;
}

}  // namespace fiber::http
