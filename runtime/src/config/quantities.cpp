#include "config/quantities.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <string_view>

namespace fiber::config {

namespace {

// A plain decimal number: digits and at most one point, nothing else (no
// sign, exponent or spaces), so "1e3" or " 2" are refused, not guessed at.
bool ParseDecimal(std::string_view text, double* out) {
  bool digit = false;
  bool point = false;
  for (char c : text) {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      digit = true;
    } else if (c == '.' && !point) {
      point = true;
    } else {
      return false;
    }
  }
  if (!digit) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size() && std::isfinite(*out);
}

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kMostMiB = 1024.0 * 1024.0 * 1024.0;  // 1024Ti

struct Unit {
  const char* suffix;
  double bytes;
};

// Longer suffixes first, so "Mi" is not read as "M". A B after a unit
// changes nothing ("2GB" is "2G", "512MiB" is "512Mi"), so the spellings of
// df, free and Docker's own help read as users mean them.
const Unit kUnits[] = {
    {"KiB", 1024.0}, {"MiB", kMiB},        {"GiB", kMiB * 1024},       {"TiB", kMiB * 1024 * 1024},
    {"kb", 1024.0},  {"mb", kMiB},         {"gb", kMiB * 1024},        {"tb", kMiB * 1024 * 1024},
    {"kB", 1024.0},  {"KB", 1024.0},       {"MB", 1e6},                {"GB", 1e9},
    {"TB", 1e12},
    {"Ki", 1024.0},  {"Mi", kMiB},         {"Gi", kMiB * 1024},        {"Ti", kMiB * 1024 * 1024},
    {"k", 1024.0},   {"K", 1024.0},        {"m", kMiB},                {"g", kMiB * 1024},
    {"t", kMiB * 1024 * 1024},             {"M", 1e6},                 {"G", 1e9},
    {"T", 1e12},     {"", kMiB},
};

struct TimeUnit {
  const char* suffix;
  double millis;
};

// "ms" before "m" and "s", for the same reason.
const TimeUnit kTimeUnits[] = {
    {"ms", 1.0}, {"s", 1000.0}, {"m", 60e3}, {"h", 3600e3}, {"", 1000.0},
};

}  // namespace

bool ParseCpu(const std::string& text, int* millis, std::string* err) {
  std::string_view number = text;
  double scale = 1000;
  if (!number.empty() && number.back() == 'm') {
    number.remove_suffix(1);
    scale = 1;
  }
  double value = 0;
  const bool ok = ParseDecimal(number, &value);
  const double thousandths = value * scale;
  if (!ok || std::abs(thousandths - std::round(thousandths)) > 1e-6 || thousandths > 4096e3) {
    *err = "'" + text + "' is not a number of CPUs from 0 to 4096, to a thousandth (e.g. 2, 0.5 or 500m)";
    return false;
  }
  *millis = static_cast<int>(std::round(thousandths));
  return true;
}

std::string FormatCpu(int millis) {
  std::string s = std::to_string(millis / 1000);
  if (millis % 1000 == 0) return s;
  std::string fraction = std::to_string(1000 + millis % 1000).substr(1);
  while (fraction.back() == '0') fraction.pop_back();
  return s + "." + fraction;
}

bool ParseMemory(const std::string& text, std::int64_t* mib, std::string* err) {
  for (const Unit& unit : kUnits) {
    const std::string_view suffix = unit.suffix;
    if (!std::string_view(text).ends_with(suffix)) continue;
    double value = 0;
    if (!ParseDecimal(std::string_view(text).substr(0, text.size() - suffix.size()), &value)) break;
    const double in_mib = std::ceil(value * unit.bytes / kMiB - 1e-9);
    if (in_mib > kMostMiB) {
      *err = "'" + text + "' is more than 1024Ti";
      return false;
    }
    *mib = static_cast<std::int64_t>(in_mib);
    return true;
  }
  *err = "'" + text + "' is not a size such as 512Mi, 2Gi, 2GB or 256m (a bare number is MiB)";
  return false;
}

bool ParseDuration(const std::string& text, std::chrono::milliseconds* out, std::string* err) {
  for (const TimeUnit& unit : kTimeUnits) {
    const std::string_view suffix = unit.suffix;
    if (!std::string_view(text).ends_with(suffix)) continue;
    double value = 0;
    if (!ParseDecimal(std::string_view(text).substr(0, text.size() - suffix.size()), &value)) break;
    // Capped, for the caller's range check to name the value as too long.
    const double millis = std::min(std::round(value * unit.millis), 1e15);
    *out = std::chrono::milliseconds(static_cast<long long>(millis));
    return true;
  }
  *err = "'" + text + "' is not a duration such as 10, 10s, 500ms, 2m or 1h (a bare number is seconds)";
  return false;
}

std::string FormatMemory(std::int64_t mib) {
  if (mib == 0) return "0";
  if (mib % (1024 * 1024) == 0) return std::to_string(mib / (1024 * 1024)) + "Ti";
  if (mib % 1024 == 0) return std::to_string(mib / 1024) + "Gi";
  return std::to_string(mib) + "Mi";
}

}  // namespace fiber::config
