#include "api/put_pipeline.hpp"

#include "api/run_object.hpp"
#include "client/run_client.hpp"

namespace fiber::detail {

namespace {
const wire::Reply kNone{0, wire::Status::kLost, {}};
}  // namespace

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
  c.Send(request_for(object, wire::Op::kQueuePut, std::move(item), std::nullopt),
         [this, id = object.id, bytes](wire::Reply reply) {
           std::lock_guard<std::mutex> lock(mu_);
           if (reply.status != wire::Status::kOk) errors_.try_emplace(id, std::move(reply));
           --unanswered_;
           unanswered_bytes_ -= bytes;
           answered_.notify_all();
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
