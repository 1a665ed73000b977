#include "os/demangle.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <typeinfo>

namespace fiber {

std::string Demangle(const char* mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(
      abi::__cxa_demangle(mangled, nullptr, nullptr, &status), std::free);
  return status == 0 && name ? name.get() : mangled;
}

std::string CurrentExceptionType() {
  const std::type_info* type = abi::__cxa_current_exception_type();
  return type ? Demangle(type->name()) : "unknown";
}

}  // namespace fiber
