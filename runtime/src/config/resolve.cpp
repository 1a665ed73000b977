#include "config/resolve.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>

#include "config/assignment.hpp"
#include "config/config_file.hpp"
#include "config/trusted_file.hpp"
#include "config/variables.hpp"
#include "os/whole_file.hpp"

namespace fiber::config {

namespace fs = std::filesystem;

namespace {

std::string Ignoring(const std::string& path, const std::string& why) {
  return "ignoring " + path + ": " + why + " (fiber reads no settings another user could change)";
}

// A settings file opened to read: what messages call it, and its descriptor.
struct OpenFile {
  std::string path;
  os::Descriptor fd;
};

// The user file, when there is one and it is the user's alone.
void OpenUserFile(const Inputs& in, std::vector<OpenFile>* files, std::vector<std::string>* refused) {
  const std::string user = UserFile(in.getenv);
  struct stat st{};
  if (user.empty() || ::lstat(user.c_str(), &st) != 0) return;
  std::string why;
  os::Descriptor fd(OpenTrustedPath(user, in.uid, &why));
  if (fd)
    files->push_back({user, std::move(fd)});
  else
    refused->push_back(Ignoring(user, why));
}

// The files to read, lowest first: the user file if there is one, then the
// project file if any; those refused go to *refused. One named by --config
// or FIBER_CONFIG must exist, and may not be writable by anyone.
bool FilesToRead(const Inputs& in, std::vector<OpenFile>* files, std::vector<std::string>* refused,
                 std::string* err) {
  OpenUserFile(in, files, refused);
  const char* variable = in.getenv(kConfigVariable);
  const std::string named = !in.config_file.empty() ? in.config_file : variable ? variable : "";
  if (!named.empty()) {
    os::Descriptor fd(::open(named.c_str(), O_RDONLY | O_CLOEXEC));
    struct stat st{};
    if (!fd || ::fstat(fd.get(), &st) != 0) {
      *err = named + ": cannot read: " + std::strerror(errno);
      return false;
    }
    if (const std::string why = WritableByAnyone(st); !why.empty()) {
      *err = named + " is " + why + "; fiber reads no settings any user could change";
      return false;
    }
    files->push_back({named, std::move(fd)});
  } else {
    std::string why;
    os::Descriptor fd;
    if (std::string project = FindProjectFile(in.cwd, &why, in.uid, &fd); !project.empty())
      files->push_back({std::move(project), std::move(fd)});
    if (!why.empty()) refused->push_back(why);
  }
  return true;
}

bool FromFlags(const std::map<std::string, std::string>& flags, std::vector<Assignment>* out,
               std::string* err) {
  for (const auto& [key, value] : flags) {
    const Setting* setting = FindSetting(key);
    if (!setting) {
      *err = "--" + key + " is not a setting";
      return false;
    }
    out->push_back({setting, value, setting->flag});
  }
  return true;
}

// The highest word on which profile to apply, or nullptr; false with *err
// when it names a profile no file defines.
bool ChooseProfile(const std::vector<ConfigFile>& files,
                   const std::vector<const std::vector<Assignment>*>& layers,
                   const Assignment** chosen, std::string* err) {
  *chosen = nullptr;
  for (const auto* layer : layers)
    for (const Assignment& a : *layer)
      if (a.setting == FindSetting("profile")) *chosen = &a;
  if (!*chosen) return true;
  Settings unused;
  if (!Apply(**chosen, &unused, err)) return false;  // empty
  std::set<std::string> known;
  for (const ConfigFile& file : files)
    for (const auto& [name, values] : file.profiles) known.insert(name);
  if (known.count((*chosen)->text)) return true;
  std::string list;
  for (const std::string& name : known) list += (list.empty() ? "" : ", ") + name;
  *err = Subject(**chosen) + "='" + (*chosen)->text + "' is not a known profile (" +
         (list.empty() ? "no settings file defines one" : "known: " + list) + ")";
  return false;
}

}  // namespace

std::string FindProjectFile(const std::string& dir, std::string* refused, uid_t uid, os::Descriptor* fd) {
  if (dir.empty()) return "";
  std::string unused;
  if (!refused) refused = &unused;
  std::error_code ec;
  for (fs::path d = fs::absolute(dir, ec); !ec && !d.empty(); d = d.parent_path()) {
    const fs::path candidate = d / kProjectFileName;
    struct stat st{};
    const bool found = ::lstat(candidate.c_str(), &st) == 0;
    // Beyond a directory another user can write (/tmp, a shared scratch
    // space, a colleague's project) anything could have been put there.
    if (::stat(d.c_str(), &st) == 0) {
      if (const std::string why = NotYoursAlone(st, uid); !why.empty()) {
        if (found) *refused = Ignoring(candidate.string(), "its directory " + d.string() + " is " + why);
        return "";
      }
    }
    if (found) {
      // Judged as it is opened: the directories above it too, and the
      // file by its descriptor, not by a second look at its path.
      std::string why;
      os::Descriptor file(OpenTrustedPath(candidate.string(), uid, &why));
      if (!file) {
        *refused = Ignoring(candidate.string(), why);
        return "";
      }
      if (fd) *fd = std::move(file);
      return candidate.string();
    }
    if (d == d.parent_path()) break;
  }
  return "";
}

std::string UserFile(const Getenv& getenv) {
  const char* xdg = getenv("XDG_CONFIG_HOME");
  if (xdg && xdg[0] == '/') return std::string(xdg) + "/fiber/config.yaml";
  const char* home = getenv("HOME");
  if (home && *home) return std::string(home) + "/.config/fiber/config.yaml";
  return "";
}

bool Resolve(const Inputs& in, Resolved* out, std::string* err) {
  std::vector<ConfigFile> files;
  std::vector<OpenFile> opened;
  out->refused.clear();
  out->files.clear();
  out->profiles.clear();
  if (!FilesToRead(in, &opened, &out->refused, err)) return false;
  for (const OpenFile& file : opened) {
    std::string text, why;
    if (!os::ReadWhole(file.fd.get(), &text, &why)) {
      *err = file.path + ": cannot read: " + why;
      return false;
    }
    files.emplace_back();
    if (!ParseConfigFile(file.path, text, &files.back(), err)) return false;
    out->files.push_back(file.path);
    for (const auto& [name, values] : files.back().profiles) out->profiles.insert(name);
  }
  const std::vector<Assignment> environment = FromEnvironment(in.getenv);
  std::vector<Assignment> flags;
  if (!FromFlags(in.flags, &flags, err)) return false;

  // Lowest first; a chosen profile follows the top level of its file.
  std::vector<const std::vector<Assignment>*> layers;
  for (const ConfigFile& file : files) layers.push_back(&file.values);
  layers.push_back(&environment);
  layers.push_back(&flags);
  const Assignment* profile = nullptr;
  if (!ChooseProfile(files, layers, &profile, err)) return false;
  if (profile) {
    for (std::size_t i = files.size(); i-- > 0;) {
      const auto it = files[i].profiles.find(profile->text);
      if (it != files[i].profiles.end()) layers.insert(layers.begin() + i + 1, &it->second);
    }
  }

  out->settings = Settings{};
  for (const Setting& s : Table()) out->sources[s.key] = "default";
  for (const auto* layer : layers) {
    for (const Assignment& a : *layer) {
      if (!Apply(a, &out->settings, err)) return false;
      out->sources[a.setting->key] = a.source;
    }
  }
  // What fiber run handed over: not settings a user writes, so not in the table.
  if (const char* id = in.getenv(kRunIdVariable)) out->settings.run_id = id;
  if (const char* dir = in.getenv(kRunDirVariable)) out->settings.run_dir = dir;
  if (const char* key = in.getenv(kRunKeyFileVariable)) out->settings.run_key_file = key;
  return CheckTogether(out->settings, out->sources, err);
}

}  // namespace fiber::config
