#include "kube/yaml_json.hpp"

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <set>

namespace fiber::kube {
namespace {

bool IsNullWord(const std::string& s) {
  return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL";
}

bool ParseBool(const std::string& s, bool* value) {
  static const std::set<std::string> kTrue = {"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE",
                                              "on", "On", "ON"};
  static const std::set<std::string> kFalse = {"n", "N", "no", "No", "NO", "false", "False", "FALSE",
                                               "off", "Off", "OFF"};
  if (!kTrue.count(s) && !kFalse.count(s)) return false;
  *value = kTrue.count(s) > 0;
  return true;
}

int DigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return 99;
}

/// An integer as YAML 1.1 (and kubectl) reads one: decimal, 0x hex, 0b
/// binary, 0o or a leading 0 octal, with optional sign and underscores.
bool ParseInt(const std::string& text, std::int64_t* value) {
  std::string s;
  for (char c : text)
    if (c != '_') s += c;
  std::size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  int base = 10;
  if (s.size() - i > 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
    base = 16, i += 2;
  } else if (s.size() - i > 2 && s[i] == '0' && (s[i + 1] == 'b' || s[i + 1] == 'B')) {
    base = 2, i += 2;
    // kubectl's reader takes a sign after 0b too (0b-1 is -1), when none
    // came before it.
    if (i == 2 && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  } else if (s.size() - i > 2 && s[i] == '0' && (s[i + 1] == 'o' || s[i + 1] == 'O')) {
    base = 8, i += 2;
  } else if (s.size() - i > 1 && s[i] == '0') {
    base = 8, i += 1;
  }
  if (i == s.size()) return false;
  std::uint64_t magnitude = 0;
  const std::uint64_t limit = negative ? std::uint64_t{1} << 63 : (std::uint64_t{1} << 63) - 1;
  for (; i < s.size(); ++i) {
    const int d = DigitValue(s[i]);
    if (d >= base) return false;
    if (magnitude > (limit - d) / base) return false;
    magnitude = magnitude * base + d;
  }
  *value = negative ? static_cast<std::int64_t>(0 - magnitude) : static_cast<std::int64_t>(magnitude);
  return true;
}

/// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?, as kubectl's YAML
/// reader takes a float: underscores aside, unless it starts with ".".
bool ParseFloat(const std::string& text, double* value) {
  std::string s;
  for (char c : text)
    if (c != '_' || text[0] == '.') s += c;
  std::size_t i = 0;
  auto digits = [&] {
    const std::size_t from = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i - from;
  };
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (digits() == 0) return false;
  } else {
    if (digits() == 0) return false;
    if (i < s.size() && s[i] == '.') ++i, digits();
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  if (i != s.size()) return false;
  errno = 0;
  *value = std::strtod(s.c_str(), nullptr);
  return errno == 0;
}

/// .inf and .nan, which JSON cannot hold: refused unquoted, as kubectl
/// refuses them, and written quoted.
bool IsInfinityOrNan(const std::string& s) {
  std::string t = s;
  if (!t.empty() && (t[0] == '+' || t[0] == '-')) t.erase(0, 1);
  return t == ".inf" || t == ".Inf" || t == ".INF" || t == ".nan" || t == ".NaN" || t == ".NAN";
}

/// A float as kubectl's JSON has it: a whole one is written as an integer
/// ("1e3" is 1000, not 1000.0, which an integer field refuses).
nlohmann::json FloatValue(double d) {
  if (std::trunc(d) == d && std::fabs(d) < 9e18) return static_cast<std::int64_t>(d);
  return d;
}

/// An unquoted scalar's value.
nlohmann::json ResolvePlain(const std::string& s) {
  bool b = false;
  std::int64_t i = 0;
  double d = 0;
  if (IsNullWord(s)) return nullptr;
  if (ParseBool(s, &b)) return b;
  // Numbers only where kubectl's reader looks for them: after a digit, a
  // sign or a dot.
  if (s.find_first_of("0123456789+-.") != 0) return s;
  if (s[0] != '.' && ParseInt(s, &i)) return i;
  if (ParseFloat(s, &d)) return FloatValue(d);
  return s;
}

bool IsUtf8(const std::string& s) {
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = s[i];
    int more = 0;
    std::uint32_t cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      more = 1, cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      more = 2, cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      more = 3, cp = c & 0x07;
    } else {
      return false;
    }
    if (s.size() - i <= static_cast<std::size_t>(more)) return false;
    for (int k = 1; k <= more; ++k) {
      const unsigned char n = s[i + k];
      if ((n & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (n & 0x3F);
    }
    static constexpr std::uint32_t kMin[] = {0, 0x80, 0x800, 0x10000};
    if (cp < kMin[more] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += more + 1;
  }
  return true;
}

bool ScalarToJson(const YAML::Node& node, const std::string& at, nlohmann::json* out,
                  std::string* err) {
  const std::string& text = node.Scalar();
  const std::string& tag = node.Tag();
  if (!IsUtf8(text)) {
    *err = at + " is not UTF-8 text";
    return false;
  }
  bool b = false;
  std::int64_t i = 0;
  double d = 0;
  if (tag == "?" && IsInfinityOrNan(text)) {
    *err = at + ": " + text + " is a number JSON cannot hold (quote it to mean the text)";
    return false;
  } else if (tag == "?") {
    *out = ResolvePlain(text);
  } else if (tag.empty() || tag == "!" || tag == "tag:yaml.org,2002:str") {
    *out = text;
  } else if (tag == kIntTag && ParseInt(text, &i)) {
    *out = i;
  } else if (tag == kBoolTag && ParseBool(text, &b)) {
    *out = b;
  } else if (tag == "tag:yaml.org,2002:float" && (ParseInt(text, &i) || ParseFloat(text, &d))) {
    *out = ParseInt(text, &i) ? nlohmann::json(i) : FloatValue(d);
  } else if (tag == "tag:yaml.org,2002:null" && IsNullWord(text)) {
    *out = nullptr;
  } else {
    *err = at + ": \"" + text + "\" tagged " + tag + " is not a value fiber can send";
    return false;
  }
  return true;
}

std::string Child(const std::string& at, const std::string& key) {
  return at.empty() ? key : at + "." + key;
}

/// A key as kubectl's YAML reader makes it JSON's: `on:` is the key
/// "true", `0400:` the key "256".
std::string KeyText(const nlohmann::json& key) {
  if (key.is_string()) return key.get<std::string>();
  return key.dump();
}

/// Text that fiber and kubectl read as a string, but other YAML 1.1 readers
/// (PyYAML, say) may not: anything that starts like a number (a date
/// 2001-12-14, base 60 12:30, 0b_), the value and merge keys (=, <<).
/// Quoted when written, to be plain to every reader.
bool ReadsOtherwiseElsewhere(const std::string& s) {
  if (s == "=" || s == "<<" || IsInfinityOrNan(s)) return true;
  const std::size_t first = !s.empty() && (s[0] == '-' || s[0] == '+') ? 1 : 0;
  const std::size_t digit = first < s.size() && s[first] == '.' ? first + 1 : first;
  return digit < s.size() && s[digit] >= '0' && s[digit] <= '9';
}

bool ReadsAsString(const std::string& s) {
  return ResolvePlain(s).is_string() && !ReadsOtherwiseElsewhere(s);
}

/// What yaml-cpp may write raw but a reader takes for something else: a
/// carriage return (left raw at the end of an unquoted value, where it is
/// a line break), DEL, which kubectl's reader refuses, and NEL, LS and PS
/// (U+0085, U+2028, U+2029), line breaks to a YAML 1.1 reader. Escaping
/// all that is not ASCII in double quotes escapes each of them.
bool HasRawHazard(const std::string& s) {
  return s.find_first_of("\r\x7f") != std::string::npos || s.find("\xc2\x85") != std::string::npos ||
         s.find("\xe2\x80\xa8") != std::string::npos || s.find("\xe2\x80\xa9") != std::string::npos;
}

void Emit(const nlohmann::json& value, YAML::Emitter* out) {
  auto string = [out](const std::string& s) {
    if (HasRawHazard(s))
      *out << YAML::EscapeNonAscii << YAML::DoubleQuoted << s;
    else if (ReadsAsString(s))
      *out << s;
    else
      *out << YAML::DoubleQuoted << s;
  };
  switch (value.type()) {
    case nlohmann::json::value_t::object:
      if (value.empty()) *out << YAML::Flow;
      *out << YAML::BeginMap;
      for (const auto& [key, item] : value.items()) {
        *out << YAML::Key;
        string(key);
        *out << YAML::Value;
        Emit(item, out);
      }
      *out << YAML::EndMap;
      break;
    case nlohmann::json::value_t::array:
      if (value.empty()) *out << YAML::Flow;
      *out << YAML::BeginSeq;
      for (const auto& item : value) Emit(item, out);
      *out << YAML::EndSeq;
      break;
    case nlohmann::json::value_t::string:
      string(value.get<std::string>());
      break;
    case nlohmann::json::value_t::null:
      *out << YAML::Null;
      break;
    default:  // numbers and booleans, as JSON writes them
      *out << value.dump();
  }
}

}  // namespace

bool YamlToJson(const YAML::Node& node, const std::string& at, nlohmann::json* out, std::string* err) {
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      *out = nullptr;
      return true;
    case YAML::NodeType::Scalar:
      return ScalarToJson(node, at.empty() ? "the document" : at, out, err);
    case YAML::NodeType::Sequence: {
      *out = nlohmann::json::array();
      for (std::size_t i = 0; i < node.size(); ++i) {
        nlohmann::json item;
        if (!YamlToJson(node[i], at + "[" + std::to_string(i) + "]", &item, err)) return false;
        out->push_back(std::move(item));
      }
      return true;
    }
    case YAML::NodeType::Map: {
      *out = nlohmann::json::object();
      for (const auto& entry : node) {
        nlohmann::json key_value;
        if (!entry.first.IsScalar() && !entry.first.IsNull()) {
          *err = (at.empty() ? "the document" : at) + " has a key that is not a single value";
          return false;
        }
        if (!YamlToJson(entry.first, at.empty() ? "a key" : "a key of " + at, &key_value, err)) return false;
        const std::string key = KeyText(key_value);
        if (out->contains(key)) {
          *err = Child(at, key) + " is given twice";
          return false;
        }
        nlohmann::json item;
        if (!YamlToJson(entry.second, Child(at, key), &item, err)) return false;
        (*out)[key] = std::move(item);
      }
      return true;
    }
  }
  return true;
}

std::string JsonToYaml(const nlohmann::json& value) {
  YAML::Emitter out;
  out.SetIndent(2);
  Emit(value, &out);
  return std::string(out.c_str()) + "\n";
}

}  // namespace fiber::kube
