#include "backend/helper_role.hpp"

#include <cstdlib>

#include "backend/local/fork_server.hpp"
#include "config/variables.hpp"

namespace fiber::backend {

void RunHelperRole(const os::Getenv& env) {
  if (const char* fd = env(config::kForkServerFdVariable)) RunForkServer(std::atoi(fd));
}

}  // namespace fiber::backend
