#include "image_prune.hpp"

#include <cstdio>
#include <cstdlib>
#include <set>

#include "config/backend_names.hpp"
#include "image_build.hpp"
#include "image/package.hpp"
#include "run_store.hpp"

namespace fiber::cli {

namespace {

bool ListJson(const engine::Client& engine, const std::string& path, nlohmann::json* out,
              std::string* err) {
  http::Response r;
  if (!engine.Call("GET", path, "", engine::kShortCallMs, &r, err)) return false;
  *out = nlohmann::json::parse(r.body, nullptr, false);
  if (!out->is_array()) {
    *err = "the engine's answer to GET " + path + " is not a list: " + r.body.substr(0, 200);
    return false;
  }
  return true;
}

}  // namespace

bool ConnectImageEngine(const config::Settings& settings, engine::Client* out, std::string* err) {
  return engine::Client::Connect(config::ImageEngineOf(settings.backend, settings.engine), config::ProcessEnvironment,
                                 out, err);
}

void ReportPrunedImages(const PrunedImages& pruned) {
  if (!pruned.removed.empty()) std::printf("Removed images:\n");
  for (const std::string& tag : pruned.removed) std::printf("%s\n", tag.c_str());
}

bool PruneImages(const engine::Client& engine, const std::string& repository, PrunedImages* out,
                 std::string* err) {
  const std::string prefix = repository.empty() ? image::kLocalRepositoryPrefix : repository + ":";
  auto ours = [&](const std::string& tag) { return tag.rfind(prefix, 0) == 0; };
  // The images in use: by a container, or named by a running run whose
  // containers may not have started yet.
  std::set<std::string> used;
  nlohmann::json containers, images;
  if (!ListJson(engine, "/containers/json?all=1", &containers, err)) return false;
  for (const auto& c : containers) {
    used.insert(c.value("ImageID", ""));
    used.insert(c.value("Image", ""));
  }
  for (const RunRecord& run : RunStore(RunsRoot()).List()) {
    const auto image = run.settings.find("image");
    // A run that may still run keeps its image.
    const RunState state = RunStore::StateOf(run);
    if (image != run.settings.end() && (state == RunState::kRunning || state == RunState::kUnknown))
      used.insert(image->second);
  }
  if (!ListJson(engine, "/images/json", &images, err)) return false;
  for (const auto& img : images) {
    const std::string id = img.value("Id", "");
    const auto tags = img.value("RepoTags", std::vector<std::string>{});
    bool mine = false, in_use = used.count(id) > 0;
    for (const std::string& tag : tags) {
      mine = mine || ours(tag);
      in_use = in_use || used.count(tag) > 0;
    }
    if (!mine || in_use) continue;
    // By tag, not by id: an image the user also tagged otherwise only
    // loses fiber's names.
    bool deleted = false;
    for (const std::string& tag : tags) {
      if (!ours(tag)) continue;
      http::Response r;
      if (!engine.Call("DELETE", "/images/" + tag, "", engine::kLongCallMs, &r, err)) {
        if (r.status == 409) continue;  // a container was made from it meanwhile
        *err = "cannot remove image " + tag + ": " + *err;
        return false;
      }
      out->removed.push_back(tag);
      const auto answer = nlohmann::json::parse(r.body, nullptr, false);
      if (answer.is_array())
        for (const auto& step : answer) deleted = deleted || step.contains("Deleted");
    }
    if (deleted) out->bytes += img.value("Size", std::int64_t{0});
  }
  return true;
}

}  // namespace fiber::cli
