// Where each setting came from, as `fiber config show` prints it: one line
// per setting with its value and its source.
//
//   backend             local     default
//   heartbeat_timeout   10.000    /home/ada/proj/fiber.yaml:3:20
//   prefetch            8         --prefetch
#pragma once

#include <string>

#include "config/resolve.hpp"

namespace fiber::config {

std::string SourcesReport(const Resolved& resolved);

}  // namespace fiber::config
