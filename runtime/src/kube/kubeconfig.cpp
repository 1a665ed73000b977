#include "kube/kubeconfig.hpp"

#include <sys/stat.h>

#include <map>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "encoding/base64.hpp"

namespace fiber::kube {

namespace {

using YAML::Node;

// A named cluster, user or context, and the file that defined it: its
// relative paths are relative to that file's directory.
struct Entry {
  Node body;
  std::string file;
};

// The files' entries merged as kubectl merges them: the first file to set a
// name (or current-context) wins.
struct Merged {
  std::map<std::string, Entry> clusters, users, contexts;
  std::string current_context;
  std::vector<std::string> files;
  bool Empty() const {
    return clusters.empty() && users.empty() && contexts.empty() && current_context.empty();
  }
};

std::string InQuotes(const std::string& name) { return "\"" + name + "\""; }

std::string Joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

std::string Names(const std::map<std::string, Entry>& entries) {
  std::vector<std::string> names;
  for (const auto& [name, entry] : entries) names.push_back(name);
  return names.empty() ? "none" : Joined(names);
}

bool Exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

std::string Resolve(const std::string& path, const std::string& file) {
  if (path.empty() || path[0] == '/') return path;
  const auto slash = file.rfind('/');
  return (slash == std::string::npos ? std::string(".") : file.substr(0, slash)) + "/" + path;
}

bool ReadInto(const std::string& file, Merged* merged, std::string* err) {
  std::string text;
  if (!ReadCredentialFile(file, &text, err)) return false;
  merged->files.push_back(file);
  try {
    const Node root = YAML::Load(text);
    if (root.IsNull()) return true;
    if (!root.IsMap()) {
      *err = file + " is not a kubeconfig: its top level is not a map";
      return false;
    }
    static const struct {
      const char* list;
      const char* item;
      std::map<std::string, Entry> Merged::*entries;
    } kLists[] = {{"clusters", "cluster", &Merged::clusters},
                  {"users", "user", &Merged::users},
                  {"contexts", "context", &Merged::contexts}};
    for (const auto& kind : kLists) {
      const Node list = root[kind.list];
      if (!list || list.IsNull()) continue;
      if (!list.IsSequence()) {
        *err = file + ": " + kind.list + " is not a list";
        return false;
      }
      for (std::size_t i = 0; i < list.size(); ++i) {
        const Node item = list[i];
        const std::string at = file + ": " + kind.list + "[" + std::to_string(i) + "]";
        if (!item.IsMap()) {
          *err = at + " is not a map";
          return false;
        }
        const Node name = item["name"];
        if (!name || !name.IsScalar() || name.Scalar().empty()) {
          *err = at + " has no name";
          return false;
        }
        (merged->*kind.entries).emplace(name.Scalar(), Entry{item[kind.item], file});
      }
    }
    const Node current = root["current-context"];
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

// The fields of one entry, each read with a message naming the file, the
// entry and the field when it is malformed.
class Fields {
 public:
  Fields(const Entry& entry, const std::string& kind, const std::string& name)
      : body_(entry.body), file_(entry.file), where_(entry.file + ": " + kind + " " + InQuotes(name)) {}

  const std::string& where() const { return where_; }
  const std::string& file() const { return file_; }

  [[nodiscard]] bool Check(std::string* err) const {
    if (body_ && !body_.IsNull() && !body_.IsMap()) {
      *err = where_ + " is not a map";
      return false;
    }
    return true;
  }
  bool Has(const char* key) const { return Get(key) && !Get(key).IsNull(); }
  Node Get(const char* key) const { return body_.IsMap() ? body_[key] : Node(); }

  [[nodiscard]] bool Text(const char* key, std::string* out, std::string* err) const {
    out->clear();
    const Node node = Get(key);
    if (!node || node.IsNull()) return true;
    if (!node.IsScalar()) {
      *err = where_ + ": " + key + " is not text";
      return false;
    }
    *out = node.Scalar();
    return true;
  }
  [[nodiscard]] bool Flag(const char* key, bool* out, std::string* err) const {
    std::string text;
    if (!Text(key, &text, err)) return false;
    if (text.empty() || text == "false") {
      *out = false;
    } else if (text == "true") {
      *out = true;
    } else {
      *err = where_ + ": " + key + " is neither true nor false";
      return false;
    }
    return true;
  }
  // A path, relative to the entry's file.
  [[nodiscard]] bool Path(const char* key, std::string* out, std::string* err) const {
    if (!Text(key, out, err)) return false;
    *out = Resolve(*out, file_);
    return true;
  }
  // KEY-data (base64) or else the file KEY names: the PEM text, or "".
  [[nodiscard]] bool Pem(const char* key, std::string* out, std::string* err) const {
    const std::string data_key = std::string(key) + "-data";
    std::string text;
    if (!Text(data_key.c_str(), &text, err)) return false;
    if (!text.empty()) {
      if (!Base64Decode(text, out) || out->empty()) {
        *err = where_ + ": " + data_key + " is not base64";
        return false;
      }
      return true;
    }
    std::string path;
    if (!Path(key, &path, err)) return false;
    out->clear();
    if (path.empty()) return true;
    std::string why;
    if (!ReadCredentialFile(path, out, &why)) {
      *err = where_ + ": " + key + ": " + why;
      return false;
    }
    return true;
  }

 private:
  Node body_;
  std::string file_;
  std::string where_;
};

// Settings fiber cannot honour; ignoring them would talk to another server
// or as another user than the kubeconfig says.
bool Unsupported(const Fields& f, std::initializer_list<const char*> keys, std::string* err) {
  for (const char* key : keys) {
    if (!f.Has(key)) continue;
    *err = f.where() + " sets " + key + ", which fiber does not support";
    if (std::string(key) == "auth-provider")
      *err += "; use an exec credential plugin (such as gke-gcloud-auth-plugin or kubelogin)";
    return false;
  }
  return true;
}

bool LoadCluster(const Entry& entry, const std::string& name, ClusterAccess* a, std::string* err) {
  const Fields f(entry, "cluster", name);
  if (!f.Check(err) || !f.Text("server", &a->server, err) || !f.Pem("certificate-authority", &a->ca_pem, err) ||
      !f.Flag("insecure-skip-tls-verify", &a->insecure_skip_verify, err) ||
      !Unsupported(f, {"tls-server-name", "proxy-url"}, err))
    return false;
  if (a->server.empty()) {
    *err = f.where() + " has no server";
    return false;
  }
  if (a->server.rfind("https://", 0) != 0 && a->server.rfind("http://", 0) != 0) {
    *err = f.where() + ": server " + a->server + " is not an http:// or https:// URL";
    return false;
  }
  while (a->server.back() == '/') a->server.pop_back();
  if (a->insecure_skip_verify && !a->ca_pem.empty()) {
    // kubectl refuses this pair too.
    *err = f.where() + " sets both a certificate authority and insecure-skip-tls-verify";
    return false;
  }
  return true;
}

bool LoadExec(const Fields& f, const ClusterAccess& cluster, const std::string& user,
              ExecConfig* c, std::string* err) {
  const Node exec = f.Get("exec");
  const std::string where = f.where() + ": exec";
  if (!exec.IsMap()) {
    *err = where + " is not a map";
    return false;
  }
  auto text = [&](const char* key, std::string* out) {
    const Node node = exec[key];
    out->clear();
    if (!node || node.IsNull()) return true;
    if (!node.IsScalar()) {
      *err = where + "." + key + " is not text";
      return false;
    }
    *out = node.Scalar();
    return true;
  };
  std::string provide;
  if (!text("apiVersion", &c->api_version) || !text("command", &c->command) ||
      !text("installHint", &c->install_hint) || !text("interactiveMode", &c->interactive_mode) ||
      !text("provideClusterInfo", &provide))
    return false;
  if (c->command.empty()) {
    *err = where + " has no command";
    return false;
  }
  if (c->api_version != "client.authentication.k8s.io/v1" &&
      c->api_version != "client.authentication.k8s.io/v1beta1") {
    *err = where + ".apiVersion is " +
           (c->api_version.empty() ? "missing" : InQuotes(c->api_version)) +
           "; client.authentication.k8s.io/v1 or v1beta1 is needed";
    return false;
  }
  // Like kubectl, a command with a '/' is relative to the kubeconfig; a bare
  // name is looked up on PATH.
  if (c->command.find('/') != std::string::npos) c->command = Resolve(c->command, f.file());
  if (const Node args = exec["args"]; args && !args.IsNull()) {
    if (!args.IsSequence()) {
      *err = where + ".args is not a list";
      return false;
    }
    for (const Node& arg : args) {
      if (!arg.IsScalar()) {
        *err = where + ".args holds something that is not text";
        return false;
      }
      c->args.push_back(arg.Scalar());
    }
  }
  if (const Node env = exec["env"]; env && !env.IsNull()) {
    if (!env.IsSequence()) {
      *err = where + ".env is not a list";
      return false;
    }
    for (const Node& var : env) {
      if (!var.IsMap() || !var["name"] || !var["name"].IsScalar() || var["name"].Scalar().empty() ||
          (var["value"] && !var["value"].IsNull() && !var["value"].IsScalar())) {
        *err = where + ".env holds an entry without a name and a text value";
        return false;
      }
      c->env.emplace_back(var["name"].Scalar(), var["value"] ? var["value"].as<std::string>("") : "");
    }
  }
  c->provide_cluster_info = provide == "true";
  c->cluster_server = cluster.server;
  c->cluster_ca_pem = cluster.ca_pem;
  c->cluster_insecure_skip_verify = cluster.insecure_skip_verify;
  c->owner = "user " + InQuotes(user) + " in " + f.file();
  return true;
}

bool LoadUser(const Entry& entry, const std::string& name, ClusterAccess* a, std::string* err) {
  const Fields f(entry, "user", name);
  if (!f.Check(err) || !f.Pem("client-certificate", &a->client_cert_pem, err) ||
      !f.Pem("client-key", &a->client_key_pem, err) || !f.Text("token", &a->token, err) ||
      !f.Path("tokenFile", &a->token_file, err) ||
      !Unsupported(f, {"auth-provider", "username", "password", "as", "as-uid", "as-groups"}, err))
    return false;
  if (a->client_cert_pem.empty() != a->client_key_pem.empty()) {
    *err = f.where() + " has a client " +
           (a->client_cert_pem.empty() ? "key without a certificate" : "certificate without a key");
    return false;
  }
  if (!a->token_file.empty() && !Exists(a->token_file)) {
    *err = f.where() + ": tokenFile " + a->token_file + " does not exist";
    return false;
  }
  if (f.Has("exec")) {
    ExecConfig exec;
    if (!LoadExec(f, *a, name, &exec, err)) return false;
    a->exec = std::make_shared<ExecCredentialPlugin>(std::move(exec));
  }
  return true;
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

std::string NoKubeconfig(const CredentialSearch& search, const Merged& merged) {
  std::string where;
  if (!merged.files.empty())
    where = Joined(merged.files) + (merged.files.size() == 1 ? " defines" : " define") + " no context";
  else if (!search.kubeconfig_env.empty())
    where = "no file of KUBECONFIG (" + search.kubeconfig_env + ") exists";
  else
    where = (search.home.empty() ? std::string("~") : search.home) + "/.kube/config does not exist";
  return "no Kubernetes credentials: " + where +
         ", and this is not a pod (KUBERNETES_SERVICE_HOST is not set); name a kubeconfig with "
         "the kubeconfig setting (--kubeconfig) or KUBECONFIG";
}

}  // namespace

CredentialSearch SearchFromEnvironment(const os::Getenv& getenv) {
  auto env = [&](const char* name) {
    const char* value = getenv(name);
    return std::string(value ? value : "");
  };
  CredentialSearch search;
  search.kubeconfig_env = env("KUBECONFIG");
  search.home = env("HOME");
  search.in_cluster.service_host = env("KUBERNETES_SERVICE_HOST");
  search.in_cluster.service_port = env("KUBERNETES_SERVICE_PORT");
  return search;
}

namespace {

bool Load(const CredentialSearch& search, ClusterAccess* access, std::string* err) {
  Merged merged;
  for (const auto& file : Files(search))
    if (!ReadInto(file, &merged, err)) return false;
  if (merged.Empty()) {
    if (search.kubeconfig.empty() && search.context.empty() && InClusterPossible(search.in_cluster))
      return LoadInCluster(search.in_cluster, search.namespace_name, access, err);
    *err = NoKubeconfig(search, merged);
    return false;
  }
  const std::string files = Joined(merged.files);
  const std::string context = search.context.empty() ? merged.current_context : search.context;
  if (context.empty()) {
    *err = files + " set" + (merged.files.size() == 1 ? "s" : "") +
           " no current-context; choose one with the context setting (--context) among: " +
           Names(merged.contexts);
    return false;
  }
  const auto found = merged.contexts.find(context);
  if (found == merged.contexts.end()) {
    *err = "context " + InQuotes(context) + " is not in " + files + " (contexts there: " +
           Names(merged.contexts) + ")";
    return false;
  }
  const Fields ctx(found->second, "context", context);
  std::string cluster, user, namespace_name;
  if (!ctx.Check(err) || !ctx.Text("cluster", &cluster, err) || !ctx.Text("user", &user, err) ||
      !ctx.Text("namespace", &namespace_name, err))
    return false;
  if (cluster.empty()) {
    *err = ctx.where() + " names no cluster";
    return false;
  }
  ClusterAccess got;
  got.context = context;
  got.source = found->second.file;
  got.namespace_name = !search.namespace_name.empty() ? search.namespace_name
                       : !namespace_name.empty()      ? namespace_name
                                                      : "default";
  const auto cluster_entry = merged.clusters.find(cluster);
  if (cluster_entry == merged.clusters.end()) {
    *err = ctx.where() + " names cluster " + InQuotes(cluster) + ", which " + files +
           " do" + (merged.files.size() == 1 ? "es" : "") + " not define";
    return false;
  }
  if (!LoadCluster(cluster_entry->second, cluster, &got, err)) return false;
  // No user: anonymous requests, as kubectl makes them.
  if (!user.empty()) {
    const auto user_entry = merged.users.find(user);
    if (user_entry == merged.users.end()) {
      *err = ctx.where() + " names user " + InQuotes(user) + ", which " + files + " do" +
             (merged.files.size() == 1 ? "es" : "") + " not define";
      return false;
    }
    if (!LoadUser(user_entry->second, user, &got, err)) return false;
  }
  *access = std::move(got);
  return true;
}

}  // namespace

bool LoadClusterAccess(const CredentialSearch& search, ClusterAccess* access, std::string* err) {
  // Reading fields checks their types first; this is for what yaml-cpp
  // might still throw. Its message holds no text of the file.
  try {
    return Load(search, access, err);
  } catch (const YAML::Exception& e) {
    *err = "a kubeconfig is malformed (" + e.msg + ")";
    return false;
  }
}

}  // namespace fiber::kube
