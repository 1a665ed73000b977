// The one reader of a whole file into memory. Thread-safe (no state).
#pragma once

#include <string>

namespace fiber::os {

/// Reads path whole into *text; false with *reason the system's reason
/// ("No such file or directory"), which the caller words with the path as
/// its message has it: never the content.
[[nodiscard]] bool ReadWholeFile(const std::string& path, std::string* text, std::string* reason);

/// Reads what is left of the open file fd into *text (fd stays open), as
/// ReadWholeFile reads a path: for a file judged by its descriptor first.
[[nodiscard]] bool ReadWhole(int fd, std::string* text, std::string* reason);

}  // namespace fiber::os
