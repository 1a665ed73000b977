// Results of calls submitted to a pool: AsyncResult<T> for one call (or a
// whole map_async), IMapResult<R> for the lazy iterators of imap and
// imap_unordered. Both wait on a detail::Batch filled by the pool's I/O thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "fiber/detail/batch.hpp"
#include "fiber/detail/seconds.hpp"
#include "fiber/errors.hpp"

namespace fiber {

/// The future result of apply_async (one call) or map_async (all calls, as a
/// vector). Copyable; all copies share one state.
template <class T>
class AsyncResult {
 public:
  using Decoder = std::function<T(const detail::Batch&)>;
  AsyncResult(std::shared_ptr<detail::Batch> batch, Decoder decoder)
      : batch_(std::move(batch)), decoder_(decoder) {}

  /// Waits for the result; throws RemoteError, WorkerLost, ... on failure.
  T get() {
    batch_->wait_all();
    return decoder_(*batch_);
  }
  /// Like get(), but throws TimeoutError when the result is not ready in time.
  template <class Rep, class Period>
  T get(std::chrono::duration<Rep, Period> timeout) {
    if (!batch_->wait_all(detail::deadline_after(timeout)))
      throw TimeoutError("result not ready within the timeout");
    return decoder_(*batch_);
  }
  /// The same in seconds (0.1; an integer too); Error when negative or NaN.
  T get(detail::Seconds auto seconds) { return get(detail::seconds_to_timeout(seconds, "AsyncResult::get")); }
  void wait() { batch_->wait_all(); }
  /// Waits at most timeout; true when the result is ready.
  template <class Rep, class Period>
  bool wait(std::chrono::duration<Rep, Period> timeout) {
    return batch_->wait_all(detail::deadline_after(timeout));
  }
  bool wait(detail::Seconds auto seconds) {
    return wait(detail::seconds_to_timeout(seconds, "AsyncResult::wait"));
  }
  bool ready() const { return batch_->ready(); }
  /// True when ready and every call succeeded.
  bool successful() const {
    if (!batch_->ready()) return false;
    for (std::size_t i = 0; i < batch_->size(); ++i)
      if (batch_->at(i).kind != detail::Outcome::Kind::kValue) return false;
    return true;
  }

 private:
  std::shared_ptr<detail::Batch> batch_;
  Decoder decoder_;
};

/// The lazy iterator of imap (submission order) and imap_unordered
/// (completion order). Use in a range-for, or call next().
template <class R>
class IMapResult {
  static_assert(!std::is_void_v<R>, "imap needs a task that returns a value");

 public:
  IMapResult(std::shared_ptr<detail::Batch> batch, bool ordered)
      : batch_(std::move(batch)), ordered_(ordered) {}

  /// The next result, or nullopt after the last; throws the call's error.
  std::optional<R> next() { return next_until({}); }
  /// Like next(), but throws TimeoutError when no result arrives in time.
  template <class Rep, class Period>
  std::optional<R> next(std::chrono::duration<Rep, Period> timeout) {
    return next_until(detail::deadline_after(timeout));
  }
  /// The same in seconds (0.1; an integer too); Error when negative or NaN.
  std::optional<R> next(detail::Seconds auto seconds) {
    return next(detail::seconds_to_timeout(seconds, "IMapResult::next"));
  }

  struct Sentinel {};
  class Iterator {
   public:
    explicit Iterator(IMapResult* owner) : owner_(owner), value_(owner->next()) {}
    const R& operator*() const { return *value_; }
    Iterator& operator++() {
      value_ = owner_->next();
      return *this;
    }
    bool operator==(Sentinel) const { return !value_.has_value(); }

   private:
    IMapResult* owner_;
    std::optional<R> value_;
  };
  Iterator begin() { return Iterator(this); }
  Sentinel end() { return {}; }

 private:
  std::optional<R> next_until(const detail::Deadline& deadline) {
    if (position_ == batch_->size()) return std::nullopt;
    std::size_t index = position_;
    bool arrived = ordered_ ? batch_->wait_slot(index, deadline)
                            : batch_->wait_completed(position_, &index, deadline);
    if (!arrived) throw TimeoutError("no result within the timeout");
    ++position_;
    return detail::decode<R>(batch_->at(index));
  }

  std::shared_ptr<detail::Batch> batch_;
  bool ordered_;
  std::size_t position_ = 0;
};

}  // namespace fiber
