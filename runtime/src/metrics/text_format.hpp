// Prometheus's text exposition format (version 0.0.4): metric families with
// their HELP and TYPE lines, samples with escaped labels, and histograms
// with cumulative buckets. Knows nothing of fiber; master/run_metrics
// fills it. Not thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace fiber::metrics {

/// The Content-Type of the text it writes.
inline constexpr const char* kTextContentType = "text/plain; version=0.0.4; charset=utf-8";

using Labels = std::vector<std::pair<std::string, std::string>>;

class TextFormat {
 public:
  /// Starts a family: type is "counter", "gauge" or "histogram".
  void Family(const std::string& name, const char* type, const std::string& help);
  void Sample(const std::string& name, const Labels& labels, double value);
  /// A histogram's samples: name_bucket (cumulative, le="..."), name_sum
  /// and name_count. counts[i]: observations in bucket i alone (above
  /// bounds[i-1], at most bounds[i]), one more than bounds for those above
  /// every bound (le="+Inf").
  void Histogram(const std::string& name, const Labels& labels, std::span<const double> bounds,
                 std::span<const std::uint64_t> counts, double sum);
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

/// value as the format writes it: whole numbers without a fraction,
/// +Inf, -Inf and NaN by name.
std::string FormatValue(double value);

}  // namespace fiber::metrics
