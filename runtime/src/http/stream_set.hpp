// Long exchanges, such as followed streams (each container's output), served
// together by one thread through libcurl's multi interface rather than a
// thread each. Their callbacks (on_headers, on_body) and each one's end run
// on that thread. Thread-safe.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "http/client.hpp"
#include "os/mutex.hpp"

namespace fiber::http {

class StreamSet {
 public:
  using Id = std::uint64_t;
  /// How an exchange ended, as Perform would say it: false with err when
  /// no HTTP answer came; true for any answer, and for one Cancel ended.
  using OnEnd = std::function<void(bool answered, const Response& response, const std::string& err)>;

  StreamSet();
  /// Ends every exchange still open (each one's end is reported) and the
  /// thread.
  ~StreamSet();
  StreamSet(const StreamSet&) = delete;
  StreamSet& operator=(const StreamSet&) = delete;

  /// Starts request (its cancel flag is not read: Cancel ends it); on_end
  /// is called once it ends. The thread starts with the first.
  Id Add(Request request, OnEnd on_end);
  /// Ends the exchange, if still open, and returns once its end has been
  /// reported: no callback of it runs after. Not from the set's thread.
  void Cancel(Id id);
  /// Exchanges open; for tests.
  std::size_t open() const;

 private:
  struct Exchange;
  void Loop();
  // Adds what Add handed over and ends what Cancel asked; false once
  // stopping, with everything ended.
  bool TakeRequests();
  // Reports ex's end and forgets it.
  void End(Id id, Exchange& ex, bool answered, const std::string& err);
  void EndAll(const std::string& err);

  mutable os::Mutex mu_;
  std::condition_variable ended_;
  Id next_ FIBER_GUARDED_BY(mu_) = 1;
  std::vector<std::unique_ptr<Exchange>> added_ FIBER_GUARDED_BY(mu_);  // not yet in the multi
  std::vector<Id> cancelled_ FIBER_GUARDED_BY(mu_);
  std::set<Id> open_ FIBER_GUARDED_BY(mu_);  // added, not yet ended
  bool stopping_ FIBER_GUARDED_BY(mu_) = false;
  // Both set by the first Add, under mu_, before it starts the thread that
  // reads them; never changed again (so not guarded).
  const struct Curl* curl_ = nullptr;
  void* multi_ = nullptr;
  std::map<void*, std::unique_ptr<Exchange>> running_;  // the thread's own, by curl handle
  std::thread thread_;
};

}  // namespace fiber::http
