#include "fiber/pool.hpp"

#include <thread>

#include "api/init_state.hpp"
#include "master/pool_handle.hpp"
#include "master/run.hpp"

namespace fiber {

Pool::Pool(int processes) : Pool([processes] {
  PoolOptions options;
  options.processes = processes;
  return options;
}()) {}

Pool::Pool(PoolOptions options) : options_(std::move(options)) {
  detail::RequireMaster("a Pool");
  if (options_.processes < 0)
    throw ConfigError("PoolOptions.processes must be 0 (one per core) or more, not " +
                      std::to_string(options_.processes));
  if (options_.max_task_retries < 0)
    throw ConfigError("PoolOptions.max_task_retries must be 0 or more");
  if (options_.max_processes < 0 || options_.min_processes < 0 ||
      options_.min_processes > options_.max_processes)
    throw ConfigError("PoolOptions: an elastic pool needs 0 <= min_processes <= max_processes "
                      "and max_processes > 0, not " + std::to_string(options_.min_processes) +
                      " and " + std::to_string(options_.max_processes));
  if (options_.max_processes > 0 && options_.idle_timeout <= std::chrono::milliseconds(0))
    throw ConfigError("PoolOptions.idle_timeout must be positive");
  if (options_.task_timeout && *options_.task_timeout <= std::chrono::milliseconds(0))
    throw ConfigError("PoolOptions.task_timeout must be positive (leave it unset for no limit), "
                      "not " + std::to_string(options_.task_timeout->count()) + " ms");
  if (options_.max_tasks_per_child && *options_.max_tasks_per_child < 1)
    throw ConfigError("PoolOptions.max_tasks_per_child must be 1 or more (leave it unset for no "
                      "limit), not " + std::to_string(*options_.max_tasks_per_child));
  if (options_.processes == 0)
    options_.processes = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  size_ = options_.max_processes > 0 ? options_.max_processes : options_.processes;
  handle_ = std::make_unique<master::PoolHandle>(master::Run::Get(), options_);
}

Pool::~Pool() = default;  // the handle terminates what still runs

std::shared_ptr<detail::Batch> Pool::submit(detail::FunctionKey fn, const char* where,
                                            std::vector<std::string> calls,
                                            std::size_t chunksize) {
  const std::string& name = detail::task_name(fn, where);
  chunksize = chunk_size(calls.size(), chunksize);
  return enqueue(name, where, std::move(calls), chunksize, /*chunked=*/false);
}

std::size_t Pool::chunk_size(std::size_t calls, std::size_t chunksize) const {
  if (chunksize == 0) chunksize = options_.chunksize;
  if (chunksize == 0) {
    // multiprocessing's choice: about four chunks per worker.
    const std::size_t workers = static_cast<std::size_t>(std::max(1, size()));
    chunksize = calls / (workers * 4) + (calls % (workers * 4) ? 1 : 0);
  }
  return std::max<std::size_t>(1, chunksize);
}

std::shared_ptr<detail::Batch> Pool::enqueue(const std::string& name, const char* where,
                                             std::vector<std::string> blobs,
                                             std::size_t chunksize, bool chunked) {
  if (closed_) throw PoolClosed(std::string(where) + ": the pool is closed");
  auto batch = std::make_shared<detail::Batch>(blobs.size());
  if (blobs.empty()) return batch;
  // A chunk of calls encoded as one unit is one task, and one slot.
  if (chunked)
    handle_->Submit(name, std::move(blobs), 1, batch, wire::TaskForm::kChunk);
  else
    handle_->Submit(name, std::move(blobs), chunksize, batch);
  return batch;
}

void Pool::close() {
  closed_ = true;
  handle_->Close();
}

void Pool::terminate() {
  closed_ = true;
  handle_->Terminate();
}

void Pool::join() {
  if (!closed_) throw Error("Pool::join: call close() or terminate() first");
  handle_->Join();
}

void Pool::resize(int processes) {
  if (processes < 1) throw ConfigError("Pool::resize needs at least 1 process, not " +
                                       std::to_string(processes));
  if (closed_) throw PoolClosed("Pool::resize: the pool is closed");
  size_ = processes;
  handle_->Resize(processes);
}

int Pool::size() const { return size_; }

std::vector<WorkerInfo> Pool::workers() const { return handle_->Workers(); }

}  // namespace fiber
