#include "kube/merged_kubeconfig.hpp"

#include <sys/stat.h>

#include <yaml-cpp/yaml.h>

#include "kube/cluster_access.hpp"

namespace fiber::kube {

namespace {

std::string Joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

bool Exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

// The kubeconfig files the search names, in order; those of KUBECONFIG
// that do not exist left out.
std::vector<std::string> Files(const CredentialSearch& search) {
  if (!search.kubeconfig.empty()) return {search.kubeconfig};
  std::vector<std::string> files;
  if (!search.kubeconfig_env.empty()) {
    std::size_t start = 0;
    while (start <= search.kubeconfig_env.size()) {
      const auto colon = search.kubeconfig_env.find(':', start);
      const std::string file = search.kubeconfig_env.substr(
          start, colon == std::string::npos ? std::string::npos : colon - start);
      start = colon == std::string::npos ? search.kubeconfig_env.size() + 1 : colon + 1;
      bool seen = false;
      for (const auto& f : files) seen = seen || f == file;
      if (!file.empty() && !seen && Exists(file)) files.push_back(file);
    }
    return files;
  }
  const std::string home_config = search.home + "/.kube/config";
  if (!search.home.empty() && Exists(home_config)) files.push_back(home_config);
  return files;
}

bool ReadInto(const std::string& file, MergedKubeconfig* merged, std::string* err) {
  std::string text;
  if (!ReadCredentialFile(file, &text, err)) return false;
  merged->files.push_back(file);
  try {
    const YAML::Node root = YAML::Load(text);
    if (root.IsNull()) return true;
    if (!root.IsMap()) {
      *err = file + " is not a kubeconfig: its top level is not a map";
      return false;
    }
    static const struct {
      const char* list;
      const char* item;
      std::map<std::string, KubeconfigEntry> MergedKubeconfig::*entries;
    } kLists[] = {{"clusters", "cluster", &MergedKubeconfig::clusters},
                  {"users", "user", &MergedKubeconfig::users},
                  {"contexts", "context", &MergedKubeconfig::contexts}};
    for (const auto& kind : kLists) {
      const YAML::Node list = root[kind.list];
      if (!list || list.IsNull()) continue;
      if (!list.IsSequence()) {
        *err = file + ": " + kind.list + " is not a list";
        return false;
      }
      for (std::size_t i = 0; i < list.size(); ++i) {
        const YAML::Node item = list[i];
        const std::string at = file + ": " + kind.list + "[" + std::to_string(i) + "]";
        if (!item.IsMap()) {
          *err = at + " is not a map";
          return false;
        }
        const YAML::Node name = item["name"];
        if (!name || !name.IsScalar() || name.Scalar().empty()) {
          *err = at + " has no name";
          return false;
        }
        (merged->*kind.entries).emplace(name.Scalar(), KubeconfigEntry{item[kind.item], file});
      }
    }
    const YAML::Node current = root["current-context"];
    if (current && !current.IsNull()) {
      if (!current.IsScalar()) {
        *err = file + ": current-context is not a name";
        return false;
      }
      if (merged->current_context.empty()) merged->current_context = current.Scalar();
    }
  } catch (const YAML::Exception& e) {
    // The mark and yaml-cpp's fixed message; never the text, which may
    // hold a secret.
    *err = file + " is not valid YAML (line " + std::to_string(e.mark.line + 1) + ", column " +
           std::to_string(e.mark.column + 1) + ": " + e.msg + ")";
    return false;
  }
  return true;
}

}  // namespace

std::string MergedKubeconfig::FileNames() const { return Joined(files); }

std::string MergedKubeconfig::ContextNames() const {
  std::vector<std::string> names;
  for (const auto& [name, entry] : contexts) names.push_back(name);
  return names.empty() ? "none" : Joined(names);
}

bool ReadKubeconfigs(const CredentialSearch& search, MergedKubeconfig* merged, std::string* err) {
  for (const auto& file : Files(search))
    if (!ReadInto(file, merged, err)) return false;
  return true;
}

}  // namespace fiber::kube
