#include "engine/engine_streams.hpp"

#include <memory>

#include "engine/engine_answer.hpp"
#include "engine/log_stream.hpp"
#include "http/line_stream.hpp"

namespace fiber::engine {

namespace {

/// What a stream's exchange ended with: true when answered with a success,
/// else false with the engine's message or the reason none came.
bool StreamEnded(const Client& engine, bool answered, http::Response r,
                 const std::string& error_body, std::string* err) {
  if (!answered) {
    if (r.status == 0) *err = engine.Unreachable(*err);
    return false;
  }
  if (Success(r.status)) return true;
  r.body = error_body;
  *err = ErrorMessage(r);
  return false;
}

/// A call whose successful answer is streamed (followed ones with no end of
/// their own, timeout_ms 0): each chunk to on_chunk (false stops it). The
/// error answer's message in *err.
bool Stream(const Client& engine, http::Request q,
            const std::function<bool(std::string_view)>& on_chunk, std::string* err) {
  auto a = std::make_shared<StreamAnswer>(StreamAnswer{false, {}, nullptr, on_chunk});
  Streamed(&q, a);
  http::Response r;
  const bool answered = http::Perform(q, &r, err);
  return StreamEnded(engine, answered, std::move(r), a->error_body, err);
}

/// Stream for an answer of JSON objects one a line, each to on_object; a
/// line longer than http::kMaxAnswerBytes is an error naming what the lines
/// are ("an event").
bool JsonLines(const Client& engine, http::Request q, const std::string& what,
               const std::function<void(const nlohmann::json&)>& on_object, std::string* err) {
  http::LineStream lines;  // a chunk may end mid-line
  const std::atomic<bool>* cancel = q.cancel;
  const auto each_line = [&](std::string_view line) {
    const auto object = nlohmann::json::parse(line, nullptr, false);
    if (object.is_object()) on_object(object);
    return true;
  };
  if (!Stream(engine, std::move(q),
              [&](std::string_view chunk) { return lines.Feed(chunk, each_line); }, err))
    return false;
  if (lines.overflowed()) {
    *err = "the container engine at " + engine.socket() + " sent " + what + " of more than " +
           std::to_string(http::kMaxAnswerBytes >> 20) + " MiB";
    return false;
  }
  // The last line of an answer that ended may have no newline.
  if (!cancel || !cancel->load()) (void)lines.Feed("\n", each_line);
  return true;
}

}  // namespace

bool Logs(const Client& engine, const std::string& id, int tail,
          const std::function<void(std::string_view)>& on_output, std::string* err,
          bool timestamps) {
  LogStream stream([&](int, std::string_view text) { on_output(text); });
  return Stream(engine,
                engine.NewRequest("GET",
                                  "/containers/" + id + "/logs?stdout=1&stderr=1&" +
                                      (timestamps ? "timestamps=1&" : "") + "tail=" +
                                      (tail > 0 ? std::to_string(tail) : std::string("all")),
                                  kLongCallMs),
                [&](std::string_view chunk) {
                  stream.Feed(chunk);
                  return true;
                },
                err);
}

bool FollowLogs(const Client& engine, const std::string& id,
                const std::function<bool(std::string_view)>& on_output, std::string* err,
                const std::atomic<bool>* cancel, bool timestamps) {
  bool go_on = true;
  LogStream stream([&](int, std::string_view text) {
    if (go_on) go_on = on_output(text);
  });
  return Stream(engine,
                engine.NewRequest("GET",
                                  "/containers/" + id + "/logs?stdout=1&stderr=1&follow=1" +
                                      (timestamps ? "&timestamps=1" : ""),
                                  0, cancel),
                [&](std::string_view chunk) {
                  stream.Feed(chunk);
                  return go_on;
                },
                err);
}

http::StreamSet::Id Attach(const Client& engine, http::StreamSet& streams, const std::string& id,
                           std::function<void()> on_attached,
                           std::function<void(std::string_view)> on_output,
                           std::function<void(const std::string& err)> on_end) {
  auto frames = std::make_shared<LogStream>(
      [on_output = std::move(on_output)](int, std::string_view text) { on_output(text); });
  auto a = std::make_shared<StreamAnswer>(StreamAnswer{false, {}, std::move(on_attached),
                                                       [frames](std::string_view chunk) {
                                                         frames->Feed(chunk);
                                                         return true;
                                                       }});
  http::Request q =
      engine.NewRequest("POST", "/containers/" + id + "/attach?stream=1&stdout=1&stderr=1", 0);
  Streamed(&q, a);
  return streams.Add(std::move(q), [engine, a, on_end = std::move(on_end)](
                                       bool answered, const http::Response& r, std::string err) {
    on_end(StreamEnded(engine, answered, r, a->error_body, &err) ? std::string() : err);
  });
}

bool ContainerEvents(const Client& engine, const std::vector<std::string>& labels,
                     const std::string& since,
                     const std::function<void(const nlohmann::json&)>& on_event,
                     const std::atomic<bool>* cancel, std::string* err) {
  // Filtered by type and label only: Podman filters event names by its own
  // ("died"), Docker by its ("die"); both report "die".
  const nlohmann::json filters = {{"type", {"container"}}, {"label", labels}};
  return JsonLines(engine,
                   engine.NewRequest("GET",
                                     "/events?since=" + http::Escape(since) +
                                         "&filters=" + http::Escape(filters.dump()),
                                     0, cancel),
                   "an event", on_event, err);
}

bool PostArchive(const Client& engine, const std::string& path, const std::string& archive_file,
                 const std::function<void(const nlohmann::json&)>& on_message, std::string* err) {
  http::Request q = engine.NewRequest("POST", path, 0);
  q.body_file = archive_file;
  q.headers.push_back("Content-Type: application/x-tar");
  std::string failure;
  const auto take = [&](const nlohmann::json& message) {
    if (message.contains("error"))
      failure = ErrorText(message["error"]);
    else if (on_message)
      on_message(message);
  };
  if (!JsonLines(engine, std::move(q), "a message", take, err)) return false;
  if (failure.empty()) return true;
  *err = failure;
  return false;
}

}  // namespace fiber::engine
