#include "backend/backend.hpp"

#include "backend/local/local_backend.hpp"

namespace fiber::backend {

std::unique_ptr<Backend> Make(const std::string& name, std::string* err) {
  if (name == "local") return std::make_unique<LocalBackend>();
  *err = "unknown backend '" + name + "' (known: local)";
  return nullptr;
}

}  // namespace fiber::backend
