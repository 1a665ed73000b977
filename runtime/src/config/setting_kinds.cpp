#include "config/setting_kinds.hpp"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <iterator>
#include <sstream>

#include "config/backend_names.hpp"
#include "config/host_port.hpp"
#include "config/quantities.hpp"

namespace fiber::config {

namespace {

bool ParseSeconds(const std::string& text, std::chrono::milliseconds min, std::chrono::milliseconds* out,
                  std::string* err) {
  std::chrono::milliseconds value{};
  if (!ParseDuration(text, &value, err)) return false;
  if (value < min || value > std::chrono::hours(24)) {
    *err = "'" + text + "' is not a duration from " + FormatSeconds(min) + "s to 24h";
    return false;
  }
  *out = value;
  return true;
}

bool ParseWhole(const std::string& text, long lo, long hi, int* out, std::string* err) {
  char* end = nullptr;
  errno = 0;
  const long n = std::strtol(text.c_str(), &end, 10);
  if (*end != '\0' || errno != 0 || n < lo || n > hi) {
    *err = "'" + text + "' is not a whole number from " + std::to_string(lo) + " to " +
           std::to_string(hi);
    return false;
  }
  *out = static_cast<int>(n);
  return true;
}

}  // namespace

Kind Text(Field<std::string> field, const char* takes) {
  return {takes,
          [field](const std::string& text, Settings* s, std::string*) {
            s->*field = text;
            return true;
          },
          [field](const Settings& s) { return s.*field; }};
}

Kind Paths(Field<std::string> field) {
  Kind kind = Text(field, "paths separated by ':'");
  kind.list_separator = ":";
  return kind;
}

Kind Whole(Field<int> field, long lo, long hi, const char* takes) {
  return {takes,
          [=](const std::string& text, Settings* s, std::string* err) {
            return ParseWhole(text, lo, hi, &(s->*field), err);
          },
          [field](const Settings& s) { return std::to_string(s.*field); }};
}

Kind YesNo(Field<bool> field) {
  Kind kind{"true or false",
          [field](const std::string& text, Settings* s, std::string* err) {
            if (text != "true" && text != "false") {
              *err = "'" + text + "' is not true or false";
              return false;
            }
            s->*field = text == "true";
            return true;
          },
          [field](const Settings& s) { return std::string(s.*field ? "true" : "false"); }};
  kind.choices = {"true", "false"};
  return kind;
}

Kind Seconds(Field<std::chrono::milliseconds> field, std::chrono::milliseconds min) {
  return {"a duration",
          [=](const std::string& text, Settings* s, std::string* err) {
            return ParseSeconds(text, min, &(s->*field), err);
          },
          [field](const Settings& s) { return FormatSeconds(s.*field); }};
}

Kind ListenAddress(Field<std::string> field) {
  return {"HOST:PORT, :PORT or nothing",
          [field](const std::string& text, Settings* s, std::string* err) {
            std::string host;
            int port = 0;
            if (!text.empty() && !ParseHostPort(text, &host, &port, err)) return false;
            s->*field = text;
            return true;
          },
          [field](const Settings& s) { return s.*field; }};
}

Kind VariableNames(Field<std::string> field) {
  Kind kind{"variable names separated by ','",
            [field](const std::string& text, Settings* s, std::string* err) {
              std::string names;
              std::istringstream items(text);
              for (std::string name; std::getline(items, name, ',');) {
                if (name.empty()) continue;
                if (!IsVariableName(name)) {
                  *err = "'" + text + "' holds '" + name +
                         "', which is not a variable name (letters, digits and '_', not first a digit)";
                  return false;
                }
                names += (names.empty() ? "" : ",") + name;
              }
              s->*field = names;
              return true;
            },
            [field](const Settings& s) { return s.*field; }};
  kind.list_separator = ",";
  return kind;
}

Kind BackendName() {
  Kind kind{
    "a backend name",
    [](const std::string& text, Settings* s, std::string* err) {
      if (!CheckBackendName(text, err)) return false;
      s->backend = text;
      return true;
    },
    [](const Settings& s) { return s.backend; }};
  for (const KnownBackend& b : kBackends) kind.choices.push_back(b.name);
  return kind;
}

Kind EngineName() {
  Kind kind{
    "an engine name",
    [](const std::string& text, Settings* s, std::string* err) {
      std::string known;
      for (const char* name : kEngineNames) {
        if (text == name) {
          s->engine = text;
          return true;
        }
        known += (known.empty() ? "" : ", ") + std::string(name);
      }
      *err = "'" + text + "' is not a container engine (" + known + ")";
      return false;
    },
    [](const Settings& s) { return s.engine; }};
  kind.choices.assign(std::begin(kEngineNames), std::end(kEngineNames));
  return kind;
}

Kind MasterPlace() {
  Kind kind{
    "where the master runs",
    [](const std::string& text, Settings* s, std::string* err) {
      if (text != "local" && text != "cluster") {
        *err = "'" + text + "' is not where a master runs (local or cluster)";
        return false;
      }
      s->master_in_cluster = text == "cluster";
      return true;
    },
    [](const Settings& s) { return std::string(s.master_in_cluster ? "cluster" : "local"); }};
  kind.choices = {"local", "cluster"};
  return kind;
}

// Slurm's --time: minutes, or [days-]hours:minutes[:seconds] and the like;
// checked for its characters only, sbatch says what else is wrong.
Kind TimeLimit() {
  return {"a Slurm time limit",
          [](const std::string& text, Settings* s, std::string* err) {
            if (text.find_first_not_of("0123456789:-") != std::string::npos || text == "-") {
              *err = "'" + text + "' is not a Slurm time limit (minutes, or e.g. 1:30:00 or 2-12)";
              return false;
            }
            s->time_limit = text;
            return true;
          },
          [](const Settings& s) { return s.time_limit; }};
}

// sbatch options, whitespace-separated, each starting with '-'.
Kind SbatchOptions() {
  Kind kind{"sbatch options",
            [](const std::string& text, Settings* s, std::string* err) {
              std::istringstream words(text);
              for (std::string w; words >> w;)
                if (w.front() != '-') {
                  *err = "'" + text + "' holds '" + w + "', which is not an sbatch option (-x, --name=value)";
                  return false;
                }
              s->sbatch_options = text;
              return true;
            },
            [](const Settings& s) { return s.sbatch_options; }};
  kind.list_separator = " ";
  return kind;
}

// Any case; debug is info, the most fiber tells.
Kind LogLevel() {
  Kind kind{
    "a log level",
    [](const std::string& text, Settings* s, std::string* err) {
      std::string level = text;
      for (char& c : level) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (level != "debug" && level != "info" && level != "warning") {
        *err = "'" + text + "' is not a log level (debug, info or warning)";
        return false;
      }
      s->verbose = level != "warning";
      return true;
    },
    [](const Settings& s) { return std::string(s.verbose ? "info" : "warning"); }};
  kind.choices = {"debug", "info", "warning"};
  return kind;
}

}  // namespace fiber::config
