// A timeout as multiprocessing users write it, a number of seconds
// (timeout=0.1): every call that takes a std::chrono duration also takes a
// number (an integer too: get(5) waits 5 s; not a bool, which would read as
// 0 or 1 s where multiprocessing's block=True waits for ever), made a
// duration here and then handled as that duration is.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>
#include <type_traits>

#include "fiber/errors.hpp"

namespace fiber::detail {

/// A number of seconds: any arithmetic type but bool.
template <class S>
concept Seconds = std::is_arithmetic_v<S> && !std::is_same_v<S, bool>;

/// The longest timeout taken in seconds, over 31 years: a deadline that far
/// from now still fits a steady_clock time point.
inline constexpr double kMaxTimeoutSeconds = 1e9;

/// seconds as a duration, rounded up to whole milliseconds as a duration's
/// timeout is (0 stays 0: do not wait). A negative, NaN or longer one throws
/// Error naming where.
inline std::chrono::milliseconds seconds_to_timeout(double seconds, const char* where) {
  if (!(seconds >= 0 && seconds <= kMaxTimeoutSeconds)) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", seconds);
    throw Error(std::string(where) + ": timeout must be a number of seconds from 0 to 1e9, not " +
                text);
  }
  return std::chrono::ceil<std::chrono::milliseconds>(std::chrono::duration<double>(seconds));
}

}  // namespace fiber::detail
