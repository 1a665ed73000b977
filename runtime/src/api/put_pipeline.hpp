// Puts on an unbounded queue sent without waiting for their answers: a put
// returns at once, with at most kWindow items (and kWindowBytes)
// unanswered per process. Small items are written straight into the open
// batch, one QUEUE_PUT_MANY. While fewer than kInFlight batches await
// their answers it goes at once, and the connection's thread takes its
// items when it gets to it; else it is held, and more items join it,
// until an answer comes (or a batch fills, or another request of this
// process goes: RunClient's before-send hook sends it first). So the
// batches grow with the master's pace, one message, one decode and one
// charge in the master and one answer for many items, while a lone put
// still goes at once. A large batch from a worker on the master's machine
// goes through an item file, like a large item. Batches go in order with
// each other and with every other request of this process, so items from
// one process arrive in the order put; an error the master answers is
// kept for the queue and raised at the next call on it, or at a flush. A
// task's (and so a Process's) result waits for every answer first
// (worker/serve_loop.cpp), so no item put is lost. Thread-safe.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "fiber/detail/run_object.hpp"
#include "fiber/queue.hpp"
#include "os/mutex.hpp"
#include "wire/request.hpp"

namespace fiber::client {
class RunClient;
}  // namespace fiber::client

namespace fiber::detail {

/// The op of a put of *item: QUEUE_PUT_FILE, *item then the file's name,
/// for a large item of a worker on the master's machine
/// (wire/item_files.hpp); else QUEUE_PUT, *item untouched.
wire::Op PutOp(std::string* item);

class PutPipeline {
 public:
  static constexpr std::size_t kWindow = 16384;
  /// ... and at most this many bytes of items (one item, however large,
  /// may always go).
  static constexpr std::size_t kWindowBytes = std::size_t{4} << 20;
  /// A batch on the socket holds up to this many bytes: below malloc's
  /// threshold for fresh pages, so its buffers (here, in the message, in
  /// the master) are reused rather than made, faulted in and cleared each
  /// time.
  static constexpr std::size_t kBatchBytes = std::size_t{64} << 10;
  /// A batch this large from a worker on the master's machine goes
  /// through an item file: cheaper than encrypting it and sending it.
  static constexpr std::size_t kFileBatchBytes = std::size_t{16} << 10;
  /// ... and such a worker's batch holds up to this many bytes: each batch
  /// costs both sides a few system calls and wake-ups, whatever its size
  /// (bench/README: 100 B items got 1.3-1.6 x faster than at 64 KiB).
  static constexpr std::size_t kLocalBatchBytes = std::size_t{1} << 20;
  /// Buffers of batches that went through an item file, kept for new
  /// batches: a fresh one from the heap is fresh pages, faulted in and
  /// cleared.
  static constexpr std::size_t kSpareBuffers = 2;
  /// A batch that is not full waits while this many are unanswered
  /// (bench/README: without it a busy master got batches of a dozen items
  /// and half the rate).
  static constexpr std::size_t kInFlight = 2;

  /// This process's.
  static PutPipeline& Get();
  /// Whether reply, from Put, TakeError or DrainAll, says no error.
  static bool None(const wire::Reply& reply) {
    return reply.status == wire::Status::kLost && reply.body.empty();
  }

  /// Sends a put of *item (written by write) on object; waits while the
  /// window is full. When an earlier put on object met an error, the item
  /// is not put and that error is returned, taken (as TakeError); else
  /// kLost with no body.
  wire::Reply Put(const RunObjectRef& object, const void* item, WriteBytes write, const char* where);
  /// The first error a put on object met, taken once: a reply that is not
  /// kOk (status kLost with no body: none).
  wire::Reply TakeError(std::uint64_t object);
  /// Waits until every put sent has its answer.
  void Drain();
  /// Drain, then the first error of any queue, taken (kLost with no body:
  /// none).
  wire::Reply DrainAll();
  /// Sends the batch held, if any: before any other request of this
  /// process goes (RunClient's before-send hook).
  void SendHeld();

 private:
  // Items of one queue that go in one request: a QUEUE_PUT_MANY, or one
  // large item alone.
  struct Batch {
    std::uint64_t object = 0;
    std::string body;  // wire::EncodeList's
    std::size_t items = 0, bytes = 0;
    bool sent = false;  // else held: more items may join it
    wire::Request request;  // its op and queue; the body is made as it goes
  };
  /// Sends batch's request, which make makes when it goes; false, its
  /// error kept, when the client takes no more. Under mu_.
  bool Send(client::RunClient& c, const std::shared_ptr<Batch>& batch,
            std::function<wire::Request()> make) FIBER_REQUIRES(mu_);
  /// Sends a batch of small items; more join it until the client's thread
  /// takes them. Under mu_.
  bool SendBatch(client::RunClient& c, const std::shared_ptr<Batch>& batch) FIBER_REQUIRES(mu_);
  /// The open batch, when held, sent now; under mu_.
  void SendHeld(client::RunClient& c) FIBER_REQUIRES(mu_);
  /// TakeError, under mu_.
  wire::Reply TakeErrorLocked(std::uint64_t object) FIBER_REQUIRES(mu_);
  /// The answer to batch's request; under mu_.
  void Answered(client::RunClient& c, const std::shared_ptr<Batch>& batch, wire::Reply reply) FIBER_REQUIRES(mu_);

  os::Mutex mu_;
  std::condition_variable answered_;
  std::size_t unanswered_ FIBER_GUARDED_BY(mu_) = 0;
  std::size_t unanswered_bytes_ FIBER_GUARDED_BY(mu_) = 0;
  std::size_t in_flight_ FIBER_GUARDED_BY(mu_) = 0;  // batches sent, not answered
  std::shared_ptr<Batch> open_ FIBER_GUARDED_BY(mu_);  // more small items join it until it is taken
  std::vector<std::string> spare_ FIBER_GUARDED_BY(mu_);  // kSpareBuffers at most
  std::map<std::uint64_t, wire::Reply> errors_ FIBER_GUARDED_BY(mu_);  // the first per queue
};

}  // namespace fiber::detail
