#include "backend/end_cause.hpp"

namespace fiber::backend {

EndCause EndedWith(ExitStatus status) {
  return {status.killed() ? end_word::kSignal : end_word::kExited, status.Describe()};
}

EndCause OutOfMemory(const std::string& limit) {
  return EngineOnly(end_word::kOom,
                    "killed for using more than its memory limit" + (limit.empty() ? "" : " of " + limit) + " (OOM)");
}

EndCause Because(const char* word, std::string text) { return {word, std::move(text)}; }

EndCause EngineOnly(const char* word, std::string text) { return {word, std::move(text), true}; }

}  // namespace fiber::backend
