#include "config/assignment.hpp"

#include "config/did_you_mean.hpp"

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
  // A value with a fixed set of choices gets the likely one a typo meant.
  const std::string meant = Closest(a.text, a.setting->kind.choices);
  if (!meant.empty()) *err += "; did you mean '" + meant + "'?";
  return false;
}

std::vector<Assignment> FromEnvironment(const Getenv& getenv) {
  std::vector<Assignment> found;
  for (const Setting& s : Table())
    if (const char* value = getenv(s.variable)) found.push_back({&s, value, s.variable});
  return found;
}

}  // namespace fiber::config
