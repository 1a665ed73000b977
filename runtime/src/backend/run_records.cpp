#include "backend/run_records.hpp"


namespace fiber::backend {

std::string RunPlace::Setting(const std::string& key) const {
  const auto it = settings.find(key);
  return it == settings.end() ? "" : it->second;
}

config::Getenv RunPlace::Getenv() const {
  if (!engine_env) return config::ProcessEnvironment;
  return [env = *engine_env](const char* name) -> const char* {
    const auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
}

std::string Counted(int n, const char* what) {
  return n == 0 ? "" : std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

bool RunRecords::Leftovers(const RunPlace&, std::vector<std::string>*, std::string*) const { return true; }

bool RunRecords::ReadLog(const RunPlace&, const std::string&, bool, bool, const std::function<bool(std::string_view)>&,
                         bool* found, std::string*) const {
  *found = false;
  return true;
}

}  // namespace fiber::backend
