// The container engine's calls whose answer is a stream, over one
// engine::Client: a container's output (so far, followed, or attached
// before it starts), the engine's events, and a tar archive posted (an image
// loaded or built) with its answer's progress lines. Thread-safe as the
// client: every call is its own exchange.
#pragma once

#include <atomic>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "engine/engine_client.hpp"
#include "http/stream_set.hpp"

namespace fiber::engine {

/// A container's output so far, stdout and stderr in the order written,
/// handed over in pieces as it is read (a long log is never held whole);
/// tail > 0 keeps only the last tail lines. With timestamps, each line
/// begins with when the engine got it (RFC 3339) and a space, as docker
/// logs -t shows it.
[[nodiscard]] bool Logs(const Client& engine, const std::string& id, int tail,
                        const std::function<void(std::string_view)>& on_output, std::string* err,
                        bool timestamps = false);

/// Its output from the start, handed over as it comes until the container
/// stops, on_output returns false, or *cancel is set (when given); with
/// timestamps as Logs.
[[nodiscard]] bool FollowLogs(const Client& engine, const std::string& id,
                              const std::function<bool(std::string_view)>& on_output,
                              std::string* err, const std::atomic<bool>* cancel = nullptr,
                              bool timestamps = false);

/// Attaches to its stdout and stderr, as docker run does before it starts a
/// container so that none of its output is missed, as one of streams'
/// exchanges (on its thread): on_attached is called once the engine has
/// attached, then its output is handed over as it comes until the container
/// stops (or streams.Cancel), then on_end with "", or with the cause when
/// the attach failed.
http::StreamSet::Id Attach(const Client& engine, http::StreamSet& streams, const std::string& id,
                           std::function<void()> on_attached,
                           std::function<void(std::string_view)> on_output,
                           std::function<void(const std::string& err)> on_end);

/// The engine's events about containers carrying every label, from `since`
/// on (seconds since the epoch, "1700000000.123456789"), each handed over as
/// it comes (a JSON object) until the stream ends or *cancel is set.
[[nodiscard]] bool ContainerEvents(const Client& engine, const std::vector<std::string>& labels,
                                   const std::string& since,
                                   const std::function<void(const nlohmann::json&)>& on_event,
                                   const std::atomic<bool>* cancel, std::string* err);

/// POSTs the tar archive in the file archive_file to path, with no time
/// limit (loading an image: "/images/load?quiet=1", building one:
/// "/build?..."); the answer's JSON objects, one a line, go to on_message
/// (when given) as they come. An object with "error" is the engine's
/// failure: false with *err its text.
[[nodiscard]] bool PostArchive(const Client& engine, const std::string& path,
                               const std::string& archive_file,
                               const std::function<void(const nlohmann::json&)>& on_message,
                               std::string* err);

}  // namespace fiber::engine
