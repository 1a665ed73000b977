// The engine's streamed calls, where they need no engine: reading the
// multiplexed log stream however it is split, and a streamed call to an
// engine that is not there.
#include <doctest/doctest.h>

#include <string>

#include "engine/engine_streams.hpp"
#include "engine/log_stream.hpp"
#include "support/temp_dir.hpp"

namespace {

std::string Frame(char stream, const std::string& text) {
  std::string f = {stream, 0, 0, 0};
  for (int shift = 24; shift >= 0; shift -= 8) f += static_cast<char>((text.size() >> shift) & 0xff);
  return f + text;
}

}  // namespace

TEST_CASE("the log stream gives each frame's text and stream, however its bytes are split") {
  const std::string bytes = Frame(1, "out 1\n") + Frame(2, "err 1\n") + Frame(1, std::string(300, 'x'));
  for (std::size_t piece : {1, 3, 8, 9, 100, 1000}) {
    std::string out, err;
    fiber::engine::LogStream stream([&](int s, std::string_view text) { (s == 1 ? out : err).append(text); });
    for (std::size_t at = 0; at < bytes.size(); at += piece) stream.Feed(std::string_view(bytes).substr(at, piece));
    CHECK(out == "out 1\n" + std::string(300, 'x'));
    CHECK(err == "err 1\n");
    CHECK(stream.complete());
  }
}

TEST_CASE("a frame that claims gigabytes is handed on as it arrives, not held") {
  std::string header = {1, 0, 0, 0, '\xff', '\xff', '\xff', '\xff'};
  std::size_t handed = 0;
  fiber::engine::LogStream stream([&](int, std::string_view text) { handed += text.size(); });
  stream.Feed(header);
  const std::string piece(1 << 20, 'x');
  for (int i = 0; i < 8; ++i) stream.Feed(piece);
  CHECK(handed == 8 * piece.size());
  CHECK_FALSE(stream.complete());
}

TEST_CASE("a streamed call to an engine that is not there names the socket it tried") {
  fiber::testing::TempDir dir;
  const std::string socket = dir.path() + "/engine.sock";
  const fiber::engine::Client engine(socket);
  const std::string unreachable = "cannot reach the container engine at " + socket + ": ";
  std::string err;
  CHECK_FALSE(fiber::engine::Logs(engine, "x", 0, [](std::string_view) {}, &err));
  CHECK_MESSAGE(err.rfind(unreachable, 0) == 0, err);
  err.clear();
  const std::string archive = dir.write("image.tar", std::string(1024, '\0'));
  CHECK_FALSE(fiber::engine::PostArchive(engine, "/images/load?quiet=1", archive, nullptr, &err));
  CHECK_MESSAGE(err.rfind(unreachable, 0) == 0, err);
}
