// Compile-time advice where a task is misused: each check is a
// static_assert whose message says what to do instead, so the first error
// a user reads is the fix, not a page of failed template deductions. The
// API's catch-all overloads (Pool::map given a lambda, ...) call these.
#pragma once

#include <type_traits>

namespace fiber::detail {

/// A pointer to a free function, what FIBER_TASK registers.
template <class F>
inline constexpr bool kIsTaskPointer =
    std::is_pointer_v<std::decay_t<F>> && std::is_function_v<std::remove_pointer_t<std::decay_t<F>>>;

template <class F>
struct TaskArity {
  static constexpr int value = -1;
};
template <class R, class... A>
struct TaskArity<R (*)(A...)> {
  static constexpr int value = sizeof...(A);
};

/// A free function of one argument, what map calls.
template <class F>
inline constexpr bool kIsUnaryTask = kIsTaskPointer<F> && TaskArity<std::decay_t<F>>::value == 1;

/// A task's parameter can take a copy made in another process: anything but
/// a non-const lvalue reference.
template <class A>
inline constexpr bool kIsTaskParameter =
    !std::is_lvalue_reference_v<A> || std::is_const_v<std::remove_reference_t<A>>;

template <class F>
inline constexpr bool kNever = false;

/// Stops the build of a call given a lambda, functor or std::function.
/// These return auto, as the overloads calling them do: a deduced return
/// type instantiates the body at the call, so the advice is the first error.
template <class F>
auto reject_closure() {
  static_assert(kNever<F>,
                "fiber: pass a free function registered with FIBER_TASK(fn); a closure (a lambda, "
                "functor or std::function) cannot travel to another process");
}

/// Stops the build of map, imap or imap_unordered given anything but a
/// registered function of one argument.
template <class F>
auto reject_map_task() {
  if constexpr (!kIsTaskPointer<F>)
    reject_closure<F>();
  else
    static_assert(kNever<F>,
                  "fiber: map calls a function of one argument; for a function of several, use "
                  "starmap with a vector of tuples");
}

/// Takes any items, a braced list too, so a catch-all overload is chosen.
struct AnyItems {
  template <class... T>
  AnyItems(T&&...) {}  // NOLINT: implicit by design
};

}  // namespace fiber::detail
