// The user's side of one pool, what fiber::Pool holds: it hands each call
// to the run's I/O thread, where the pool's PoolService lives, and waits
// for answers there. Thread-safe.
#pragma once

#include <condition_variable>
#include <memory>
#include <string>
#include <vector>

#include "fiber/detail/batch.hpp"
#include "fiber/pool_options.hpp"
#include "master/run.hpp"
#include "os/mutex.hpp"
#include "wire/task_batch.hpp"

namespace fiber::master {

class PoolHandle {
 public:
  /// Adds a pool of options.processes workers to the run; throws ConfigError
  /// for an unknown backend. adjust, when given, sets what PoolOptions does
  /// not say (a Process's hooks) before the pool starts.
  PoolHandle(Run& run, const PoolOptions& options,
             const std::function<void(PoolService::Options*)>& adjust = {});
  /// Terminates what still runs, waits for the workers, removes the pool.
  ~PoolHandle();
  PoolHandle(const PoolHandle&) = delete;
  PoolHandle& operator=(const PoolHandle&) = delete;

  /// As PoolService::Submit.
  void Submit(std::string function, std::vector<std::string> calls, std::size_t chunksize,
              std::shared_ptr<detail::Batch> batch,
              wire::TaskForm form = wire::TaskForm::kCalls);
  void Resize(int processes);
  void Close();
  void Terminate();
  /// Waits until every worker is gone (after Close or Terminate).
  void Join();
  std::vector<WorkerInfo> Workers();
  /// The pool's channel within the run.
  wire::Channel channel() const { return channel_; }

 private:
  /// Runs fn on the pool's service in the I/O thread; false when the pool
  /// or the run is gone.
  [[nodiscard]] bool With(std::function<void(PoolService&)> fn);

  struct Finish {
    os::Mutex mu;
    std::condition_variable cv;
    bool done FIBER_GUARDED_BY(mu) = false;
  };
  Dispatcher& dispatcher_;
  wire::Channel channel_;
  std::shared_ptr<Finish> finish_ = std::make_shared<Finish>();
};

}  // namespace fiber::master
