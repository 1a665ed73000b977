#include "image/engine_load.hpp"

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "engine/engine_streams.hpp"
#include "http/client.hpp"
#include "image/byte_sinks.hpp"

namespace fiber::image {

namespace {

// Written beside the layer; *path names it, also when writing failed.
bool WriteArchive(const Image& img, std::string* path, std::string* err) {
  const std::string config_name = std::string(HexOf(img.config_blob.digest)) + ".json";
  const std::string layer_name = std::string(HexOf(img.layer.digest)) + ".tar.gz";
  const nlohmann::json manifest = nlohmann::json::array(
      {{{"Config", config_name}, {"RepoTags", {img.Reference()}}, {"Layers", {layer_name}}}});
  FileSink file;
  if (!file.OpenNew(img.layer_file + ".load-", err)) return false;
  *path = file.path();
  engine::TarWriter tar(&file, 0);
  return tar.FileWith("manifest.json", 0644, manifest.dump(), err) &&
         tar.FileWith(config_name, 0644, img.config, err) &&
         tar.FileFrom(layer_name, 0644, img.layer_file, img.layer.size, err) && tar.Finish(err) &&
         file.Close(err);
}

}  // namespace

bool LoadIntoEngine(const Image& img, const engine::Client& engine, bool* loaded,
                    std::string* err) {
  *loaded = false;
  http::Response response;
  if (engine.Call("GET", "/images/" + http::Escape(img.Reference()) + "/json", {},
                  engine::kLongCallMs, &response, err)) {
    const auto known = nlohmann::json::parse(response.body, nullptr, false);
    if (known.is_object() && known.value("Id", "") == img.config_blob.digest) return true;
  } else if (response.status != 404) {  // 404: the engine has no image by that name
    return false;
  }
  std::string archive;
  if (!WriteArchive(img, &archive, err)) {
    if (!archive.empty()) ::unlink(archive.c_str());
    return false;
  }
  const bool sent = engine::PostArchive(engine, "/images/load?quiet=1", archive, nullptr, err);
  ::unlink(archive.c_str());
  if (!sent) {
    *err = "the container engine did not load " + img.Reference() + ": " + *err;
    return false;
  }
  *loaded = true;
  return true;
}

}  // namespace fiber::image
