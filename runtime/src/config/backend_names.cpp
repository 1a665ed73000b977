#include "config/backend_names.hpp"

namespace fiber::config {

bool CheckBackendName(const std::string& name, std::string* err) {
  std::string known;
  for (const char* b : kBackendNames) {
    if (name == b) return true;
    known += (known.empty() ? "" : ", ") + std::string(b);
  }
  *err = "'" + name + "' is not a known backend (known: " + known + ")";
  return false;
}

}  // namespace fiber::config
