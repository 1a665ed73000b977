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

/// Where the settings that choose what runs or ships (Setting::shown_at_run)
/// came from, for those not left at their default: "kubeconfig from
/// /p/fiber.yaml:3:13, registry from FIBER_REGISTRY"; "" when none is set.
std::string ShownAtRunSources(const Resolved& resolved);

}  // namespace fiber::config
