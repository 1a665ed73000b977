#include "error_line.hpp"

#include <cstdio>

namespace fiber::cli {

void Error(const std::string& message) { std::fprintf(stderr, "fiber: error: %s\n", message.c_str()); }

}  // namespace fiber::cli
