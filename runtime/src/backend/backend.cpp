#include "backend/backend.hpp"

#include "backend/local/local_backend.hpp"

namespace fiber::backend {

namespace {

struct Known {
  const char* name;
  std::unique_ptr<Backend> (*make)();
};

const Known kBackends[] = {
    {"local", [] { return std::unique_ptr<Backend>(std::make_unique<LocalBackend>()); }},
};

}  // namespace

bool CheckName(const std::string& name, std::string* err) {
  std::string known;
  for (const auto& b : kBackends) {
    if (name == b.name) return true;
    known += (known.empty() ? "" : ", ") + std::string(b.name);
  }
  *err = "'" + name + "' is not a known backend (known: " + known + ")";
  return false;
}

std::unique_ptr<Backend> Make(const std::string& name, std::string* err) {
  for (const auto& b : kBackends)
    if (name == b.name) return b.make();
  (void)CheckName(name, err);
  return nullptr;
}

}  // namespace fiber::backend
