// Pushing a packaged image to a registry through the registry HTTP API v2:
// each blob is asked for with HEAD and uploaded only when the registry lacks
// it (POST, then one PUT with its digest), then the manifest is PUT under
// the tag. The same image pushed again uploads nothing.
#pragma once

#include <string>
#include <vector>

#include "image/package.hpp"
#include "image/registry_credentials.hpp"
#include "image/registry_reference.hpp"

namespace fiber::image {

struct BlobPush {
  std::string what;  // "layer", "config"
  Blob blob;
  bool uploaded = false;  // false: the registry had it
};

struct PushReport {
  /// REGISTRY/NAME:TAG@sha256:<manifest digest>, for scripts and engines.
  std::string reference;
  std::vector<BlobPush> blobs;
};

/// Pushes img to `to` (its tag, else img.Tag()); false with *err naming the
/// registry and what it said ("cannot reach the registry ...", "... refused
/// the credentials of USER (from FILE)").
[[nodiscard]] bool Push(const Image& img, const RegistryReference& to, const Credentials& credentials,
                        PushReport* report, std::string* err);

}  // namespace fiber::image
