#include "backend/slurm/job_state.hpp"

#include <cstdlib>
#include <sstream>

#include "backend/labels.hpp"
#include "worker/worker_id.hpp"

namespace fiber::backend {

namespace {

bool WholeNumber(const std::string& text, long* out) {
  if (text.empty() || text.size() > 18) return false;
  for (char c : text)
    if (c < '0' || c > '9') return false;
  *out = std::atol(text.c_str());
  return true;
}

// The value of "key=value" among the comment's words; "" when absent.
std::string Word(const std::string& comment, const char* key) {
  std::istringstream words(comment);
  const std::string prefix = LabelIs(key, "");
  for (std::string w; words >> w;)
    if (w.rfind(prefix, 0) == 0) return w.substr(prefix.size());
  return "";
}

// How a job in an ended state (squeue's or sacct's State) went, its exit
// code read as a wait status.
EndCause SlurmJobEnded(const std::string& state, ExitStatus status) {
  using namespace end_word;
  using job_end_word::kTimeLimit;
  if (state == "COMPLETED" || state == "FAILED") return EndedWith(status);
  if (state == "OUT_OF_MEMORY") return OutOfMemory();
  if (state == "CANCELLED") return {kCancelled, "its Slurm job was cancelled"};
  if (state == "TIMEOUT") return EngineOnly(kTimeLimit, "its Slurm job reached its time limit");
  if (state == "DEADLINE") return EngineOnly(kTimeLimit, "its Slurm job reached its deadline");
  if (state == "PREEMPTED") return EngineOnly(kPreempted, "its Slurm job was preempted");
  if (state == "NODE_FAIL") return EngineOnly(kNodeFailed, "its node failed");
  if (state == "BOOT_FAIL") return EngineOnly(kNodeFailed, "its node failed to boot");
  return {kUnknown, "its Slurm job ended (" + state + ", " + status.Describe() + ")"};
}

std::vector<std::string> Split(const std::string& line, char sep) {
  std::vector<std::string> fields;
  std::size_t at = 0;
  for (std::size_t end; (end = line.find(sep, at)) != std::string::npos; at = end + 1)
    fields.push_back(line.substr(at, end - at));
  fields.push_back(line.substr(at));
  return fields;
}

// How a job that ended in state went, from its state and its exit code (a
// wait status as squeue gives it: 768 is exit status 3, 9 signal 9).
void ReadEnd(const std::string& state, long code, JobState* s) {
  s->ended = true;
  s->status = ExitStatus::FromWait(static_cast<int>(code));
  s->ended_by_slurm = state != "COMPLETED" && state != "FAILED";
  s->end = SlurmJobEnded(state, s->status);
}

bool Ended(const std::string& state) {
  for (const char* s : {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "PREEMPTED", "NODE_FAIL",
                        "BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY", "SPECIAL_EXIT", "REVOKED"})
    if (state == s) return true;
  return false;
}

}  // namespace

std::string JobName(const std::string& run_id) { return RunName(run_id); }

std::string JobComment(const std::string& run_id, long first_worker, long stride) {
  std::string comment = LabelIs(kRunLabel, run_id) + " " + LabelIs(kFirstLabel, std::to_string(first_worker));
  if (stride > 1) {
    comment += ' ';
    comment += LabelIs(kStrideLabel, std::to_string(stride));
  }
  return comment;
}

std::string MasterJobComment(const std::string& run_id) {
  return LabelIs(kRunLabel, run_id) + " " + LabelIs(kRoleLabel, kMasterRole);
}

std::vector<JobState> ParseSqueue(const std::string& text) {
  std::vector<JobState> jobs;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    // Every field ends with '|'; the comment, last, may hold one itself.
    std::vector<std::string> f = Split(line, '|');
    if (f.size() < 9) continue;
    JobState s;
    s.job = f[0];
    s.state = f[3];
    s.reason = f[4];
    s.node = f[6];
    std::string comment = f[7];
    for (std::size_t i = 8; i + 1 < f.size(); ++i) comment += "|" + f[i];
    long first = 0, index = 0, code = 0, stride = 1;
    if (s.job.empty() || s.state.empty()) continue;
    if (!Word(comment, kStrideLabel).empty() && !WholeNumber(Word(comment, kStrideLabel), &stride)) stride = 0;
    if (WholeNumber(Word(comment, kFirstLabel), &first) && WholeNumber(f[2], &index) && stride > 0)
      s.worker_id = worker::WorkerId(static_cast<std::uint64_t>(first + index * stride));
    s.run_id = Word(comment, kRunLabel);
    s.master = Word(comment, kRoleLabel) == kMasterRole;
    if (Ended(s.state)) {
      ReadEnd(s.state, WholeNumber(f[5], &code) ? code : 0, &s);
    } else if (s.state == "PENDING") {
      if (s.reason != "None") s.waiting = ExplainReason(s.reason);
      s.hopeless = HopelessReason(s.reason);
      if (s.hopeless) {
        s.ended = true;
        s.end = Because(end_word::kCannotStart, "Slurm will never run its job as asked: " + s.waiting);
      }
    }
    jobs.push_back(std::move(s));
  }
  return jobs;
}

bool ParseSbatchJobId(const std::string& text, std::string* job_id) {
  std::string line = text.substr(0, text.find('\n'));
  line = line.substr(0, line.find(';'));
  long id = 0;
  if (!WholeNumber(line, &id)) return false;
  *job_id = line;
  return true;
}

bool HopelessReason(const std::string& reason) {
  for (const char* r : {"PartitionConfig", "PartitionNodeLimit", "PartitionTimeLimit", "BadConstraints",
                        "InvalidAccount", "InvalidQOS", "AccountNotAllowed", "QOSNotAllowed",
                        "DependencyNeverSatisfied"})
    if (reason == r) return true;
  // A limit on each job (QOSMaxCpuPerJobLimit, AssocMaxWallDurationPerJobLimit):
  // waiting does not lift it.
  const std::string per_job = "PerJobLimit";
  return reason.size() > per_job.size() &&
         reason.compare(reason.size() - per_job.size(), per_job.size(), per_job) == 0;
}

std::string ExplainReason(const std::string& reason) {
  static const struct {
    const char* reason;
    const char* meaning;
  } kKnown[] = {
      {"Resources", "the CPUs, memory or GPUs it asks for are not free yet"},
      {"Priority", "jobs of higher priority go first"},
      {"Dependency", "it waits for jobs it depends on"},
      {"BeginTime", "its start time has not come"},
      {"JobArrayTaskLimit", "the array_limit setting lets no more of its array run at once"},
      {"QOSMaxJobsPerUserLimit", "the QOS lets you run no more jobs at once"},
      {"AssocMaxJobsLimit", "your association lets you run no more jobs at once"},
      {"ReqNodeNotAvail", "a node it needs is unavailable (down, drained or reserved)"},
      {"PartitionDown", "its partition is down"},
      {"PartitionInactive", "its partition is inactive"},
      {"JobHeldUser", "it is held (scontrol release frees it)"},
      {"JobHeldAdmin", "an administrator holds it"},
      {"PartitionConfig", "it asks for more than the partition's nodes have or allow (CPUs, memory, "
                          "GPUs or nodes)"},
      {"PartitionNodeLimit", "it asks for more nodes than the partition allows"},
      {"PartitionTimeLimit", "its time limit is longer than the partition allows"},
      {"BadConstraints", "no node has what it asks for"},
      {"InvalidAccount", "its account is not valid"},
      {"InvalidQOS", "its QOS is not valid"},
      {"AccountNotAllowed", "its account may not use the partition"},
      {"QOSNotAllowed", "its QOS may not use the partition"},
      {"DependencyNeverSatisfied", "a job it depends on failed"},
  };
  for (const auto& k : kKnown)
    if (reason == k.reason) return reason + " (" + k.meaning + ")";
  if (HopelessReason(reason)) return reason + " (it asks for more than a limit allows any one job)";
  return reason;
}

}  // namespace fiber::backend
