// `fiber run --dry-run -o yaml` for the Kubernetes backend (its row of
// engine_adapter.hpp): the objects a
// run would create (its Secret, with the key redacted, the master's pod with
// master: cluster, and its first worker's pod), rendered from the run's templates as the backend renders
// them, printed as YAML that kubectl reads back. Nothing is created,
// packaged or pushed.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "config/resolve.hpp"

namespace fiber::backend {

/// The YAML for a run of program (its path and arguments) with these
/// settings and env (KEY=VALUE, --env, for a master's pod); false with
/// *err naming the template or setting at fault.
[[nodiscard]] bool KubernetesDryRun(const config::Resolved& resolved,
                                    const std::vector<std::string>& program,
                                    const std::vector<std::string>& env, std::string* yaml,
                                    std::string* err);

/// Objects as `fiber run --dry-run -o yaml` prints them: one YAML document
/// each, "---" between them, every Secret's data and stringData values
/// shown as "<redacted>".
std::string DryRunYaml(const std::vector<nlohmann::json>& objects);

}  // namespace fiber::backend
