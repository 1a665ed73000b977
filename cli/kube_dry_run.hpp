// `fiber run --dry-run -o yaml` for the Kubernetes backend: the objects a
// run would create (its Secret, with the key redacted, and its first
// worker's pod), rendered from the run's templates as the backend renders
// them, printed as YAML that kubectl reads back. Nothing is created,
// packaged or pushed.
#pragma once

#include <string>
#include <vector>

#include "config/settings.hpp"

namespace fiber::cli {

/// The YAML for a run of program (its path and arguments) with these
/// settings; false with *err naming the template or setting at fault.
[[nodiscard]] bool KubernetesDryRun(const config::Settings& settings,
                                    const std::vector<std::string>& program, std::string* yaml,
                                    std::string* err);

}  // namespace fiber::cli
