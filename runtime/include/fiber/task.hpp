// Tasks are free functions registered by name with FIBER_TASK(fn): a C++
// closure cannot travel to another process, so a worker (the same
// executable) looks the function up by the name the master sends.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include "fiber/serialize.hpp"

namespace fiber::detail {

/// Runs one call: decodes the argument tuple, calls the function, encodes the
/// result (empty for void). Exceptions from the function propagate.
using Invoker = std::string (*)(std::string_view args);

template <class F>
struct Signature;
template <class R, class... A>
struct Signature<R (*)(A...)> {
  using Result = R;
  using Args = std::tuple<std::decay_t<A>...>;
};

template <auto Fn>
std::string invoke(std::string_view bytes) {
  using Sig = Signature<decltype(Fn)>;
  auto args = from_bytes<typename Sig::Args>(bytes);
  if constexpr (std::is_void_v<typename Sig::Result>) {
    std::apply(Fn, std::move(args));
    return {};
  } else {
    return to_bytes(std::apply(Fn, std::move(args)));
  }
}

using FunctionKey = std::uintptr_t;

template <class R, class... A>
FunctionKey key_of(R (*fn)(A...)) {
  return reinterpret_cast<FunctionKey>(fn);
}

/// Adds fn to the process-wide registry; returns true so FIBER_TASK can
/// run it during static initialisation.
bool register_task(FunctionKey key, const char* name, Invoker invoker);

/// The registered name of fn; throws fiber::NotRegistered naming the
/// function (as far as the symbol table knows it) and the call site `where`.
const std::string& task_name(FunctionKey key, const char* where);

/// The invoker registered under name, or nullptr.
Invoker find_invoker(const std::string& name);

/// Encodes a call's arguments as the parameter types of fn expect them.
template <class R, class... A, class... Args>
std::string encode_args(R (*)(A...), Args&&... args) {
  static_assert(sizeof...(A) == sizeof...(Args),
                "wrong number of arguments for this task");
  return to_bytes(std::tuple<std::decay_t<A>...>(std::forward<Args>(args)...));
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

}  // namespace fiber

#define FIBER_DETAIL_CONCAT2(a, b) a##b
#define FIBER_DETAIL_CONCAT(a, b) FIBER_DETAIL_CONCAT2(a, b)

/// Registers a free function as a task. Use at namespace scope, after the
/// function's declaration, in a file linked into the executable.
#define FIBER_TASK(fn)                                                   \
  static const bool FIBER_DETAIL_CONCAT(fiber_task_registered_, __LINE__) = \
      ::fiber::detail::register_task(::fiber::detail::key_of(&fn), #fn,   \
                                     &::fiber::detail::invoke<&fn>)
