// REQUEST and REPLY: what any process of the run asks its master about the
// run's shared objects (a queue, a call to a manager's object), and the
// answer. Unlike the messages of a pool's workers these come from any
// admitted connection (a task's or a Process's own client connection, see
// client/run_client.hpp), on the run channel. Owning strings: a request
// outlives the message it came in (a queued item, a waiting get).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>
#include <zmq.hpp>

#include "fiber/detail/run_object_ref.hpp"
#include "wire/item_list.hpp"
#include "wire/message.hpp"

namespace fiber::wire {

enum class Op : std::uint8_t {
  kQueueNew = 1,     // body: maxsize (u64; absent or 0: unbounded) -> the id (u64)
  kQueuePut = 2,     // body: the item; waits up to the timeout while full
  kQueueGet = 3,     // -> the item; waits up to the timeout
  kQueuePoll = 4,    // -> once the queue holds an item; takes nothing
  kQueueEmpty = 5,   // -> body "1" when empty, "0" otherwise
  kQueueClose = 6,   // no more puts; gets drain what is left
  kManagerCall = 7,  // object: the manager's channel; body: function, args
  // Locks, semaphores and events (master/sync_table.hpp): a Lock is a
  // semaphore of one that only a holder may release.
  kSemaphoreNew = 8,      // body: SemaphoreSpec -> the new one's id (u64)
  kSemaphoreAcquire = 9,  // -> once acquired; waits up to the timeout
  kSemaphoreRelease = 10,
  kEventNew = 11,    // -> the new event's id (u64)
  kEventSet = 12,
  kEventClear = 13,
  kEventWait = 14,   // -> once set; waits up to the timeout (0: is it set?)
  kQueuePutMany = 15,  // body: a list of items, put in order; waits while full
  kQueueGetMany = 16,  // body: n (u32) -> a list of 1..n items; waits for the first
  kQueueSize = 17,     // -> the number of items held (u64)
  kQueuePutFile = 18,  // body: an item file's name (wire/item_files.hpp); then as kQueuePut
  // To a manager's own endpoint only (worker/direct_calls.hpp), never the
  // master: object, the manager's channel -> OK when this manager is it.
  kManagerHello = 19,
  // Shared values (master/share_table.hpp), each held while a process
  // holds a handle to it or one is on its way.
  kShareNew = 20,      // body: the value's bytes -> SharedPlace
  kShareSend = 21,     // -> a token (u64) for a handle on its way
  kShareClaim = 22,    // body: the token (u64), then hold (u8)
  kShareRelease = 23,  // this process holds no handle any more
  kShareGet = 24,      // -> the value's bytes
  kQueuePutManyFile = 25,  // body: an item file's name holding a list; then as kQueuePutMany
  // To a manager's own endpoint only, never the master: several
  // kManagerCalls of one caller as one message (EncodeCalls), run in order
  // and answered as one REPLY, its body their replies (AppendReply).
  kManagerCalls = 26,
};
constexpr std::uint8_t kLastOp = static_cast<std::uint8_t>(Op::kManagerCalls);

struct Request {
  std::uint64_t id = 0;  // chosen by the requester, echoed in the REPLY
  Op op = Op::kQueuePut;
  std::uint64_t object = 0;                    // a queue id, a manager's channel
  std::optional<std::uint32_t> timeout_ms;     // empty: wait as long as it takes
  std::string body;
};

enum class Status : std::uint8_t {
  kOk = 0,             // body: the answer
  kTimeout = 1,        // nothing arrived within the request's timeout
  kClosed = 2,         // the queue is closed (and, for a get, empty)
  kNoSuchObject = 3,   // body: why
  kRaised = 4,         // a manager call threw; body: type bytes, message bytes
  kLost = 5,           // body: why (the manager process is gone, the run ended)
  kNotRegistered = 6,  // body: why
  kRefused = 7,        // body: why (the asker is over a bound, or may not ask this)
};
constexpr std::uint8_t kLastStatus = static_cast<std::uint8_t>(Status::kRefused);

struct Reply {
  std::uint64_t id = 0;
  Status status = Status::kOk;
  std::string body;
};

zmq::message_t Encode(const Request& m);
zmq::message_t Encode(const Reply& m);
/// A REPLY without a Reply to hold a copy of body.
zmq::message_t EncodeReply(std::uint64_t id, Status status, std::string_view body);
[[nodiscard]] bool Decode(const zmq::message_t& message, Request* m, std::string* err);
[[nodiscard]] bool Decode(const zmq::message_t& message, Reply* m, std::string* err);

/// The body of a kSemaphoreNew request.
using SemaphoreSpec = detail::SemaphoreSpec;
std::string Encode(const SemaphoreSpec& spec);
[[nodiscard]] bool Decode(const std::string& body, SemaphoreSpec* spec);

/// The body of a kQueuePutMany request and of a kQueueGetMany reply is a
/// list of the items (wire/item_list.hpp).
/// A u64 body (a new queue's maxsize, an id, a size); Decode is false for
/// any other length.
std::string EncodeU64(std::uint64_t n);
[[nodiscard]] bool DecodeU64(const std::string& body, std::uint64_t* n);

/// The answer to kShareNew: the value's id, and where a process of the
/// master's machine reads it: the master's pid, the memfd's number there,
/// and the key in its name (os/sealed_memfd.hpp).
struct SharedPlace {
  std::uint64_t id = 0, pid = 0, fd = 0, key = 0;
};
std::string Encode(const SharedPlace& place);
[[nodiscard]] bool Decode(const std::string& body, SharedPlace* place);
/// The name of the memfd holding shared value id, under key.
std::string SharedMemoryName(std::uint64_t key, std::uint64_t id);
/// The body of a kShareClaim request.
std::string EncodeClaim(std::uint64_t token, bool hold);
[[nodiscard]] bool DecodeClaim(const std::string& body, std::uint64_t* token, bool* hold);

/// The body of a kManagerCalls request: a list (EncodeList) of the calls,
/// each its id u64 and its kManagerCall body.
std::string EncodeCalls(const std::vector<const Request*>& calls);
/// One call of a kManagerCalls body: its id, and its kManagerCall body as
/// a view into the batch's.
struct CallView {
  std::uint64_t id = 0;
  std::string_view body;
};
/// The calls of a kManagerCalls body, viewed in place; false for one too
/// short for its id, or more than kMaxCallsInFlight (found before any is
/// kept).
[[nodiscard]] bool DecodeCalls(std::string_view body, std::vector<CallView>* calls);
/// Appends one call's answer to the body of a kManagerCalls reply: a list
/// of id u64, status u8 and body.
void AppendReply(std::string* body, std::uint64_t id, Status status, std::string_view reply);
/// The answers in a kManagerCalls reply's body (kMaxCallsInFlight at most).
[[nodiscard]] bool DecodeReplies(std::string_view body, std::vector<Reply>* replies);

/// The body of a kManagerCall request, and of a kRaised reply.
std::string EncodePair(const std::string& first, const std::string& second);
[[nodiscard]] bool DecodePair(std::string_view body, std::string* first, std::string* second);

}  // namespace fiber::wire
