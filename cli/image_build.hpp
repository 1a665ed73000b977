// The image fiber makes of a program, as fiber image build and fiber run
// make it: packaged (image/package.hpp) with the image_files setting's
// files, then pushed to the registry asked for (--push, else the registry
// setting), or else loaded into the local engine. Progress goes to stderr on a terminal only.
#pragma once

#include <cstdio>
#include <string>

#include "config/settings.hpp"
#include "image/package.hpp"
#include "image/registry_push.hpp"

namespace fiber::cli {

struct ImageRequest {
  std::string program;  // as found on PATH or given
  const config::Settings* settings = nullptr;  // image_files, registry, engine
  /// REGISTRY/NAME[:TAG] to push to; empty: the registry setting's, and
  /// when that is empty too, load into the local engine.
  std::string push_to;
  bool progress = false;
};

struct BuiltImage {
  image::Image image;
  /// What a container is started from: the engine's fiber/NAME:ID, or the
  /// pushed REGISTRY/NAME:TAG@sha256:DIGEST.
  std::string reference;
  image::PushReport push;  // when pushed
  bool loaded = false;     // false: the engine had it already
};

/// Packages, then pushes or loads; false with *err saying which step
/// failed and why.
[[nodiscard]] bool BuildImage(const ImageRequest& request, BuiltImage* out, std::string* err);

/// What went into the image, with sizes, and where it went: one line each.
void ReportImage(const BuiltImage& built, FILE* to);

/// A size for people: "812 B", "14.2 MB".
std::string HumanSize(std::int64_t bytes);

}  // namespace fiber::cli
