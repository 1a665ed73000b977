#include "kube/kubeconfig_context.hpp"

#include <sys/stat.h>

namespace fiber::kube {

namespace {

std::string InQuotes(const std::string& name) { return "\"" + name + "\""; }

// Settings fiber cannot honour; ignoring them would talk to another server
// or as another user than the kubeconfig says.
bool Unsupported(const EntryFields& f, std::initializer_list<const char*> keys, std::string* err) {
  for (const char* key : keys) {
    if (!f.Has(key)) continue;
    *err = f.where() + " sets " + key + ", which fiber does not support";
    if (std::string(key) == "auth-provider")
      *err += "; use an exec credential plugin (such as gke-gcloud-auth-plugin or kubelogin)";
    return false;
  }
  return true;
}

bool LoadCluster(const KubeconfigEntry& entry, const std::string& name, ClusterAccess* a,
                 std::string* err) {
  const EntryFields f(entry, "cluster", name);
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

bool LoadExec(const EntryFields& f, const ClusterAccess& cluster, const std::string& user,
              ExecConfig* c, std::string* err) {
  const YAML::Node exec = f.Get("exec");
  const std::string where = f.where() + ": exec";
  if (!exec.IsMap()) {
    *err = where + " is not a map";
    return false;
  }
  auto text = [&](const char* key, std::string* out) {
    const YAML::Node node = exec[key];
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
  if (c->command.find('/') != std::string::npos) c->command = f.Resolved(c->command);
  if (const YAML::Node args = exec["args"]; args && !args.IsNull()) {
    if (!args.IsSequence()) {
      *err = where + ".args is not a list";
      return false;
    }
    for (const YAML::Node& arg : args) {
      if (!arg.IsScalar()) {
        *err = where + ".args holds something that is not text";
        return false;
      }
      c->args.push_back(arg.Scalar());
    }
  }
  if (const YAML::Node env = exec["env"]; env && !env.IsNull()) {
    if (!env.IsSequence()) {
      *err = where + ".env is not a list";
      return false;
    }
    for (const YAML::Node& var : env) {
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

bool LoadUser(const KubeconfigEntry& entry, const std::string& name, ClusterAccess* a, std::string* err) {
  const EntryFields f(entry, "user", name);
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
  struct stat st;
  if (!a->token_file.empty() && ::stat(a->token_file.c_str(), &st) != 0) {
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

}  // namespace

bool LoadContextAccess(const MergedKubeconfig& merged, const std::string& context_name,
                       const std::string& namespace_name, ClusterAccess* access, std::string* err) {
  const std::string files = merged.FileNames();
  const std::string context = context_name.empty() ? merged.current_context : context_name;
  if (context.empty()) {
    *err = files + " set" + (merged.files.size() == 1 ? "s" : "") +
           " no current-context; choose one with the context setting (--context) among: " +
           merged.ContextNames();
    return false;
  }
  const auto found = merged.contexts.find(context);
  if (found == merged.contexts.end()) {
    *err = "context " + InQuotes(context) + " is not in " + files + " (contexts there: " +
           merged.ContextNames() + ")";
    return false;
  }
  const EntryFields ctx(found->second, "context", context);
  std::string cluster, user, context_namespace;
  if (!ctx.Check(err) || !ctx.Text("cluster", &cluster, err) || !ctx.Text("user", &user, err) ||
      !ctx.Text("namespace", &context_namespace, err))
    return false;
  if (cluster.empty()) {
    *err = ctx.where() + " names no cluster";
    return false;
  }
  auto undefined = [&](const char* kind, const std::string& name) {
    return ctx.where() + " names " + kind + " " + InQuotes(name) + ", which " + files + " do" +
           (merged.files.size() == 1 ? "es" : "") + " not define";
  };
  ClusterAccess got;
  got.context = context;
  got.source = found->second.file;
  got.namespace_name = !namespace_name.empty()      ? namespace_name
                       : !context_namespace.empty() ? context_namespace
                                                    : "default";
  const auto cluster_entry = merged.clusters.find(cluster);
  if (cluster_entry == merged.clusters.end()) {
    *err = undefined("cluster", cluster);
    return false;
  }
  if (!LoadCluster(cluster_entry->second, cluster, &got, err)) return false;
  // No user: anonymous requests, as kubectl makes them.
  if (!user.empty()) {
    const auto user_entry = merged.users.find(user);
    if (user_entry == merged.users.end()) {
      *err = undefined("user", user);
      return false;
    }
    if (!LoadUser(user_entry->second, user, &got, err)) return false;
  }
  *access = std::move(got);
  return true;
}

}  // namespace fiber::kube
