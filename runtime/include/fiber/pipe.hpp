// fiber::Pipe<T>: two connected ends, as multiprocessing.Pipe gives.
//   auto [a, b] = fiber::Pipe<std::string>(true);
// Each end is a Pipe<T>::Connection with send, recv, poll and close. A pipe
// is two of the run's queues (one each way; one for a one-way pipe, where
// the first end only receives and the second only sends), so its ends work
// from any process of the run and are passed to a Process or a Pool task as
// ordinary arguments.
#pragma once

#include <chrono>
#include <optional>
#include <utility>

#include "fiber/detail/seconds.hpp"
#include "fiber/queue.hpp"

namespace fiber {

template <class T>
class Pipe {
 public:
  class Connection {
   public:
    Connection() = default;
    /// Throws Closed once either end was closed.
    void send(const T& item) {
      detail::queue_put(require(out_, "send"), detail::to_bytes(item), std::nullopt,
                        "Pipe::Connection::send");
    }
    /// Waits for an item; throws Closed once the other end is closed and
    /// nothing is left to take.
    T recv() {
      return decode(
          detail::queue_get(require(in_, "recv"), std::nullopt, "Pipe::Connection::recv").items[0]);
    }
    /// True when recv would not wait (an item, or the other end closed);
    /// waits up to timeout for that.
    template <class Rep, class Period>
    bool poll(std::chrono::duration<Rep, Period> timeout) {
      return detail::queue_poll(require(in_, "poll"), detail::timeout_of(timeout),
                                "Pipe::Connection::poll");
    }
    /// The same in seconds (0.1; an integer too); Error when negative or NaN.
    bool poll(detail::Seconds auto seconds) {
      return poll(detail::seconds_to_timeout(seconds, "Pipe::Connection::poll"));
    }
    bool poll() { return poll(std::chrono::milliseconds(0)); }
    /// Closes both directions: the other end's recv drains and then throws
    /// Closed, and its send throws Closed.
    void close() {
      if (out_) detail::queue_close(*out_, "Pipe::Connection::close");
      if (in_) detail::queue_close(*in_, "Pipe::Connection::close");
    }

    template <class Archive>
    void serialize(Archive& ar) {
      ar(in_, out_);
    }

   private:
    friend class Pipe;
    Connection(std::optional<detail::QueueRef> in, std::optional<detail::QueueRef> out)
        : in_(std::move(in)), out_(std::move(out)) {}
    static const detail::QueueRef& require(const std::optional<detail::QueueRef>& q,
                                           const char* what) {
      if (!q)
        throw Error(std::string("Pipe::Connection::") + what +
                    ": this end of a one-way pipe cannot " + what);
      return *q;
    }
    static T decode(std::string_view bytes) {
      try {
        return detail::from_bytes<T>(bytes);
      } catch (const cereal::Exception& e) {
        throw Error(std::string("an item does not decode as the pipe's type (") + e.what() + ")");
      }
    }
    std::optional<detail::QueueRef> in_, out_;
  };

  /// duplex: both ends send and receive; else the first end receives what
  /// the second sends.
  explicit Pipe(bool duplex = true) {
    const detail::QueueRef ba = detail::LazyRunObject(detail::RunObjectSpec{}).ref();  // second -> first
    if (duplex) {
      const detail::QueueRef ab = detail::LazyRunObject(detail::RunObjectSpec{}).ref();  // first -> second
      first = Connection(ba, ab);
      second = Connection(ab, ba);
    } else {
      first = Connection(ba, std::nullopt);
      second = Connection(std::nullopt, ba);
    }
  }

  Connection first, second;
};

}  // namespace fiber
