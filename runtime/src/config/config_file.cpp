#include "config/config_file.hpp"

#include <yaml-cpp/yaml.h>

#include <cctype>

#include "config/did_you_mean.hpp"
#include "os/whole_file.hpp"

namespace fiber::config {

namespace {

constexpr const char* kProfiles = "profiles";

const char* KindOf(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: return "a map";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Scalar: return "a single value";
    default: return "nothing";
  }
}

std::vector<std::string> KeysBut(const char* left_out, const char* added) {
  std::vector<std::string> keys;
  for (const Setting& s : Table())
    if (std::string(s.key) != left_out) keys.push_back(s.key);
  if (added) keys.push_back(added);
  return keys;
}

// A variable's name as the key it stands for ("FIBER_PREFETCH" as
// "prefetch"), so that one written in a file is suggested its key.
std::string AsKey(const std::string& name) {
  if (name.rfind("FIBER_", 0) != 0) return name;
  std::string key = name.substr(6);
  for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return key;
}

// Reads one file's YAML document; every failure names a position in it.
class Reader {
 public:
  Reader(std::string path, std::string* err) : path_(std::move(path)), err_(err) {}

  bool ReadDocument(const YAML::Node& doc, ConfigFile* out) {
    if (doc.IsNull()) return true;  // empty, or comments only
    if (!doc.IsMap())
      return Fail(doc.Mark(), std::string("a settings file holds a map of settings (key: value), not ") +
                                  KindOf(doc));
    return ReadSettings(doc, /*top=*/true, &out->values, out);
  }

  std::string At(const YAML::Mark& mark) const {
    if (mark.is_null()) return path_;
    return path_ + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
  }

  bool Fail(const YAML::Mark& mark, const std::string& what) {
    *err_ = At(mark) + ": " + what;
    return false;
  }

 private:
  // A key of a map: a name, given once. seen maps names to their lines.
  bool Name(const YAML::Node& key, std::map<std::string, int>* seen, std::string* name) {
    if (!key.IsScalar() || key.Scalar().empty())
      return Fail(key.Mark(), std::string("a key must be a name, not ") + KindOf(key));
    *name = key.Scalar();
    const auto [first, fresh] = seen->emplace(*name, key.Mark().line + 1);
    if (!fresh)
      return Fail(key.Mark(), "'" + *name + "' is given twice (first on line " +
                                  std::to_string(first->second) + ")");
    return true;
  }

  // A map of settings: the top level (where profiles: may stand) or a
  // profile's.
  bool ReadSettings(const YAML::Node& map, bool top, std::vector<Assignment>* out, ConfigFile* file) {
    static const std::vector<std::string> top_keys = KeysBut("", kProfiles);
    static const std::vector<std::string> profile_keys = KeysBut("profile", nullptr);
    std::map<std::string, int> seen;
    for (const auto& entry : map) {
      std::string name;
      if (!Name(entry.first, &seen, &name)) return false;
      const YAML::Node& value = entry.second;
      if (top && name == kProfiles) {
        if (!Profiles(value, file)) return false;
        continue;
      }
      const Setting* setting = FindSetting(name);
      if (!top && name == "profile")
        return Fail(entry.first.Mark(), "a profile cannot choose a profile");
      if (!setting)
        return Fail(entry.first.Mark(), "unknown key '" + name + "'" +
                                            DidYouMean(AsKey(name), top ? top_keys : profile_keys));
      std::string text;
      if (!Text(name, *setting, value, &text)) return false;
      // An empty value has no position of its own; its key's stands in.
      const Assignment a{setting, text, At(value.IsNull() ? entry.first.Mark() : value.Mark())};
      Settings unused;
      if (!Apply(a, &unused, err_)) return false;
      out->push_back(a);
    }
    return true;
  }

  // A setting's value as text: a single value, or for a list setting a
  // list of them joined with its separator.
  bool Text(const std::string& name, const Setting& setting, const YAML::Node& value,
            std::string* text) {
    const char* sep = setting.kind.list_separator;
    if (value.IsSequence() && sep) {
      for (const auto& item : value) {
        if (!item.IsScalar())
          return Fail(item.Mark(), name + " lists single values, not " + KindOf(item));
        *text += (text->empty() ? "" : sep) + item.Scalar();
      }
      return true;
    }
    if (value.IsMap() || value.IsSequence())
      return Fail(value.Mark(), name + " takes " + setting.kind.takes + ", not " + KindOf(value));
    if (!value.IsNull()) *text = value.Scalar();
    return true;
  }

  bool Profiles(const YAML::Node& profiles, ConfigFile* file) {
    if (profiles.IsNull()) return true;
    if (!profiles.IsMap())
      return Fail(profiles.Mark(), std::string("profiles takes a map of profile names to settings, not ") +
                                       KindOf(profiles));
    std::map<std::string, int> seen;
    for (const auto& entry : profiles) {
      std::string name;
      if (!Name(entry.first, &seen, &name)) return false;
      const YAML::Node& body = entry.second;
      std::vector<Assignment>* values = &file->profiles[name];
      if (body.IsNull()) continue;
      if (!body.IsMap())
        return Fail(body.Mark(), "profile '" + name + "' takes a map of settings, not " + KindOf(body));
      if (!ReadSettings(body, /*top=*/false, values, file)) return false;
    }
    return true;
  }

  std::string path_;
  std::string* err_;
};

// The first line whose leading whitespace holds a tab ("\tcpu: 4",
// "  \tcpu: 4", a blank or comment line too), 0 for none: YAML allows only
// spaces there, and yaml-cpp's own word for it is cryptic. A tab after a
// line's text ("cpu:\t4") is allowed.
int TabIndentedLine(const std::string& text) {
  int line = 1;
  bool indent = true;
  for (char c : text) {
    if (c == '\n') {
      ++line;
      indent = true;
    } else if (indent && c == '\t') {
      return line;
    } else if (c != ' ') {
      indent = false;
    }
  }
  return 0;
}

}  // namespace

bool ReadConfigFile(const std::string& path, ConfigFile* out, std::string* err) {
  std::string text;
  if (std::string why; !os::ReadWholeFile(path, &text, &why)) {
    *err = path + ": cannot read: " + why;
    return false;
  }
  return ParseConfigFile(path, text, out, err);
}

bool ParseConfigFile(const std::string& path, const std::string& text, ConfigFile* out, std::string* err) {
  out->path = path;
  Reader reader(path, err);
  if (const int line = TabIndentedLine(text)) {
    *err = path + ":" + std::to_string(line) + ": a tab indents this line; YAML allows only spaces";
    return false;
  }
  try {
    const std::vector<YAML::Node> docs = YAML::LoadAll(text);
    if (docs.size() > 1)
      return reader.Fail(docs[1].Mark(), "a settings file holds one YAML document; a second starts here");
    return docs.empty() || reader.ReadDocument(docs[0], out);
  } catch (const YAML::Exception& e) {
    return reader.Fail(e.mark, "not valid YAML: " + e.msg);
  }
}

}  // namespace fiber::config
