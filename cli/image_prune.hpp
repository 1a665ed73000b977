// Removing the images fiber packaged into a local engine (fiber run and
// fiber image build load one per rebuild of a program, localhost/fiber/...)
// once no run uses them: for fiber image prune and fiber prune.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/settings.hpp"
#include "engine/engine_client.hpp"

namespace fiber::cli {

struct PrunedImages {
  std::vector<std::string> removed;  // repository:tag, each untagged or deleted
  std::int64_t bytes = 0;            // of the images deleted
};

/// Connects to the engine images are loaded into for these settings (the
/// workers' engine for a container backend); false with *err.
[[nodiscard]] bool ConnectImageEngine(const config::Settings& settings, engine::Client* out,
                                      std::string* err);

/// Removes from engine every localhost/fiber/ image that neither a
/// container (of any run, running or stopped: the engine keeps those) nor
/// a running run (its recorded image setting, before its containers start)
/// uses; only those of repository (image/package.hpp's RepositoryFor)
/// when it is given. False with *err when the engine cannot list or remove
/// them.
[[nodiscard]] bool PruneImages(const engine::Client& engine, const std::string& repository,
                               PrunedImages* out, std::string* err);

/// Prints what PruneImages removed, one reference a line.
void ReportPrunedImages(const PrunedImages& pruned);

}  // namespace fiber::cli
