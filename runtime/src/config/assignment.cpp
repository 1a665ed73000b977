#include "config/assignment.hpp"

namespace fiber::config {

std::string Subject(const Assignment& a) {
  if (a.source == a.setting->variable || a.source == a.setting->flag) return a.source;
  return a.source + ": " + a.setting->key;
}

bool Apply(const Assignment& a, Settings* settings, std::string* err) {
  if (a.text.empty()) {
    *err = Subject(a) + " is empty";
    return false;
  }
  if (a.setting->kind.parse(a.text, settings, err)) return true;
  *err = Subject(a) + "=" + *err;
  return false;
}

std::vector<Assignment> FromEnvironment(const Getenv& getenv) {
  std::vector<Assignment> found;
  for (const Setting& s : Table())
    if (const char* value = getenv(s.variable)) found.push_back({&s, value, s.variable});
  return found;
}

}  // namespace fiber::config
