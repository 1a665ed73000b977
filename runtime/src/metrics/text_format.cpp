#include "metrics/text_format.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace fiber::metrics {

namespace {

// Label values escape backslash, double quote and newline; HELP text
// backslash and newline.
std::string Escape(const std::string& text, bool quote) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else if (quote && c == '"') out += "\\\"";
    else out += c;
  }
  return out;
}

std::string LabelText(const Labels& labels) {
  if (labels.empty()) return "";
  std::string out = "{";
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (i) out += ",";
    out += labels[i].first + "=\"" + Escape(labels[i].second, true) + "\"";
  }
  return out + "}";
}

}  // namespace

std::string FormatValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char buffer[32];
  if (value == std::floor(value) && std::fabs(value) < 1e15)
    std::snprintf(buffer, sizeof buffer, "%.0f", value);
  else if (std::snprintf(buffer, sizeof buffer, "%.15g", value); std::strtod(buffer, nullptr) != value)
    std::snprintf(buffer, sizeof buffer, "%.17g", value);  // the shortest that reads back the same
  return buffer;
}

void TextFormat::Family(const std::string& name, const char* type, const std::string& help) {
  text_ += "# HELP " + name + " " + Escape(help, false) + "\n";
  text_ += "# TYPE " + name + " " + type + "\n";
}

void TextFormat::Sample(const std::string& name, const Labels& labels, double value) {
  text_ += name + LabelText(labels) + " " + FormatValue(value) + "\n";
}

void TextFormat::Histogram(const std::string& name, const Labels& labels, std::span<const double> bounds,
                           std::span<const std::uint64_t> counts, double sum) {
  std::uint64_t cumulative = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    cumulative += counts[i];
    Labels with_le = labels;
    with_le.emplace_back("le", i < bounds.size() ? FormatValue(bounds[i]) : "+Inf");
    Sample(name + "_bucket", with_le, static_cast<double>(cumulative));
  }
  Sample(name + "_sum", labels, sum);
  Sample(name + "_count", labels, static_cast<double>(cumulative));
}

}  // namespace fiber::metrics
