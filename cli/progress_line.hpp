// fiber run's one status line on a terminal's stderr while the program
// runs: "fiber: workers ready 2/4, tasks done 12/40, 3.1 tasks/s", from
// the master's status answer (runs/control_protocol.hpp), redrawn in place,
// cleared before any other text goes to the terminal and redrawn after it
// (once a line is whole), and gone at the end. Off (nothing written) when
// stderr is not a terminal. Not thread-safe.
#pragma once

#include <chrono>
#include <deque>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>

namespace fiber::cli {

/// The line for the master's status answer and a rate of tasks done per
/// second (negative: not known yet).
std::string ProgressText(const nlohmann::json& status, double per_second);

class ProgressLine {
 public:
  using Clock = std::chrono::steady_clock;
  /// Asks the master for its status answer; false when it does not answer.
  using Query = std::function<bool(nlohmann::json* status)>;
  ProgressLine(bool on, Query query) : on_(on), query_(std::move(query)) {}
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;
  ~ProgressLine() { Clear(); }

  /// Redraws the line, its numbers asked anew at most 4 times a second.
  void Show();
  /// Takes the line off the terminal, before other text is written there.
  void Clear();
  /// Other text was written to the terminal: the line is drawn again only
  /// once that text's last line is whole.
  void Wrote(std::string_view text);

 private:
  double Rate(Clock::time_point now, double done);

  const bool on_;
  Query query_;
  std::string line_;   // what the line says now
  bool shown_ = false;  // line_ is on the terminal
  bool line_start_ = true;
  Clock::time_point asked_ = Clock::now() - std::chrono::seconds(1);
  std::deque<std::pair<Clock::time_point, double>> done_;  // tasks done over the last few seconds
};

}  // namespace fiber::cli
