#include "backend/slurm/shared_squeue.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <thread>

#include "backend/slurm/run_jobs.hpp"
#include "backend/slurm/slurm_command.hpp"
#include "config/settings.hpp"
#include "os/descriptor.hpp"
#include "os/whole_file.hpp"
#include "runs/run_dir.hpp"

namespace fiber::backend {

namespace {

using Clock = std::chrono::steady_clock;

// How often a master waiting for another's squeue looks again, and how
// soon it sees that its watch goes.
constexpr auto kLookAgain = std::chrono::milliseconds(50);

// share's listing: "TAKEN_NS 1\nTEXT" or "TAKEN_NS 0\nERROR". False when it
// holds none: missing, unreadable, or taken in the future (before this
// machine booted again: the steady clock starts at boot).
bool ReadShared(const std::string& share, UserJobs* jobs) {
  std::string text, reason;
  if (!os::ReadWholeFile(share, &text, &reason)) return false;
  const auto eol = text.find('\n');
  if (eol == std::string::npos) return false;
  std::istringstream head(text.substr(0, eol));
  long long ns = 0;
  int answered = -1;
  if (!(head >> ns) || !(head >> answered) || (answered != 0 && answered != 1)) return false;
  const Clock::time_point taken{std::chrono::nanoseconds(ns)};
  if (taken > Clock::now()) return false;
  jobs->taken = taken;
  jobs->text = answered ? text.substr(eol + 1) : "";
  jobs->error = answered ? "" : text.substr(eol + 1);
  return true;
}

std::string Shared(const UserJobs& jobs) {
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(jobs.taken.time_since_epoch()).count();
  return std::to_string(ns) + (jobs.error.empty() ? " 1\n" + jobs.text : " 0\n" + jobs.error);
}

void RunSqueue(UserJobs* jobs) {
  jobs->taken = Clock::now();
  jobs->error.clear();
  // Not tried again here: the watch's next step is.
  if (!RunSlurm(SqueueArguments(), "", &jobs->text, &jobs->error, {}, {})) jobs->text.clear();
}

// Waits for how_long; false when stopping cut it short.
bool Pause(Clock::duration how_long, const std::atomic<bool>& stopping) {
  for (const auto end = Clock::now() + how_long; !stopping;) {
    const auto left = end - Clock::now();
    if (left <= Clock::duration::zero()) return true;
    std::this_thread::sleep_for(std::min<Clock::duration>(left, kLookAgain));
  }
  return false;
}

// FNV-1a: the same name for the same cluster in every fiber.
std::uint64_t NameHash(const std::string& text) {
  std::uint64_t h = 14695981039346656037ULL;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ULL;
  return h;
}

}  // namespace

std::string SqueueSharePath(const std::string& runs_root) {
  char host[256] = {};
  (void)::gethostname(host, sizeof host - 1);
  std::string cluster = host;
  for (const char* variable : kSlurmVariables) {
    const char* value = config::ProcessEnvironment(variable);
    cluster += '\n';
    cluster += value ? value : "";
  }
  char name[32];
  std::snprintf(name, sizeof name, "%016llx", static_cast<unsigned long long>(NameHash(cluster)));
  return runs_root + "/.squeue-" + name;
}

bool ListUserJobs(const std::string& share, Clock::time_point since, const std::atomic<bool>& stopping,
                  UserJobs* jobs, std::string* err) {
  if (share.empty()) {
    RunSqueue(jobs);
    return true;
  }
  os::Descriptor lock(::open((share + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
  for (;;) {
    if (ReadShared(share, jobs) && jobs->taken >= since) return true;
    if (!lock || ::flock(lock.get(), LOCK_EX | LOCK_NB) == 0) break;
    if (errno != EWOULDBLOCK && errno != EINTR) break;
    // Another master runs squeue now: its answer may do.
    if (!Pause(kLookAgain, stopping)) {
      *err = "stopped";
      return false;
    }
  }
  // Held until lock closes (or not shared at all): the file says when
  // anyone last ran squeue.
  UserJobs last;
  if (ReadShared(share, &last)) {
    if (last.taken >= since) {
      *jobs = std::move(last);
      return true;
    }
    if (!Pause(last.taken + kSqueueFloor - Clock::now(), stopping)) {
      *err = "stopped";
      return false;
    }
  }
  RunSqueue(jobs);
  std::string unshared;
  // Not shared, it still answers this master.
  if (lock) (void)runs::WriteWhole(share, Shared(*jobs), &unshared);
  return true;
}

}  // namespace fiber::backend
