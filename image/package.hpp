// A native program packaged as a container image with no base image and no
// Dockerfile, as ko does for Go: the executable, its dynamic loader and every
// shared library it loads, and the files the user lists, in one layer. The
// image is a function of those inputs: entries sorted, one fixed time
// (SOURCE_DATE_EPOCH, else 0), owner 0:0, normalized modes, a gzip stream
// with no name or time; so the same inputs give the same digests on any
// machine. Everything keeps its absolute path from this machine.
//
//   image::PackageInputs in;
//   in.program = "/home/me/proj/build/train";
//   in.blob_dir = cache + "/blobs";
//   image::Image img;
//   if (!image::Package(in, &img, &err)) ...
//   image::LoadIntoEngine(img, engine, &loaded, &err);  // image/engine_load.hpp
//   image::Push(img, to, credentials, &report, &err);    // image/registry_push.hpp
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fiber::image {

struct PackageInputs {
  /// The executable, as a path (relative ones from base_dir).
  std::string program;
  /// More files or directories to add (the files setting); relative ones
  /// are read from base_dir, which then becomes the image's working
  /// directory.
  std::vector<std::string> files;
  std::string base_dir;
  /// Libraries the program loads later by name (dlopen), added with what
  /// they load: "libcurl.so.4" for a master that runs in a pod and talks
  /// to the Kubernetes API (http/client.cpp loads it on first use).
  std::vector<std::string> loaded_later;
  /// The time on every entry and in the config: SOURCE_DATE_EPOCH's value.
  std::int64_t mtime = 0;
  /// Where the layer is written, as blob_dir/sha256/HEX (made if missing).
  std::string blob_dir;
};

/// A content-addressed blob of the image.
struct Blob {
  std::string media_type;
  std::string digest;  // "sha256:..."
  std::int64_t size = 0;
};

/// One thing that went into the image, for the report of what is in it.
struct Content {
  std::string path;
  std::string role;  // "program", "loader", "library", "listed"
  std::int64_t bytes = 0;
};

struct Image {
  /// "localhost/fiber/<program name>"; the tag is the config digest's
  /// first 12 hex digits, which is what engines show as the image's ID.
  std::string repository;
  std::string architecture;
  std::string entrypoint;  // the program's absolute path in the image
  std::string layer_file;  // the gzip layer blob on this machine
  std::string diff_id;     // the digest of the uncompressed layer
  Blob layer;
  std::string config;  // the config JSON's exact bytes
  Blob config_blob;
  std::string manifest;  // the Docker schema 2 manifest's exact bytes
  Blob manifest_blob;
  std::vector<Content> contents;

  std::string Tag() const;
  /// repository:tag, as loaded into an engine.
  std::string Reference() const;
};

/// Where every image fiber makes for this machine's engine is: the
/// repositories fiber image prune may remove.
inline constexpr const char* kLocalRepositoryPrefix = "localhost/fiber/";

/// "localhost/fiber/NAME" for a program's or a project directory's path:
/// its last component in lower case, other characters as single '-'. The
/// registry part "localhost" says the image is only on this machine, and
/// it is the name Podman gives such an image on load: without it, Podman
/// would look for "fiber/NAME" on docker.io and not find what it loaded.
std::string RepositoryFor(const std::string& path);

/// Packages the program; false with *err naming what could not go in (the
/// program not found or not an ELF executable, a library the loader cannot
/// find, a listed file missing).
[[nodiscard]] bool Package(const PackageInputs& inputs, Image* out, std::string* err);

}  // namespace fiber::image
