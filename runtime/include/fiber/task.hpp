// Tasks are free functions registered by name with FIBER_TASK(fn): a C++
// closure cannot travel to another process, so a worker (the same
// executable) looks the function up by the name the master sends.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <iterator>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "fiber/detail/task_checks.hpp"
#include "fiber/serialize.hpp"

namespace fiber::detail {

/// Runs one call: decodes the argument tuple, calls the function, encodes the
/// result (empty for void). Exceptions from the function propagate.
using Invoker = std::string (*)(std::string_view args);

/// How a worker runs a registered function: one call, or a chunk of map's
/// calls as one unit.
struct Invokers {
  Invoker call = nullptr;
  Invoker chunk = nullptr;
};

template <class F>
struct Signature;
template <class R, class... A>
struct Signature<R (*)(A...)> {
  using Result = R;
  using Args = std::tuple<std::decay_t<A>...>;
  // False stops the build at key_of with advice; the invokers then compile
  // to nothing, so that advice is the only error.
  static constexpr bool kParametersTravel = (kIsTaskParameter<A> && ...);
};

template <auto Fn>
std::string invoke(std::string_view bytes) {
  using Sig = Signature<decltype(Fn)>;
  if constexpr (!Sig::kParametersTravel) {
    return {};
  } else {
    auto args = from_bytes<typename Sig::Args>(bytes);
    if constexpr (std::is_void_v<typename Sig::Result>) {
      std::apply(Fn, std::move(args));
      return {};
    } else {
      return to_bytes(std::apply(Fn, std::move(args)));
    }
  }
}

/// Runs a chunk of calls (map, starmap): decodes a vector of argument tuples,
/// calls the function on each in order and encodes the results one after
/// another in one archive (nothing for void), so a chunk costs one decode
/// and one encode, not one per call. The first exception ends the chunk and
/// propagates, as in multiprocessing.
template <auto Fn>
std::string invoke_chunk(std::string_view bytes) {
  using Sig = Signature<decltype(Fn)>;
  std::string out;
  if constexpr (Sig::kParametersTravel) {
    auto chunk = from_bytes<std::vector<typename Sig::Args>>(bytes);
    OutputArchive archive(&out);
    for (auto& args : chunk) {
      if constexpr (std::is_void_v<typename Sig::Result>) {
        std::apply(Fn, std::move(args));
      } else {
        archive(std::apply(Fn, std::move(args)));
      }
    }
  }
  return out;
}

using FunctionKey = std::uintptr_t;

/// Every use of a task goes through here, FIBER_TASK too, so the checks of
/// its signature live here.
template <class R, class... A>
FunctionKey key_of(R (*fn)(A...)) {
  static_assert((kIsTaskParameter<A> && ...),
                "fiber: a task cannot take a non-const lvalue reference (T&): it runs on a copy "
                "in another process, so results cannot flow back through it; return them");
  return reinterpret_cast<FunctionKey>(fn);
}

/// Adds fn, registered as name at file:line, to the process-wide registry;
/// returns true so FIBER_TASK can run it during static initialisation.
bool register_task(FunctionKey key, const char* name, const char* file, int line,
                   Invokers invokers);

/// The registered name of fn, as the master sends it: "work@a.cpp:12", so
/// same-named functions of different files never stand for each other;
/// throws fiber::NotRegistered naming the function (as far as the symbol
/// table knows it) and the call site `where`.
const std::string& task_name(FunctionKey key, const char* where);

/// The invokers registered under name; nullptr ones when there are none.
Invokers find_invokers(const std::string& name);

/// Encodes a call's arguments as the parameter types of fn expect them.
template <class R, class... A, class... Args>
std::string encode_args(R (*)(A...), Args&&... args) {
  static_assert(sizeof...(A) == sizeof...(Args),
                "wrong number of arguments for this task");
  return to_bytes(std::tuple<std::decay_t<A>...>(std::forward<Args>(args)...));
}

/// Encodes items as chunks of chunksize calls of fn (the last may be
/// shorter), each a vector of argument tuples as invoke_chunk reads it.
/// make turns an item into fn's argument tuple.
template <class R, class... A, class Range, class Make>
std::vector<std::string> encode_chunks(R (*)(A...), const Range& items, std::size_t count,
                                       std::size_t chunksize, Make make) {
  using Args = std::tuple<std::decay_t<A>...>;
  std::vector<std::string> chunks;
  chunks.reserve(chunksize ? (count + chunksize - 1) / chunksize : 0);
  auto it = std::begin(items);
  for (std::size_t left = count; left > 0;) {
    const std::size_t n = std::min(chunksize, left);
    OutputArchive archive(&chunks.emplace_back());
    // The layout of std::vector<Args>: its length, then the elements.
    archive(cereal::make_size_tag(static_cast<cereal::size_type>(n)));
    for (std::size_t i = 0; i < n; ++i, ++it) archive(Args(make(*it)));
    left -= n;
  }
  return chunks;
}

}  // namespace fiber::detail

namespace fiber {

/// A registered function bound to its arguments, e.g. a pool initializer:
/// PoolOptions{.initializer = fiber::call(seed_rng, 42)}.
struct Call {
  std::string function;  // registered name; empty means "none"
  std::string args;      // encoded argument tuple
  explicit operator bool() const { return !function.empty(); }
};

template <class R, class... A, class... Args>
Call call(R (*fn)(A...), Args&&... args) {
  return Call{detail::task_name(detail::key_of(fn), "fiber::call"),
              detail::encode_args(fn, std::forward<Args>(args)...)};
}
template <class F, class... Args>
  requires(!detail::kIsTaskPointer<F>)
auto call(F&&, Args&&...) {
  detail::reject_closure<F>();
}

}  // namespace fiber

#define FIBER_DETAIL_CONCAT2(a, b) a##b
#define FIBER_DETAIL_CONCAT(a, b) FIBER_DETAIL_CONCAT2(a, b)

/// Registers a free function as a task. Use at namespace scope, after the
/// function's declaration, in a file linked into the executable. Its name
/// is fn as written plus this file and line, so a static `work` in each of
/// two files are two tasks. __COUNTER__, not __LINE__, names the flag: two
/// on one line (a macro of the user's) still compile.
#define FIBER_TASK(fn)                                                           \
  static const bool FIBER_DETAIL_CONCAT(fiber_task_registered_, __COUNTER__) =   \
      ::fiber::detail::register_task(                                            \
          ::fiber::detail::key_of(&fn), #fn, __FILE__, __LINE__,                 \
          {&::fiber::detail::invoke<&fn>, &::fiber::detail::invoke_chunk<&fn>})
