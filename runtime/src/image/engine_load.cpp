#include "image/engine_load.hpp"

#include <unistd.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "http/client.hpp"
#include "image/byte_sinks.hpp"
#include "image/engine_api.hpp"

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

bool LoadIntoEngine(const Image& img, const std::string& socket, bool* loaded, std::string* err) {
  *loaded = false;
  http::Request inspect;
  inspect.url = std::string(kEngineApi) + "/images/" + http::Escape(img.Reference()) + "/json";
  http::Response response;
  if (!AskEngine(inspect, socket, &response, err)) return false;
  if (response.status == 200) {
    const auto known = nlohmann::json::parse(response.body, nullptr, false);
    if (known.is_object() && known.value("Id", "") == img.config_blob.digest) return true;
  }
  std::string archive;
  if (!WriteArchive(img, &archive, err)) {
    if (!archive.empty()) ::unlink(archive.c_str());
    return false;
  }
  http::Request load;
  load.method = "POST";
  load.url = std::string(kEngineApi) + "/images/load?quiet=1";
  load.headers = {"Content-Type: application/x-tar"};
  load.body_file = archive;
  load.timeout_ms = 0;
  const bool answered = AskEngine(load, socket, &response, err);
  ::unlink(archive.c_str());
  if (!answered) return false;
  if (response.status != 200) {
    *err = "the container engine did not load " + img.Reference() + ": " + EngineMessage(response);
    return false;
  }
  // A stream of JSON lines; a failure is one with "error".
  std::istringstream lines(response.body);
  std::string line;
  while (std::getline(lines, line)) {
    const auto msg = nlohmann::json::parse(line, nullptr, false);
    if (msg.is_object() && msg.contains("error")) {
      *err = "the container engine did not load " + img.Reference() + ": " + (msg["error"].is_string() ? msg["error"].get<std::string>() : msg["error"].dump());
      return false;
    }
  }
  *loaded = true;
  return true;
}

}  // namespace fiber::image
