#include "master/pool_handle.hpp"

#include <future>

#include "config/backend_names.hpp"
#include "diagnostics/hop_trace.hpp"
#include "fiber/errors.hpp"
#include "os/mutex.hpp"

namespace fiber::master {

namespace {

// The pool's own request where it makes one, else the run's setting.
Resources WithDefaults(Resources r, const config::Settings& s) {
  if (r.cpu <= 0) r.cpu = s.cpu_millis / 1000.0;
  if (r.memory_mb <= 0) r.memory_mb = s.memory_mib;
  if (r.gpu <= 0) r.gpu = s.gpu;
  return r;
}

}  // namespace

PoolHandle::PoolHandle(Run& run, const PoolOptions& options,
                       const std::function<void(PoolService::Options*)>& adjust)
    : dispatcher_(run.dispatcher()), channel_(dispatcher_.NewChannel()) {
  PoolService::Options o;
  o.channel = channel_;
  o.processes = options.processes;
  if (options.max_processes > 0)
    o.elastic = PoolService::Options::Elastic{options.min_processes, options.max_processes,
                                     options.idle_timeout};
  o.max_task_retries = options.max_task_retries;
  o.task_timeout = options.task_timeout;
  o.max_tasks_per_child = options.max_tasks_per_child;
  o.initializer = options.initializer;
  o.settings = run.settings();
  if (!options.backend.empty()) o.settings.backend = options.backend;
  o.bootstrap = run.bootstrap();
  o.new_worker_id = [d = &dispatcher_, channel = channel_] { return d->NewWorkerId(channel); };
  o.on_finished = [finish = finish_] {
    os::MutexLock lock(finish->mu);
    finish->done = true;
    finish->cv.notify_all();
  };
  o.resources = WithDefaults(options.resources, o.settings);
  if (adjust) adjust(&o);
  std::string err;
  if (!config::CheckBackendName(o.settings.backend, &err)) throw ConfigError("PoolOptions.backend=" + err);
  // The pool takes its workers from the run's backend on the I/O thread,
  // which alone drives backends. Its options handed over whole (std::function
  // needs a copyable capture).
  auto pool = std::make_shared<PoolService::Options>(std::move(o));
  if (!dispatcher_.Post([run = &run, d = &dispatcher_, pool] {
        std::string why;
        std::unique_ptr<backend::Backend> workers = run->NewWorkerGroup(pool->settings.backend, &why);
        if (!workers) throw Error(why);  // not for a name CheckBackendName took
        pool->budget = d->requests().budget();
        d->AddPool(std::make_unique<PoolService>(std::move(*pool), std::move(workers), *d));
      }))
    throw Error("the run's master has stopped");
}

PoolHandle::~PoolHandle() {
  Terminate();
  Join();
  // A run that has ended took its pools with it.
  (void)dispatcher_.Post([d = &dispatcher_, channel = channel_] { d->RemovePool(channel); });
}

bool PoolHandle::With(std::function<void(PoolService&)> fn) {
  return dispatcher_.Post([d = &dispatcher_, channel = channel_, fn = std::move(fn)] {
    if (PoolService* pool = d->FindPool(channel)) fn(*pool);
  });
}

void PoolHandle::Submit(std::string function, std::vector<std::string> calls,
                        std::size_t chunksize, std::shared_ptr<detail::Batch> batch,
                        wire::TaskForm form) {
  FIBER_HOP("submit");
  auto work = std::make_shared<std::vector<std::string>>(std::move(calls));
  const std::size_t n = work->size();
  if (!With([function = std::move(function), work, chunksize, batch, form](PoolService& pool) {
        FIBER_HOP("io-took");
        pool.Submit(function, std::move(*work), chunksize, batch, Clock::now(), form);
      }))
    batch->complete(0, std::vector<detail::Outcome>(
                           n, {detail::Outcome::Kind::kPoolClosed, "the run has ended", {}}));
}

// Resize, Close and Terminate do nothing once the run has ended: its pools
// ended with it.
void PoolHandle::Resize(int processes) {
  (void)With([processes](PoolService& pool) { pool.Resize(processes, Clock::now()); });
}

void PoolHandle::Close() {
  (void)With([](PoolService& pool) { pool.Close(Clock::now()); });
}

void PoolHandle::Terminate() {
  (void)With([](PoolService& pool) { pool.Terminate(Clock::now()); });
}

void PoolHandle::Join() {
  os::MutexLock lock(finish_->mu);
  // A run that ended under us (at exit) finishes no pool: stop waiting then.
  while (!finish_->done && dispatcher_.running())
    lock.WaitFor(finish_->cv, std::chrono::milliseconds(200));
}

std::vector<WorkerInfo> PoolHandle::Workers() {
  auto promise = std::make_shared<std::promise<std::vector<WorkerInfo>>>();
  auto future = promise->get_future();
  if (!dispatcher_.Post([d = &dispatcher_, channel = channel_, promise] {
        PoolService* pool = d->FindPool(channel);
        promise->set_value(pool ? pool->Workers() : std::vector<WorkerInfo>{});
      }))
    return {};
  return future.get();
}

}  // namespace fiber::master
