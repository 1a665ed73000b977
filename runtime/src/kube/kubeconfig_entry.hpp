// One named cluster, user or context of a kubeconfig and the file that
// defined it, read field by field, each malformed field an error naming the
// file, the entry and the field. kube/merged_kubeconfig.hpp gathers the
// entries; kube/kubeconfig_context.hpp reads them.
#pragma once

#include <string>

#include <yaml-cpp/yaml.h>

namespace fiber::kube {

/// A named cluster, user or context, and the file that defined it: its
/// relative paths are relative to that file's directory.
struct KubeconfigEntry {
  YAML::Node body;
  std::string file;
};

/// The fields of one entry. Every reader is [[nodiscard]] with *err
/// beginning where(); no field's value ever appears in an error.
class EntryFields {
 public:
  /// kind: "cluster", "user" or "context"; name: the entry's.
  EntryFields(const KubeconfigEntry& entry, const std::string& kind, const std::string& name);

  /// 'FILE: KIND "NAME"', how errors name the entry.
  const std::string& where() const { return where_; }
  const std::string& file() const { return file_; }

  /// False when the entry is neither absent nor a map.
  [[nodiscard]] bool Check(std::string* err) const;
  bool Has(const char* key) const { return Get(key) && !Get(key).IsNull(); }
  YAML::Node Get(const char* key) const { return body_.IsMap() ? body_[key] : YAML::Node(); }

  /// The text of key; "" when absent.
  [[nodiscard]] bool Text(const char* key, std::string* out, std::string* err) const;
  /// true or false; false when absent.
  [[nodiscard]] bool Flag(const char* key, bool* out, std::string* err) const;
  /// A path, relative to the entry's file.
  [[nodiscard]] bool Path(const char* key, std::string* out, std::string* err) const;
  /// KEY-data (base64) or else the file KEY names: the PEM text, or "".
  [[nodiscard]] bool Pem(const char* key, std::string* out, std::string* err) const;
  /// path as the entry's file means it: relative to its directory.
  std::string Resolved(const std::string& path) const;

 private:
  YAML::Node body_;
  std::string file_;
  std::string where_;
};

}  // namespace fiber::kube
