// Type and function names as people write them, for error messages.
#pragma once

#include <string>

namespace fiber {

/// The demangled form of a C++ symbol or type name; the name itself when it
/// does not demangle.
std::string Demangle(const char* mangled);

/// The type of the exception being handled, e.g. "std::invalid_argument";
/// call inside a catch block.
std::string CurrentExceptionType();

}  // namespace fiber
