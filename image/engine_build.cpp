#include "image/engine_build.hpp"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <vector>

#include "engine/engine_streams.hpp"
#include "http/client.hpp"
#include "image/byte_sinks.hpp"
#include "image/dockerignore.hpp"
#include "image/sha256.hpp"

namespace fiber::image {

namespace {

// The build context as the engine reads it: every entry under dir that
// .dockerignore does not leave out, relative, sorted; links stay links (the
// engine resolves them itself). The Dockerfile and .dockerignore are sent
// even when listed, as the Docker CLI sends them: the engine needs them.
struct ContextWalk {
  const std::string& dir;
  const Dockerignore& ignore;
  engine::TarWriter* tar;
  BuildContext* summary;

  bool Excluded(const std::string& path) const {
    if (path == "Dockerfile" || path == ".dockerignore") return false;
    return ignore.Excludes(path);
  }

  bool Write(const std::string& relative, std::string* err) {
    const std::string host = relative.empty() ? dir : dir + "/" + relative;
    DIR* d = ::opendir(host.c_str());
    if (!d) {
      *err = "cannot read the build context " + host + ": " + std::strerror(errno);
      return false;
    }
    std::vector<std::string> names;
    while (const dirent* e = ::readdir(d))
      if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) names.push_back(e->d_name);
    ::closedir(d);
    std::sort(names.begin(), names.end());
    for (const auto& name : names) {
      const std::string path = relative.empty() ? name : relative + "/" + name;
      const std::string full = dir + "/" + path;
      struct stat st;
      if (::lstat(full.c_str(), &st) != 0) continue;  // gone meanwhile
      const bool excluded = Excluded(path);
      if (excluded) ++summary->left_out;
      bool ok = true;
      if (S_ISDIR(st.st_mode)) {
        // An excluded directory is walked only when an exception may keep
        // something under it, as the Docker CLI does.
        if (excluded && !ignore.HasExceptions()) continue;
        ok = (excluded || tar->Directory(path, 0755, err)) && Write(path, err);
      } else if (excluded) {
        continue;
      } else if (S_ISLNK(st.st_mode)) {
        std::string target(static_cast<std::size_t>(st.st_size) + 1, '\0');
        const ssize_t n = ::readlink(full.c_str(), target.data(), target.size());
        target.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
        ok = tar->Symlink(path, target, err);
        ++summary->files;
      } else if (S_ISREG(st.st_mode)) {
        ok = tar->FileFrom(path, (st.st_mode & 0111) ? 0755 : 0644, full, st.st_size, err);
        ++summary->files;
        summary->bytes += st.st_size;
      }
      if (!ok) return false;
    }
    return true;
  }
};

}  // namespace

bool BuildDockerfile(const std::string& context_dir, const std::string& repository,
                     const engine::Client& engine,
                     const std::function<void(const BuildContext&)>& on_context,
                     const std::function<void(const std::string&)>& on_step,
                     std::string* reference, std::string* err) {
  if (::access((context_dir + "/Dockerfile").c_str(), R_OK) != 0) {
    *err = "--build: there is no Dockerfile in " + context_dir;
    return false;
  }
  Dockerignore ignore;
  if (!ignore.Load(context_dir, err)) return false;
  FileSink file;
  if (!file.OpenNew("/tmp/fiber-context-", err)) return false;
  const std::string archive = file.path();
  engine::TarWriter tar(&file, 0);
  BuildContext summary;
  ContextWalk walk{context_dir, ignore, &tar, &summary};
  if (!walk.Write("", err) || !tar.Finish(err) || !file.Close(err)) {
    ::unlink(archive.c_str());
    return false;
  }
  if (on_context) on_context(summary);
  // The build's messages: the lines it prints, and the built image's ID.
  std::string id;
  const auto take = [&](const nlohmann::json& message) {
    if (message.contains("aux") && message["aux"].is_object()) id = message["aux"].value("ID", id);
    if (message.contains("stream") && message["stream"].is_string() && on_step) {
      std::string line = message["stream"].get<std::string>();
      while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
      if (!line.empty()) on_step(line);
    }
  };
  const bool built = engine::PostArchive(engine, "/build?rm=1&forcerm=1", archive, take, err);
  ::unlink(archive.c_str());
  if (built && id.empty()) *err = "the engine's answer names no built image";
  if (!built || id.empty()) {
    *err = "the Dockerfile in " + context_dir + " did not build: " + *err;
    return false;
  }
  const std::string tag = std::string(HexOf(id).substr(0, 12));
  http::Response response;
  if (!engine.Call("POST",
                   "/images/" + http::Escape(id) + "/tag?repo=" + http::Escape(repository) +
                       "&tag=" + tag,
                   {}, engine::kLongCallMs, &response, err)) {
    *err = "the container engine did not tag the built image: " + *err;
    return false;
  }
  *reference = repository + ":" + tag;
  return true;
}

}  // namespace fiber::image
