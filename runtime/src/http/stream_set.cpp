#include "http/stream_set.hpp"

#include "http/transfer.hpp"
#include "os/background_thread.hpp"
#include "os/mutex.hpp"

namespace fiber::http {

namespace {
// The longest the thread sleeps with nothing to do: it wakes at once for
// Add and Cancel (curl_multi_wakeup), and libcurl's own timers are shorter.
constexpr int kPollMs = 1000;
}  // namespace

struct StreamSet::Exchange {
  Id id = 0;
  Request request;
  Response response;
  OnEnd on_end;
  std::unique_ptr<Transfer> transfer;
};

StreamSet::StreamSet() = default;

StreamSet::~StreamSet() {
  {
    os::MutexLock lock(mu_);
    stopping_ = true;
  }
  if (multi_) curl_->multi_wakeup(static_cast<CURLM*>(multi_));
  if (thread_.joinable()) thread_.join();
  if (multi_) curl_->multi_cleanup(static_cast<CURLM*>(multi_));
}

StreamSet::Id StreamSet::Add(Request request, OnEnd on_end) {
  auto ex = std::make_unique<Exchange>();
  ex->request = std::move(request);
  ex->on_end = std::move(on_end);
  std::string err;
  const Curl* cu = LoadCurl(&err);
  os::MutexLock lock(mu_);
  ex->id = next_++;
  const Id id = ex->id;
  curl_ = cu;
  if (cu && !multi_ && !(multi_ = cu->multi_init())) err = "cannot follow HTTP streams (libcurl failed to initialise)";
  if (!cu || !multi_ || stopping_) {
    lock.Unlock();
    ex->on_end(false, ex->response, err.empty() ? "the stream set is ending" : err);
    return id;
  }
  open_.insert(id);
  added_.push_back(std::move(ex));
  if (!thread_.joinable())
    thread_ = StartBackgroundThread([this] { Loop(); }, [this](const std::string& what) {
      EndAll("an internal error (" + what + ")");
    });
  lock.Unlock();
  cu->multi_wakeup(static_cast<CURLM*>(multi_));
  return id;
}

void StreamSet::Cancel(Id id) {
  os::MutexLock lock(mu_);
  if (!open_.count(id)) return;
  cancelled_.push_back(id);
  curl_->multi_wakeup(static_cast<CURLM*>(multi_));
  lock.Wait(ended_, [&]() FIBER_REQUIRES(mu_) { return !open_.count(id); });
}

std::size_t StreamSet::open() const {
  os::MutexLock lock(mu_);
  return open_.size();
}

void StreamSet::End(Id id, Exchange& ex, bool answered, const std::string& err) {
  try {
    ex.on_end(answered, ex.response, err);
  } catch (...) {
    // Its owner's failure to take the news: the others go on.
  }
  os::MutexLock lock(mu_);
  open_.erase(id);
  ended_.notify_all();
}

void StreamSet::EndAll(const std::string& err) {
  const Curl& cu = *curl_;
  for (auto& [handle, ex] : running_) {
    cu.multi_remove_handle(static_cast<CURLM*>(multi_), static_cast<CURL*>(handle));
    End(ex->id, *ex, err.empty(), err);
  }
  running_.clear();
  std::vector<std::unique_ptr<Exchange>> added;
  {
    os::MutexLock lock(mu_);
    added.swap(added_);
    cancelled_.clear();
  }
  for (auto& ex : added) End(ex->id, *ex, err.empty(), err);
}

bool StreamSet::TakeRequests() {
  std::vector<std::unique_ptr<Exchange>> added;
  std::vector<Id> cancelled;
  {
    os::MutexLock lock(mu_);
    if (stopping_) {
      added_.swap(added);  // ended below, with those running
    } else {
      added.swap(added_);
      cancelled.swap(cancelled_);
    }
  }
  std::string err;
  const Curl& cu = *curl_;
  auto* multi = static_cast<CURLM*>(multi_);
  for (auto& ex : added) {
    ex->transfer = Transfer::Make(ex->request, &ex->response, &err);
    if (!ex->transfer || cu.multi_add_handle(multi, ex->transfer->handle()) != CURLM_OK) {
      End(ex->id, *ex, false, ex->transfer ? "cannot follow an HTTP stream (libcurl refused it)" : err);
      continue;
    }
    running_.emplace(ex->transfer->handle(), std::move(ex));
  }
  for (Id id : cancelled)
    for (auto it = running_.begin(); it != running_.end(); ++it)
      if (it->second->id == id) {
        cu.multi_remove_handle(multi, static_cast<CURL*>(it->first));
        End(id, *it->second, true, "");
        running_.erase(it);
        break;
      }
  os::MutexLock lock(mu_);
  return !stopping_;
}

void StreamSet::Loop() {
  const Curl& cu = *curl_;
  auto* multi = static_cast<CURLM*>(multi_);
  while (TakeRequests()) {
    int running = 0;
    (void)cu.multi_perform(multi, &running);
    int left = 0;
    while (CURLMsg* m = cu.multi_info_read(multi, &left)) {
      if (m->msg != CURLMSG_DONE) continue;
      CURL* handle = m->easy_handle;
      const CURLcode rc = m->data.result;
      cu.multi_remove_handle(multi, handle);
      const auto it = running_.find(handle);
      if (it == running_.end()) continue;
      Exchange& ex = *it->second;
      std::string err;
      bool answered = ex.transfer->Finish(rc, &err);
      if (ex.transfer->thrown()) {
        answered = false;
        err = "an internal error while reading the stream";
      }
      End(ex.id, ex, answered, err);
      running_.erase(it);
    }
    int events = 0;
    (void)cu.multi_poll(multi, nullptr, 0, kPollMs, &events);
  }
  EndAll("");
}

}  // namespace fiber::http
