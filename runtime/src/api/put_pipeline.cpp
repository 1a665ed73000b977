#include "api/put_pipeline.hpp"

#include "api/run_object.hpp"
#include "client/run_client.hpp"
#include "os/mutex.hpp"
#include "wire/item_files.hpp"
#include "worker/this_worker.hpp"

namespace fiber::detail {

namespace {
const wire::Reply kNone{0, wire::Status::kLost, {}};
}  // namespace

namespace {

// The run's item files when this is a worker on the master's machine
// (wire/item_files.hpp); else nullptr (the master has no socket to skip).
const std::shared_ptr<wire::ItemFiles>& ItemFilesHere() {
  static const std::shared_ptr<wire::ItemFiles> files = [] {
    const worker::Bootstrap* b = worker::ThisWorker();
    return b ? wire::ItemFiles::Open(b->run_id) : nullptr;
  }();
  return files;
}

// Writes *bytes into an item file when there are item files here, *bytes
// then the file's name; false when they go on the socket.
bool ToItemFile(std::string* bytes) {
  const std::shared_ptr<wire::ItemFiles>& files = ItemFilesHere();
  if (!files) return false;
  std::string name = files->Write(worker::ThisWorker()->worker_id, *bytes);
  if (name.empty()) return false;
  *bytes = name;  // its room kept
  return true;
}

}  // namespace

wire::Op PutOp(std::string* item) {
  if (item->size() >= wire::ItemFiles::kSmallest && ToItemFile(item)) return wire::Op::kQueuePutFile;
  return wire::Op::kQueuePut;
}

PutPipeline& PutPipeline::Get() {
  static PutPipeline* pipeline = [] {
    client::RunClient::SetBeforeSend([] { PutPipeline::Get().SendHeld(); });
    return new PutPipeline;  // used until the process ends
  }();
  return *pipeline;
}

wire::Reply PutPipeline::Put(const RunObjectRef& object, const void* item, WriteBytes write,
                             const char* where) {
  client::RunClient& c = client_for(object, where);
  // Written into a buffer of this thread's, reused: no allocation.
  thread_local std::string scratch;
  scratch.clear();
  write(item, &scratch);
  const std::size_t bytes = scratch.size();
  std::string body;
  wire::Op op = wire::Op::kQueuePutMany;
  if (bytes >= wire::ItemFiles::kSmallest) {
    // An earlier put's error, taken before a file is written for nothing.
    if (wire::Reply error = TakeError(object.id); !None(error)) return error;
    op = PutOp(&scratch);  // an item file written, not under mu_
    // A file's name is copied, and the buffer kept unless it grew huge.
    if (op == wire::Op::kQueuePutFile && scratch.capacity() <= 4 * kWindowBytes)
      body = scratch;
    else
      body = std::move(scratch);
  }
  os::MutexLock lock(mu_);
  // An earlier put's error, taken (a large item's above).
  if (op == wire::Op::kQueuePutMany)
    if (wire::Reply error = TakeErrorLocked(object.id); !None(error)) return error;
  lock.Wait(answered_, [&]() FIBER_REQUIRES(mu_) {
    return unanswered_ == 0 || (unanswered_ < kWindow && unanswered_bytes_ + bytes <= kWindowBytes);
  });
  ++unanswered_;
  unanswered_bytes_ += bytes;
  if (op != wire::Op::kQueuePutMany) {
    // A large item goes alone, after the batch open now.
    SendHeld(c);
    open_.reset();
    auto alone = std::make_shared<Batch>(Batch{object.id, {}, 1, bytes, false, {}});
    (void)Send(c, alone, [request = request_for(object, op, std::move(body), std::nullopt)]() mutable {
      return std::move(request);
    });
    return kNone;
  }
  const std::size_t most = ItemFilesHere() ? kLocalBatchBytes : kBatchBytes;
  if (!open_ || open_->object != object.id || open_->body.size() + bytes + 4 > most) {
    SendHeld(c);  // full, or of another queue: it goes first
    auto batch = std::make_shared<Batch>(Batch{object.id, {}, 0, 0, false, request_for(object, op, {}, std::nullopt)});
    if (!spare_.empty()) {
      batch->body = std::move(spare_.back());
      spare_.pop_back();
      batch->body.clear();
    } else {
      batch->body.reserve(most);
    }
    if (in_flight_ < kInFlight && !SendBatch(c, batch)) {  // its error is kept; this item is not counted
      --unanswered_;
      unanswered_bytes_ -= bytes;
      return kNone;
    }
    open_ = std::move(batch);
  }
  wire::AppendToList(&open_->body, scratch);
  ++open_->items;
  open_->bytes += bytes;
  return kNone;
}

bool PutPipeline::SendBatch(client::RunClient& c, const std::shared_ptr<Batch>& batch) {
  // The client's thread takes the batch's items as they are then.
  return Send(c, batch, [this, batch]() {
    wire::Request request = batch->request;
    std::string items;
    {
      os::MutexLock taking(mu_);
      if (open_ == batch) open_.reset();
      items = std::move(batch->body);
    }
    if (items.size() < kFileBatchBytes || !ToItemFile(&items)) {
      request.body = std::move(items);
      return request;
    }
    request.op = wire::Op::kQueuePutManyFile;
    request.body = items;  // the file's name; its buffer serves a new batch
    os::MutexLock keeping(mu_);
    if (spare_.size() < kSpareBuffers) spare_.push_back(std::move(items));
    return request;
  });
}

void PutPipeline::SendHeld(client::RunClient& c) {
  if (open_ && !open_->sent) (void)SendBatch(c, open_);
}

void PutPipeline::SendHeld() {
  os::MutexLock lock(mu_);
  SendHeld(client::RunClient::Get());
}

bool PutPipeline::Send(client::RunClient& c, const std::shared_ptr<Batch>& batch,
                       std::function<wire::Request()> make) {
  // Under mu_, so in order with every other request of this process.
  const bool sent = c.SendMade(std::move(make), [this, &c, batch](wire::Reply reply) {
    os::MutexLock lock(mu_);
    Answered(c, batch, std::move(reply));
  });
  batch->sent = sent;
  if (sent)
    ++in_flight_;
  else
    Answered(c, batch, wire::Reply{0, wire::Status::kLost, "the run's client connection has closed"});
  return sent;
}

void PutPipeline::Answered(client::RunClient& c, const std::shared_ptr<Batch>& batch, wire::Reply reply) {
  if (batch->sent) --in_flight_;
  if (open_ == batch) open_.reset();  // the client failed before it took it
  if (reply.status != wire::Status::kOk) errors_.try_emplace(batch->object, std::move(reply));
  unanswered_ -= batch->items;
  unanswered_bytes_ -= batch->bytes;
  answered_.notify_all();
  if (in_flight_ < kInFlight) SendHeld(c);  // its turn
}

wire::Reply PutPipeline::TakeError(std::uint64_t object) {
  os::MutexLock lock(mu_);
  return TakeErrorLocked(object);
}

wire::Reply PutPipeline::TakeErrorLocked(std::uint64_t object) {
  auto it = errors_.find(object);
  if (it == errors_.end()) return kNone;
  wire::Reply reply = std::move(it->second);
  errors_.erase(it);
  return reply;
}

void PutPipeline::Drain() {
  os::MutexLock lock(mu_);
  lock.Wait(answered_, [this]() FIBER_REQUIRES(mu_) { return unanswered_ == 0; });
}

wire::Reply PutPipeline::DrainAll() {
  os::MutexLock lock(mu_);
  lock.Wait(answered_, [this]() FIBER_REQUIRES(mu_) { return unanswered_ == 0; });
  if (errors_.empty()) return kNone;
  wire::Reply reply = std::move(errors_.begin()->second);
  errors_.erase(errors_.begin());
  return reply;
}

}  // namespace fiber::detail
