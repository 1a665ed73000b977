#include "backend/backend.hpp"

namespace fiber::backend {

bool Backend::StartMany(const std::vector<Launch>& launches, std::string* err) {
  for (const Launch& launch : launches)
    if (!Start(launch, err)) return false;
  return true;
}

}  // namespace fiber::backend
