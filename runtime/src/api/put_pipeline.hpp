// Puts on an unbounded queue sent without waiting for their answers: a put
// returns once its item is handed to the connection, with at most kWindow
// unanswered per process. The connection keeps them in order, so items
// from one process arrive in the order put; an error the master answers
// is kept for the queue and raised at the next call on it, or at a flush.
// A task's (and so a Process's) result waits for every answer first
// (worker/serve_loop.cpp), so no item put is lost. Thread-safe.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>

#include "fiber/detail/run_object.hpp"
#include "wire/request.hpp"

namespace fiber::detail {

/// The op of a put of *item: QUEUE_PUT_FILE, *item then the file's name,
/// for a large item of a worker on the master's machine
/// (wire/item_files.hpp); else QUEUE_PUT, *item untouched.
wire::Op PutOp(std::string* item);

class PutPipeline {
 public:
  static constexpr std::size_t kWindow = 256;
  /// ... and at most this many bytes of items (one item, however large,
  /// may always go).
  static constexpr std::size_t kWindowBytes = std::size_t{4} << 20;

  /// This process's.
  static PutPipeline& Get();

  /// Sends a put on object; waits while kWindow are unanswered.
  void Put(const RunObjectRef& object, std::string item, const char* where);
  /// The first error a put on object met, taken once: a reply that is not
  /// kOk (status kLost with no body: none).
  wire::Reply TakeError(std::uint64_t object);
  /// Waits until every put sent has its answer.
  void Drain();
  /// Drain, then the first error of any queue, taken (kLost with no body:
  /// none).
  wire::Reply DrainAll();

 private:
  std::mutex mu_;
  std::condition_variable answered_;
  std::size_t unanswered_ = 0;
  std::size_t unanswered_bytes_ = 0;
  std::map<std::uint64_t, wire::Reply> errors_;  // the first per queue
};

}  // namespace fiber::detail
