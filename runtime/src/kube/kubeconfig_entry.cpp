#include "kube/kubeconfig_entry.hpp"

#include "encoding/base64.hpp"
#include "kube/cluster_access.hpp"

namespace fiber::kube {

EntryFields::EntryFields(const KubeconfigEntry& entry, const std::string& kind, const std::string& name)
    : body_(entry.body), file_(entry.file), where_(entry.file + ": " + kind + " \"" + name + "\"") {}

bool EntryFields::Check(std::string* err) const {
  if (body_ && !body_.IsNull() && !body_.IsMap()) {
    *err = where_ + " is not a map";
    return false;
  }
  return true;
}

bool EntryFields::Text(const char* key, std::string* out, std::string* err) const {
  out->clear();
  const YAML::Node node = Get(key);
  if (!node || node.IsNull()) return true;
  if (!node.IsScalar()) {
    *err = where_ + ": " + key + " is not text";
    return false;
  }
  *out = node.Scalar();
  return true;
}

bool EntryFields::Flag(const char* key, bool* out, std::string* err) const {
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

bool EntryFields::Path(const char* key, std::string* out, std::string* err) const {
  if (!Text(key, out, err)) return false;
  *out = Resolved(*out);
  return true;
}

bool EntryFields::Pem(const char* key, std::string* out, std::string* err) const {
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

std::string EntryFields::Resolved(const std::string& path) const {
  if (path.empty() || path[0] == '/') return path;
  const auto slash = file_.rfind('/');
  return (slash == std::string::npos ? std::string(".") : file_.substr(0, slash)) + "/" + path;
}

}  // namespace fiber::kube
