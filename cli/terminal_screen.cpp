#include "terminal_screen.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

namespace fiber::cli {

namespace {

// The alternate screen (the user's is back as it was afterwards), and the
// cursor hidden.
constexpr const char kEnter[] = "\x1b[?1049h\x1b[?25l";
constexpr const char kLeave[] = "\x1b[?25h\x1b[?1049l";

void WriteAll(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace

bool TerminalScreen::Open(int in, int out, std::string* err) {
  if (!::isatty(in) || !::isatty(out) || ::tcgetattr(in, &saved_) != 0) {
    *err = "fiber top draws on a terminal; for scripts, fiber top --once (or --once --json) prints one snapshot";
    return false;
  }
  termios raw = saved_;
  // Keys as they are typed, not echoed; Ctrl-C still signals.
  raw.c_lflag &= static_cast<tcflag_t>(~(ICANON | ECHO));
  raw.c_cc[VMIN] = 0;
  raw.c_cc[VTIME] = 0;
  if (::tcsetattr(in, TCSANOW, &raw) != 0) {
    *err = "cannot set up the terminal";
    return false;
  }
  in_ = in;
  out_ = out;
  open_ = true;
  WriteAll(out_, kEnter);
  return true;
}

TerminalScreen::~TerminalScreen() {
  if (!open_) return;
  WriteAll(out_, kLeave);
  (void)::tcsetattr(in_, TCSANOW, &saved_);
}

void TerminalScreen::Size(int* rows, int* columns) const {
  winsize ws{};
  *rows = 24;
  *columns = 80;
  if (::ioctl(out_, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0) {
    *rows = ws.ws_row;
    *columns = ws.ws_col;
  }
}

void TerminalScreen::Draw(const std::vector<std::string>& lines) const {
  int rows = 0, columns = 0;
  Size(&rows, &columns);
  std::string frame = "\x1b[H";
  for (std::size_t i = 0; i < lines.size() && i < static_cast<std::size_t>(rows); ++i) {
    if (i > 0) frame += "\r\n";
    frame += lines[i].substr(0, static_cast<std::size_t>(columns));
    frame += "\x1b[K";
  }
  frame += "\x1b[J";
  WriteAll(out_, frame);
}

}  // namespace fiber::cli
