// The media types of the images fiber makes (Docker's image manifest,
// schema 2, which every engine and registry reads), named once for the
// manifest, the registry's Content-Type and Accept headers.
#pragma once

namespace fiber::image {

inline constexpr const char* kManifestMediaType = "application/vnd.docker.distribution.manifest.v2+json";
inline constexpr const char* kConfigMediaType = "application/vnd.docker.container.image.v1+json";
inline constexpr const char* kLayerMediaType = "application/vnd.docker.image.rootfs.diff.tar.gzip";

}  // namespace fiber::image
