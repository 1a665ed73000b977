// A master's /metrics page as tests read it: fetched over HTTP, its samples
// summed by metric (and label), and checked by promtool as Prometheus
// would lint it. For the tests of the metrics setting (metrics_test and
// the cluster and Slurm suites).
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "http/client.hpp"
#include "support/temp_dir.hpp"

namespace fiber::testing {

/// GET url with headers ("Name: value"): status and body (0 and "" when
/// nothing answers).
inline std::pair<long, std::string> Get(const std::string& url, std::vector<std::string> headers = {}) {
  http::Request request;
  request.url = url;
  request.headers = std::move(headers);
  request.timeout_ms = 10000;
  http::Response response;
  std::string err;
  if (!http::Perform(request, &response, &err)) return {0, ""};
  return {response.status, response.body};
}

/// The sum of every sample of metric in exposition text whose labels hold
/// label (`reason="deleted"`; "": any labels).
inline double SumOf(const std::string& text, const std::string& metric, const std::string& label = "") {
  double sum = 0;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(metric, 0) != 0) continue;
    const char next = line[metric.size()];
    if (next != '{' && next != ' ') continue;
    if (!label.empty() && line.substr(0, line.find('}')).find(label) == std::string::npos) continue;
    sum += std::stod(line.substr(line.rfind(' ') + 1));
  }
  return sum;
}

/// promtool check metrics of text: its exit status and what it printed.
inline std::pair<int, std::string> Promtool(const std::string& text, const TempDir& dir) {
  const std::string in = dir.path() + "/metrics.txt";
  std::ofstream(in) << text;
  FILE* p = ::popen(("promtool check metrics < '" + in + "' 2>&1").c_str(), "r");
  std::string out;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  const int status = ::pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

}  // namespace fiber::testing
