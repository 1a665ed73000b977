// metrics/text_format: the exposition text Prometheus reads.
#include "metrics/text_format.hpp"

#include <doctest/doctest.h>

#include <cmath>

using fiber::metrics::FormatValue;
using fiber::metrics::TextFormat;

TEST_CASE("families carry HELP and TYPE, samples their labels escaped") {
  TextFormat text;
  text.Family("fiber_tasks_completed_total", "counter", "tasks done\\ok\nnext");
  text.Sample("fiber_tasks_completed_total", {{"pool", "a\"b\\c\nd"}}, 3);
  text.Sample("fiber_up", {}, 1);
  CHECK(text.text() ==
        "# HELP fiber_tasks_completed_total tasks done\\\\ok\\nnext\n"
        "# TYPE fiber_tasks_completed_total counter\n"
        "fiber_tasks_completed_total{pool=\"a\\\"b\\\\c\\nd\"} 3\n"
        "fiber_up 1\n");
}

TEST_CASE("values: whole numbers plain, fractions shortest, infinities by name") {
  CHECK(FormatValue(0) == "0");
  CHECK(FormatValue(1234567) == "1234567");
  CHECK(FormatValue(0.005) == "0.005");
  CHECK(FormatValue(2.5) == "2.5");
  CHECK(FormatValue(0.1 + 0.2) == "0.30000000000000004");
  CHECK(FormatValue(INFINITY) == "+Inf");
  CHECK(FormatValue(-INFINITY) == "-Inf");
  CHECK(FormatValue(NAN) == "NaN");
}

TEST_CASE("a histogram's buckets are cumulative, end at +Inf, and its count is the last") {
  const double bounds[] = {0.1, 1, 10};
  const std::uint64_t counts[] = {2, 1, 1, 2};  // 0.05 0.1 | 0.5 | 3 | 30 40
  TextFormat text;
  text.Histogram("d_seconds", {{"pool", "1"}}, bounds, counts, 73.65);
  CHECK(text.text() ==
        "d_seconds_bucket{pool=\"1\",le=\"0.1\"} 2\n"
        "d_seconds_bucket{pool=\"1\",le=\"1\"} 3\n"
        "d_seconds_bucket{pool=\"1\",le=\"10\"} 4\n"
        "d_seconds_bucket{pool=\"1\",le=\"+Inf\"} 6\n"
        "d_seconds_sum{pool=\"1\"} 73.65\n"
        "d_seconds_count{pool=\"1\"} 6\n");
}
