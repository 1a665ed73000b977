#include "api/put_pipeline.hpp"

#include "api/run_object.hpp"
#include "client/run_client.hpp"
#include "wire/item_files.hpp"
#include "worker/this_worker.hpp"

namespace fiber::detail {

namespace {
const wire::Reply kNone{0, wire::Status::kLost, {}};
}  // namespace

wire::Op PutOp(std::string* item) {
  if (item->size() < wire::ItemFiles::kSmallest) return wire::Op::kQueuePut;
  const worker::Bootstrap* b = worker::ThisWorker();
  if (!b) return wire::Op::kQueuePut;  // the master: no socket to skip
  static const std::unique_ptr<wire::ItemFiles> files = wire::ItemFiles::Open(b->run_id);
  if (!files) return wire::Op::kQueuePut;
  std::string name = files->Write(b->worker_id, *item);
  if (name.empty()) return wire::Op::kQueuePut;
  *item = std::move(name);
  return wire::Op::kQueuePutFile;
}

PutPipeline& PutPipeline::Get() {
  static PutPipeline* pipeline = new PutPipeline;  // used until the process ends
  return *pipeline;
}

void PutPipeline::Put(const RunObjectRef& object, std::string item, const char* where) {
  client::RunClient& c = client_for(object, where);
  const std::size_t bytes = item.size();
  {
    std::unique_lock<std::mutex> lock(mu_);
    answered_.wait(lock, [&] {
      return unanswered_ == 0 ||
             (unanswered_ < kWindow && unanswered_bytes_ + bytes <= kWindowBytes);
    });
    ++unanswered_;
    unanswered_bytes_ += bytes;
  }
  // Not under mu_: the answer may come at once, on this thread.
  const wire::Op op = PutOp(&item);
  // Two words of state (this is Get()): std::function keeps them without
  // an allocation.
  c.Send(request_for(object, op, std::move(item), std::nullopt),
         [id = object.id, bytes](wire::Reply reply) {
           PutPipeline& p = Get();
           std::lock_guard<std::mutex> lock(p.mu_);
           if (reply.status != wire::Status::kOk) p.errors_.try_emplace(id, std::move(reply));
           --p.unanswered_;
           p.unanswered_bytes_ -= bytes;
           p.answered_.notify_all();
         });
}

wire::Reply PutPipeline::TakeError(std::uint64_t object) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = errors_.find(object);
  if (it == errors_.end()) return kNone;
  wire::Reply reply = std::move(it->second);
  errors_.erase(it);
  return reply;
}

void PutPipeline::Drain() {
  std::unique_lock<std::mutex> lock(mu_);
  answered_.wait(lock, [this] { return unanswered_ == 0; });
}

wire::Reply PutPipeline::DrainAll() {
  std::unique_lock<std::mutex> lock(mu_);
  answered_.wait(lock, [this] { return unanswered_ == 0; });
  if (errors_.empty()) return kNone;
  wire::Reply reply = std::move(errors_.begin()->second);
  errors_.erase(errors_.begin());
  return reply;
}

}  // namespace fiber::detail
