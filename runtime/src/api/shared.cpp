// fiber::share's side in each process: one SharedEntry per value while any
// handle to it lives here (this process holds it in the master meanwhile),
// the value loaded into it on the first get(), and the last few values
// loaded kept, so that a handle decoded again (task after task) loads
// nothing. Requests go through the run's client (client/run_client.hpp).
#include "fiber/shared.hpp"

#include <atomic>
#include <cstdlib>
#include <deque>
#include <map>
#include <mutex>
#include <typeindex>

#include "api/run_object.hpp"
#include "client/run_client.hpp"
#include "os/mutex.hpp"
#include "os/sealed_memfd.hpp"

namespace fiber::detail {

using wire::Op;
using wire::Status;

class SharedEntry {
 public:
  explicit SharedEntry(SharedRef ref) : ref_(std::move(ref)) { ref_.token = 0; }
  ~SharedEntry();
  SharedEntry(const SharedEntry&) = delete;
  SharedEntry& operator=(const SharedEntry&) = delete;

  const SharedRef& ref() const { return ref_; }
  os::Mutex mu;
  std::shared_ptr<const void> value FIBER_GUARDED_BY(mu);  // decoded as *type, once loaded
  const std::type_info* type FIBER_GUARDED_BY(mu) = nullptr;

 private:
  SharedRef ref_;
};

namespace {

// How many loaded values a process keeps beyond its handles' lifetime.
constexpr std::size_t kKeptValues = 2;

struct Loaded {
  std::uint64_t id;
  std::type_index type;
  std::shared_ptr<const void> value;
};

// This process's entries and kept values. Thread-safe.
struct SharedValues {
  os::Mutex mu;
  std::map<std::uint64_t, std::weak_ptr<SharedEntry>> live FIBER_GUARDED_BY(mu);
  std::deque<Loaded> kept FIBER_GUARDED_BY(mu);  // newest last
  std::atomic<std::uint64_t> mapped{0}, fetched{0};
  // Set at exit before the run's client (and master) are destroyed: an
  // entry destroyed later (a handle in a global) tells nobody.
  std::atomic<bool> exiting{false};

  static SharedValues& Get() {
    static SharedValues* registry = new SharedValues;  // entries may outlive statics
    return *registry;
  }
  /// Called once the run's client exists, so that this is called at exit
  /// before the client's destructor.
  void WatchExit() {
    static std::once_flag once;
    std::call_once(once, [] { std::atexit([] { Get().exiting = true; }); });
  }
};

wire::Request RequestOf(Op op, std::uint64_t id, std::string body = {}) {
  wire::Request request;
  request.op = op;
  request.object = id;
  request.body = std::move(body);
  return request;
}

// Sent without waiting: its answer changes nothing here.
void Tell(const SharedRef& ref, Op op, std::string body = {}) {
  client::RunClient::Get().Send(RequestOf(op, ref.id, std::move(body)), [](wire::Reply) {});
}

// The client of ref's run; throws when the handle is of another run.
client::RunClient& ClientOf(const SharedRef& ref, const char* where) {
  return client_for(RunObjectRef{ref.run_id, ref.id, 0}, where);
}

// What a reply that is not kOk means to the caller.
[[noreturn]] void Raise(const wire::Reply& reply, const char* where) {
  if (reply.status == Status::kLost)
    throw Error(std::string(where) + ": the run has ended (" + reply.body + ")");
  throw Error(std::string(where) + ": " + reply.body);
}

// The value's bytes, read in place from the master's memfd when this
// process is on its machine, else fetched; then decoded.
std::shared_ptr<const void> Load(const SharedRef& ref, SharedDecode decode) {
  SharedValues& r = SharedValues::Get();
  os::SealedMemfd memory;
  std::string why;
  if (os::SealedMemfd::OpenOf(ref.pid, ref.fd, wire::SharedMemoryName(ref.key, ref.id), ref.size,
                              &memory, &why)) {
    ++r.mapped;
    return decode(memory.bytes());
  }
  const wire::Reply reply = ClientOf(ref, "Shared::get").Call(RequestOf(Op::kShareGet, ref.id));
  if (reply.status != Status::kOk) Raise(reply, "Shared::get");
  ++r.fetched;
  return decode(reply.body);
}

}  // namespace

SharedEntry::~SharedEntry() {
  SharedValues& r = SharedValues::Get();
  if (r.exiting) return;  // the master learns it from the connection's end
  {
    os::MutexLock lock(r.mu);
    auto it = r.live.find(ref_.id);
    if (it != r.live.end() && it->second.expired()) r.live.erase(it);
  }
  // Waited for: a worker's exit or result, on its other connection, must
  // not overtake it (the master would refuse a request of a worker gone).
  try {
    (void)client::RunClient::Get().Call(RequestOf(Op::kShareRelease, ref_.id));
  } catch (const std::exception&) {
    // No run to tell any more: nothing is held.
  }
}

std::shared_ptr<SharedEntry> shared_new(std::string bytes, std::shared_ptr<const void> value,
                                        const std::type_info& type) {
  if (SharedValues::Get().exiting)  // the run's client may be gone already
    throw Error("fiber::share: the run has ended (the program is exiting)");
  client::RunClient& c = client::RunClient::Get();
  const std::uint64_t size = bytes.size();
  const wire::Reply reply = c.Call(RequestOf(Op::kShareNew, 0, std::move(bytes)));
  if (reply.status != Status::kOk) Raise(reply, "fiber::share");
  wire::SharedPlace place;
  if (!wire::Decode(reply.body, &place)) throw Error("fiber::share: a malformed answer from the master");
  const SharedRef ref{c.run_id(), place.id, size, place.pid, place.fd, place.key, 0};
  auto entry = std::make_shared<SharedEntry>(ref);
  {
    os::MutexLock entry_lock(entry->mu);  // no other thread has it yet; the analysis cannot know
    entry->value = std::move(value);
    entry->type = &type;
  }
  SharedValues& r = SharedValues::Get();
  r.WatchExit();
  os::MutexLock lock(r.mu);
  r.live[place.id] = entry;
  return entry;
}

std::shared_ptr<SharedEntry> shared_received(const SharedRef& ref) {
  ClientOf(ref, "Shared");
  SharedValues& r = SharedValues::Get();
  r.WatchExit();
  os::MutexLock lock(r.mu);
  std::weak_ptr<SharedEntry>& slot = r.live[ref.id];
  std::shared_ptr<SharedEntry> entry = slot.lock();
  const bool hold = !entry;  // this process holds it once, with its first entry
  if (!entry) slot = entry = std::make_shared<SharedEntry>(ref);
  Tell(ref, Op::kShareClaim, wire::EncodeClaim(ref.token, hold));
  return entry;
}

SharedRef shared_sent(SharedEntry& entry) {
  SharedRef ref = entry.ref();
  const wire::Reply reply =
      ClientOf(ref, "Shared").Call(RequestOf(Op::kShareSend, ref.id));
  if (reply.status != Status::kOk) Raise(reply, "Shared: cannot send the handle");
  if (!wire::DecodeU64(reply.body, &ref.token))
    throw Error("Shared: a malformed answer from the master");
  return ref;
}

const void* shared_value(SharedEntry& entry, const std::type_info& type, SharedDecode decode) {
  os::MutexLock lock(entry.mu);
  if (entry.value && *entry.type == type) return entry.value.get();
  SharedValues& r = SharedValues::Get();
  const std::uint64_t id = entry.ref().id;
  std::shared_ptr<const void> value;
  {
    os::MutexLock registry_lock(r.mu);
    for (const Loaded& l : r.kept)
      if (l.id == id && l.type == std::type_index(type)) value = l.value;
  }
  if (!value) {
    value = Load(entry.ref(), decode);
    os::MutexLock registry_lock(r.mu);
    r.kept.push_back({id, std::type_index(type), value});
    if (r.kept.size() > kKeptValues) r.kept.pop_front();
  }
  entry.value = std::move(value);
  entry.type = &type;
  return entry.value.get();
}

std::uint64_t shared_id(const SharedEntry& entry) { return entry.ref().id; }

SharedLoads shared_loads() {
  SharedValues& r = SharedValues::Get();
  return {r.mapped.load(), r.fetched.load()};
}

}  // namespace fiber::detail
