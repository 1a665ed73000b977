// Building a project's Dockerfile through the container engine's build API
// (POST /build with a tar of the build context), for fiber run --build.
// The image is tagged as packaged ones are: REPOSITORY:<first 12 hex of its
// ID>.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "engine/engine_client.hpp"

namespace fiber::image {

/// What a build context holds, told before it is sent.
struct BuildContext {
  std::int64_t files = 0;     // regular files and links sent
  std::int64_t bytes = 0;     // their contents
  std::int64_t left_out = 0;  // paths .dockerignore kept back (a directory not walked: once)
};

/// Builds context_dir/Dockerfile on engine and tags it
/// repository:ID12 (*reference). The context is context_dir less what its
/// .dockerignore lists, as the Docker CLI sends it; on_context hears what
/// it holds before it is sent. on_step gets each line the build prints,
/// as it comes ("Step 1/2 : FROM scratch"). False with *err: no
/// Dockerfile, no engine, or the build's own error.
[[nodiscard]] bool BuildDockerfile(const std::string& context_dir, const std::string& repository,
                                   const engine::Client& engine,
                                   const std::function<void(const BuildContext&)>& on_context,
                                   const std::function<void(const std::string&)>& on_step,
                                   std::string* reference, std::string* err);

}  // namespace fiber::image
