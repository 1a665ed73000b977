// fiber::Pool: a pool of job-backed worker processes with the methods and
// semantics of Python's multiprocessing.Pool. Workers are the same
// executable started by a backend; a killed or stopped worker's tasks run
// again elsewhere and the worker is replaced.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "fiber/async_result.hpp"
#include "fiber/pool_options.hpp"
#include "fiber/task.hpp"

namespace fiber {

namespace master {
class PoolHandle;
}

namespace detail {
template <class R>
R decode_first(const Batch& batch) {
  return decode<R>(batch.at(0));
}
template <class R>
using MapResult = std::conditional_t<std::is_void_v<R>, void, std::vector<R>>;

/// The results of count calls submitted as chunks of chunksize (map,
/// starmap): slot k of batch holds chunk k's results one after another.
/// Throws the error of the first failed chunk, in item order.
template <class R>
MapResult<R> decode_chunks(const Batch& batch, std::size_t count, std::size_t chunksize) {
  std::vector<std::conditional_t<std::is_void_v<R>, char, R>> values;
  if constexpr (!std::is_void_v<R>) values.reserve(count);
  for (std::size_t k = 0; k < batch.size(); ++k) {
    const Outcome& outcome = batch.at(k);
    if (outcome.kind != Outcome::Kind::kValue) throw_outcome(outcome);
    if constexpr (!std::is_void_v<R>) {
      const std::size_t n = std::min(chunksize, count - k * chunksize);
      try {
        InputArchive archive(outcome.data);
        for (std::size_t i = 0; i < n; ++i) archive(values.emplace_back());
        if (archive.left() != 0)
          throw cereal::Exception(std::to_string(archive.left()) +
                                  " bytes left over after a chunk's " + std::to_string(n) +
                                  " results");
      } catch (const cereal::Exception& e) {
        throw_undecodable(e.what());
      }
    }
  }
  if constexpr (!std::is_void_v<R>) return values;
}
}  // namespace detail

class Pool {
 public:
  explicit Pool(int processes = 0);
  explicit Pool(PoolOptions options);
  /// Terminates the workers if close() and join() were not called.
  ~Pool();
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  template <class R, class... A, class... Args>
  AsyncResult<R> apply_async(R (*fn)(A...), Args&&... args) {
    std::vector<std::string> calls;
    calls.push_back(detail::encode_args(fn, std::forward<Args>(args)...));
    return AsyncResult<R>(submit(detail::key_of(fn), "Pool::apply_async",
                                 std::move(calls), 1),
                          &detail::decode_first<R>);
  }

  template <class R, class... A, class... Args>
  R apply(R (*fn)(A...), Args&&... args) {
    return apply_async(fn, std::forward<Args>(args)...).get();
  }

  // Not a registered free function (a lambda, functor, std::function):
  // each of these stops the build with advice. Their return types are
  // deduced, so that advice comes at the call, before any other error.
  template <class F, class... Args>
    requires(!detail::kIsTaskPointer<F>)
  auto apply_async(F&&, Args&&...) {
    detail::reject_closure<F>();
  }
  template <class F, class... Args>
    requires(!detail::kIsTaskPointer<F>)
  auto apply(F&&, Args&&...) {
    detail::reject_closure<F>();
  }

  /// Calls fn on every item; results in item order. Items travel in chunks
  /// of chunksize (0: the pool's default, else about four per worker), each
  /// run by one worker as one unit: a call that throws ends its chunk, and
  /// get() throws the first error in item order.
  template <class R, class A, class Range = std::vector<std::decay_t<A>>>
  AsyncResult<detail::MapResult<R>> map_async(R (*fn)(A), const Range& items,
                                              std::size_t chunksize = 0) {
    return submit_chunks(fn, "Pool::map", items, chunksize,
                         [](const auto& item) { return std::tuple<std::decay_t<A>>(item); });
  }

  template <class R, class A, class Range = std::vector<std::decay_t<A>>>
  detail::MapResult<R> map(R (*fn)(A), const Range& items,
                           std::size_t chunksize = 0) {
    return map_async(fn, items, chunksize).get();
  }

  /// Lazy map: results in item order as they arrive.
  template <class R, class A, class Range = std::vector<std::decay_t<A>>>
  IMapResult<R> imap(R (*fn)(A), const Range& items, std::size_t chunksize = 1) {
    return IMapResult<R>(
        submit(detail::key_of(fn), "Pool::imap", encode_each(fn, items), chunksize),
        true);
  }

  /// Lazy map: results in the order they complete.
  template <class R, class A, class Range = std::vector<std::decay_t<A>>>
  IMapResult<R> imap_unordered(R (*fn)(A), const Range& items,
                               std::size_t chunksize = 1) {
    return IMapResult<R>(submit(detail::key_of(fn), "Pool::imap_unordered",
                                encode_each(fn, items), chunksize),
                         false);
  }

  // Anything but a registered function of one argument: advice, as above.
  template <class F>
    requires(!detail::kIsUnaryTask<F>)
  auto map_async(F&&, const detail::AnyItems&, std::size_t = 0) {
    detail::reject_map_task<F>();
  }
  template <class F>
    requires(!detail::kIsUnaryTask<F>)
  auto map(F&&, const detail::AnyItems&, std::size_t = 0) {
    detail::reject_map_task<F>();
  }
  template <class F>
    requires(!detail::kIsUnaryTask<F>)
  auto imap(F&&, const detail::AnyItems&, std::size_t = 1) {
    detail::reject_map_task<F>();
  }
  template <class F>
    requires(!detail::kIsUnaryTask<F>)
  auto imap_unordered(F&&, const detail::AnyItems&, std::size_t = 1) {
    detail::reject_map_task<F>();
  }

  /// Calls fn with each tuple's elements as its arguments; chunks as map.
  template <class R, class... A, class... T>
  AsyncResult<detail::MapResult<R>> starmap_async(
      R (*fn)(A...), const std::vector<std::tuple<T...>>& items,
      std::size_t chunksize = 0) {
    static_assert(sizeof...(A) == sizeof...(T), "wrong number of arguments for this task");
    return submit_chunks(fn, "Pool::starmap", items, chunksize,
                         [](const auto& item) -> const auto& { return item; });
  }

  template <class R, class... A, class... T>
  detail::MapResult<R> starmap(R (*fn)(A...),
                               const std::vector<std::tuple<T...>>& items,
                               std::size_t chunksize = 0) {
    return starmap_async(fn, items, chunksize).get();
  }
  template <class F>
    requires(!detail::kIsTaskPointer<F>)
  auto starmap_async(F&&, const detail::AnyItems&, std::size_t = 0) {
    detail::reject_closure<F>();
  }
  template <class F>
    requires(!detail::kIsTaskPointer<F>)
  auto starmap(F&&, const detail::AnyItems&, std::size_t = 0) {
    detail::reject_closure<F>();
  }

  /// No more submissions; workers exit once the queued tasks are done.
  void close();
  /// Waits for the workers to exit; call close() or terminate() first.
  void join();
  /// Stops the workers now; unfinished calls fail with PoolClosed.
  void terminate();
  /// Grows or shrinks the pool while tasks run; no task is lost. A retiring
  /// worker finishes what it holds and then exits. An elastic pool becomes
  /// one of this fixed size.
  void resize(int processes);
  /// The number of workers the pool aims for (an elastic pool: at most).
  int size() const;
  std::vector<WorkerInfo> workers() const;

 private:
  template <class R, class A, class Range>
  static std::vector<std::string> encode_each(R (*fn)(A), const Range& items) {
    std::vector<std::string> calls;
    for (const auto& item : items) calls.push_back(detail::encode_args(fn, item));
    return calls;
  }
  std::shared_ptr<detail::Batch> submit(detail::FunctionKey fn, const char* where,
                                        std::vector<std::string> calls,
                                        std::size_t chunksize);
  /// Encodes items in chunks of one unit each and submits them, one slot of
  /// the batch per chunk.
  template <class R, class... A, class Range, class Make>
  AsyncResult<detail::MapResult<R>> submit_chunks(R (*fn)(A...), const char* where,
                                                  const Range& items, std::size_t chunksize,
                                                  Make make) {
    const std::string& name = detail::task_name(detail::key_of(fn), where);
    const auto count = static_cast<std::size_t>(std::distance(std::begin(items), std::end(items)));
    chunksize = chunk_size(count, chunksize);
    auto batch =
        enqueue(name, where, detail::encode_chunks(fn, items, count, chunksize, make), 1, true);
    return AsyncResult<detail::MapResult<R>>(
        std::move(batch), [count, chunksize](const detail::Batch& b) {
          return detail::decode_chunks<R>(b, count, chunksize);
        });
  }
  /// chunksize, or when 0 the pool's default: PoolOptions.chunksize, else
  /// multiprocessing's choice (about four chunks per worker).
  std::size_t chunk_size(std::size_t calls, std::size_t chunksize) const;
  /// Queues blobs of encoded arguments: calls in tasks of chunksize, or
  /// (chunked) chunks each a task of its own.
  std::shared_ptr<detail::Batch> enqueue(const std::string& name, const char* where,
                                         std::vector<std::string> blobs, std::size_t chunksize,
                                         bool chunked);

  PoolOptions options_;
  std::atomic<bool> closed_{false};
  std::atomic<int> size_{0};
  std::unique_ptr<master::PoolHandle> handle_;
};

}  // namespace fiber
