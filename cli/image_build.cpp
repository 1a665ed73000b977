#include "image_build.hpp"

#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "config/backend_names.hpp"
#include "engine/engine_socket.hpp"
#include "image/engine_load.hpp"
#include "image/registry_credentials.hpp"

namespace fiber::cli {

namespace {

// SOURCE_DATE_EPOCH, the reproducible-builds convention; 0 when unset.
bool SourceDateEpoch(std::int64_t* out, std::string* err) {
  const char* text = std::getenv("SOURCE_DATE_EPOCH");
  *out = 0;
  if (!text || !*text) return true;
  char* end = nullptr;
  errno = 0;
  const long long value = std::strtoll(text, &end, 10);
  if (*end != '\0' || errno != 0 || value < 0) {
    *err = std::string("SOURCE_DATE_EPOCH='") + text + "' is not a number of seconds since 1970";
    return false;
  }
  *out = value;
  return true;
}

std::vector<std::string> SplitPaths(const std::string& text) {
  std::vector<std::string> paths;
  std::istringstream in(text);
  std::string path;
  while (std::getline(in, path, ':'))
    if (!path.empty()) paths.push_back(path);
  return paths;
}

// A directory of this process's for the layer and the archive, removed with it.
class ScratchDir {
 public:
  bool Make(std::string* err) {
    const char* tmp = std::getenv("TMPDIR");
    std::string name = std::string(tmp && *tmp ? tmp : "/tmp") + "/fiber-image-XXXXXX";
    if (!::mkdtemp(name.data())) {
      *err = "cannot make a directory for the image under " + name + ": " + std::strerror(errno);
      return false;
    }
    path_ = name;
    return true;
  }
  ~ScratchDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

void Progress(const ImageRequest& r, const std::string& what) {
  if (r.progress) std::fprintf(stderr, "fiber: %s\n", what.c_str());
}

}  // namespace

std::string HumanSize(std::int64_t bytes) {
  if (bytes < 1000) return std::to_string(bytes) + " B";
  const char* units[] = {"kB", "MB", "GB", "TB"};
  double value = static_cast<double>(bytes);
  int unit = -1;
  while (value >= 1000 && unit < 3) {
    value /= 1000;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %s", value, units[unit]);
  return text;
}

bool BuildImage(const ImageRequest& r, BuiltImage* out, std::string* err) {
  image::PackageInputs in;
  in.program = r.program;
  in.files = SplitPaths(r.settings->image_files);
  // A master in a pod talks to the API server through libcurl, which
  // libfiber loads on first use: the loader's list of the program lacks it.
  if (r.settings->master_in_cluster) in.loaded_later = {"libcurl.so.4"};
  char cwd[4096];
  in.base_dir = ::getcwd(cwd, sizeof cwd) ? cwd : ".";
  if (!SourceDateEpoch(&in.mtime, err)) return false;
  ScratchDir scratch;
  if (!scratch.Make(err)) return false;
  in.blob_dir = scratch.path();
  Progress(r, "packaging " + r.program);
  if (!image::Package(in, &out->image, err)) return false;

  const std::string push_to = r.push_to.empty() ? r.settings->registry : r.push_to;
  if (!push_to.empty()) {
    image::RegistryReference to;
    image::Credentials credentials;
    if (!image::ParseRegistryReference(push_to, &to, err) ||
        !image::FindCredentials(to.registry, config::ProcessEnvironment, &credentials, err))
      return false;
    credentials.token_service = r.settings->registry_token_service;
    if (!credentials.token_service.empty() && !image::SecureUrl(credentials.token_service)) {
      *err = "registry_token_service '" + credentials.token_service +
             "' is not an https:// URL (plain http:// only on loopback): credentials go only over TLS";
      return false;
    }
    Progress(r, "pushing to " + to.registry + " (" + HumanSize(out->image.layer.size) + " layer)");
    if (!image::Push(out->image, to, credentials, &out->push, err)) return false;
    out->reference = out->push.reference;
    return true;
  }
  std::string socket;
  // The engine the workers run on (--backend podman), which is not always
  // the one the engine setting finds first.
  if (!engine::FindSocket(config::ImageEngineOf(r.settings->backend, r.settings->engine), config::ProcessEnvironment,
                          &socket, err))
    return false;
  Progress(r, "loading into the container engine");
  if (!image::LoadIntoEngine(out->image, engine::Client(socket), &out->loaded, err)) return false;
  out->reference = out->image.Reference();
  return true;
}

void ReportImage(const BuiltImage& built, FILE* to) {
  const image::Image& img = built.image;
  std::int64_t total = 0;
  for (const auto& c : img.contents) {
    std::fprintf(to, "  %-8s %10s  %s\n", c.role.c_str(), HumanSize(c.bytes).c_str(), c.path.c_str());
    total += c.bytes;
  }
  std::fprintf(to, "  %-8s %10s  one layer, %s compressed (%s)\n", "total", HumanSize(total).c_str(),
               HumanSize(img.layer.size).c_str(), img.layer.digest.c_str());
  std::fprintf(to, "image %s, %s, ID %s\n", img.Reference().c_str(), img.architecture.c_str(),
               img.config_blob.digest.c_str());
  if (!built.push.reference.empty()) {
    for (const auto& b : built.push.blobs)
      std::fprintf(to, "%s %s %s\n", b.what.c_str(), b.blob.digest.c_str(),
                   b.uploaded ? ("uploaded, " + HumanSize(b.blob.size)).c_str()
                              : "already in the registry");
    std::fprintf(to, "pushed %s\n", built.push.reference.c_str());
  } else {
    std::fprintf(to, "%s the container engine\n", built.loaded ? "loaded into" : "already in");
  }
}

}  // namespace fiber::cli
