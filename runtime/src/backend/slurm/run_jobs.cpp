#include "backend/slurm/run_jobs.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "config/settings.hpp"
#include "backend/slurm/held_workers.hpp"
#include "backend/slurm/slurm_command.hpp"
#include "config/variables.hpp"
#include "worker/bootstrap.hpp"
#include "worker/worker_id.hpp"

namespace fiber::backend {

// Text is appended piece by piece here (s += ','; s += x), never as
// "," + std::string: GCC 12 at -O3 warns falsely (-Wrestrict) of the
// insert that operator+ makes for a literal before a temporary.

namespace {

// A worker's key file is KEY_DIR/wN.key.
constexpr const char* kKeyExtension = ".key";

// The worker's own variables, which the script sets from the array index.
bool SetByScript(const std::string& name) {
  return name == config::kWorkerIdVariable || name == config::kSecretFileVariable ||
         name == config::kSecretVariable;
}

}  // namespace

void WorkerArray::SetNumbers(std::vector<long> numbers) {
  std::sort(numbers.begin(), numbers.end());
  first = numbers.front();
  indexes.clear();
  for (long n : numbers) indexes.push_back((n - first) / stride);
}

std::string ShellQuoted(const std::string& text) {
  std::string q = "'";
  for (char c : text) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string ShellExport(const std::string& name, const std::string& value) {
  if (!config::IsVariableName(name)) return "";
  return "export " + name + "=" + ShellQuoted(value) + "\n";
}

std::string KeyFile(const std::string& key_dir, const std::string& worker_id) {
  return key_dir + "/" + worker_id + kKeyExtension;
}

std::string JobOutputPattern(const std::string& output_dir) { return output_dir + "/%A_%a.out"; }

std::string JobOutputFile(const std::string& output_dir, const std::string& job_id, long index) {
  return output_dir + "/" + job_id + "_" + std::to_string(index) + ".out";
}

std::string WorkerScript(const WorkerArray& a) {
  const std::string prefix(worker::kWorkerIdPrefix);
  std::string times;
  if (a.stride > 1) {
    times = " * ";
    times += std::to_string(a.stride);
  }
  std::string s = "#!/bin/sh\n# A worker of fiber run " + a.run_id + ": worker " + prefix + "(" +
                  std::to_string(a.first) + " + array index" + times + ").\n";
  s += std::string(config::kWorkerIdVariable) + "=" + prefix + "$((" + std::to_string(a.first) +
       " + SLURM_ARRAY_TASK_ID" + times + "))\n";
  s += std::string(config::kSecretFileVariable) + "=" + ShellQuoted(a.key_dir + "/") + "\"$" +
       config::kWorkerIdVariable + kKeyExtension + "\"\n";
  s += "export " + std::string(config::kWorkerIdVariable) + " " + config::kSecretFileVariable + "\n";
  for (const auto& [name, value] : a.env)
    if (!SetByScript(name)) s += ShellExport(name, value);
  s += "exec";
  for (const auto& arg : a.command) {
    s += ' ';
    s += ShellQuoted(arg);
  }
  return s + "\n";
}

std::string ArrayIndexes(const std::vector<long>& indexes) {
  std::string out;
  for (std::size_t i = 0; i < indexes.size();) {
    std::size_t j = i;
    while (j + 1 < indexes.size() && indexes[j + 1] == indexes[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(indexes[i]);
    if (j > i) {
      out += '-';
      out += std::to_string(indexes[j]);
    }
    i = j + 1;
  }
  return out;
}

std::vector<std::string> SchedulingArguments(const config::Settings& settings) {
  // The user's options first: fiber's own, after them, are what make the
  // job one of this run's.
  std::vector<std::string> args;
  std::istringstream extra(settings.sbatch_options);
  for (std::string w; extra >> w;) args.push_back(w);
  if (!settings.partition.empty()) args.push_back("--partition=" + settings.partition);
  if (!settings.account.empty()) args.push_back("--account=" + settings.account);
  if (!settings.qos.empty()) args.push_back("--qos=" + settings.qos);
  if (!settings.time_limit.empty()) args.push_back("--time=" + settings.time_limit);
  // fiber replaces a lost worker itself: a requeued job would come back as
  // a second copy of a worker already replaced, a requeued master would run
  // the program again from its start.
  args.push_back("--no-requeue");
  return args;
}

std::vector<std::string> SbatchArguments(const config::Settings& settings, const WorkerArray& a) {
  std::vector<std::string> args = {"sbatch", "--parsable"};
  for (std::string& arg : SchedulingArguments(settings)) args.push_back(std::move(arg));
  // Slurm gives whole CPUs: 0.5 asks for one.
  if (a.resources.cpu > 0)
    args.push_back("--cpus-per-task=" + std::to_string(static_cast<long>(std::ceil(a.resources.cpu))));
  if (a.resources.memory_mb > 0) args.push_back("--mem=" + std::to_string(a.resources.memory_mb) + "M");
  if (a.resources.gpu > 0) args.push_back("--gres=gpu:" + std::to_string(a.resources.gpu));
  args.push_back("--job-name=" + JobName(a.run_id));
  args.push_back("--comment=" + JobComment(a.run_id, a.first, a.stride));
  std::string array = ArrayIndexes(a.indexes);
  if (settings.array_limit > 0) {
    array += '%';
    array += std::to_string(settings.array_limit);
  }
  args.push_back("--array=" + array);
  args.push_back("--output=" + a.output);
  args.push_back("--open-mode=append");
  return args;
}

bool SubmitWorkers(const config::Settings& settings, const WorkerArray& array, std::string* job_id,
                   std::string* err) {
  std::string out;
  if (!RunSlurm(SbatchArguments(settings, array), WorkerScript(array), &out, err)) return false;
  if (!ParseSbatchJobId(out, job_id)) {
    *err = "sbatch --parsable printed no job id: '" + out.substr(0, 200) + "'";
    return false;
  }
  return true;
}

bool ListRunJobs(const std::string& run_id, std::vector<JobState>* out, std::string* err,
                 const std::vector<std::string>& env, std::chrono::milliseconds retry_timeout) {
  std::map<std::string, std::vector<JobState>> by_run;
  if (!ListRunsJobs({run_id}, &by_run, err, env, retry_timeout)) return false;
  *out = std::move(by_run[run_id]);
  return true;
}

std::vector<std::string> SqueueArguments(const std::vector<std::string>& names) {
  // Only the user's own jobs (--me): squeue lists everyone's, and any user
  // of the cluster may submit a job with a run's name and comment.
  std::vector<std::string> args = {"squeue", "--me", "--noheader", "--array", "--states=all"};
  std::string named;
  for (const std::string& name : names) {
    named += named.empty() ? "--name=" : ",";
    named += name;
  }
  if (!named.empty()) args.push_back(named);
  args.push_back(std::string("--Format=") + kSqueueFields);
  return args;
}

std::map<std::string, std::vector<JobState>> JobsOfRuns(const std::string& text,
                                                        const std::vector<std::string>& run_ids) {
  std::map<std::string, std::vector<JobState>> by_run;
  for (JobState& job : ParseSqueue(text))
    if (std::find(run_ids.begin(), run_ids.end(), job.run_id) != run_ids.end())
      by_run[job.run_id].push_back(std::move(job));
  return by_run;
}

bool ListRunsJobs(const std::vector<std::string>& run_ids, std::map<std::string, std::vector<JobState>>* out,
                  std::string* err, const std::vector<std::string>& env, std::chrono::milliseconds retry_timeout) {
  out->clear();
  if (run_ids.empty()) return true;
  std::vector<std::string> names;
  for (const std::string& id : run_ids) names.push_back(JobName(id));
  std::string text;
  if (!RunSlurm(SqueueArguments(names), "", &text, err, env, retry_timeout)) return false;
  *out = JobsOfRuns(text, run_ids);
  return true;
}

bool CancelJobs(const std::vector<std::string>& jobs, std::string* err, const std::vector<std::string>& env,
                bool term) {
  if (jobs.empty()) return true;
  std::vector<std::string> argv = {"scancel"};
  if (term) argv.insert(argv.end(), {"--signal=TERM", "--full"});
  argv.insert(argv.end(), jobs.begin(), jobs.end());
  std::string out;
  return RunSlurm(argv, "", &out, err, env);
}

std::vector<std::string> UnreadKeyFiles(const std::string& key_dir) {
  std::vector<std::string> files;
  std::error_code ec;
  if (!key_dir.empty())
    for (const auto& file : std::filesystem::directory_iterator(key_dir, ec))
      if (file.path().extension() == kKeyExtension) files.push_back(file.path());
  return files;
}

bool CancelRun(const std::string& run_id, const std::string& key_dir, int* cancelled, std::string* err,
               const std::vector<std::string>& env) {
  *cancelled = 0;
  std::vector<JobState> jobs;
  if (!ListRunJobs(run_id, &jobs, err, env)) return false;
  std::vector<std::string> live;
  for (const JobState& j : jobs)
    if (!j.ended || j.hopeless) live.push_back(j.job);
  if (!CancelJobs(live, err, env)) return false;
  *cancelled = static_cast<int>(live.size());
  for (const std::string& file : UnreadKeyFiles(key_dir)) ::unlink(file.c_str());
  if (!key_dir.empty()) WriteHeldWorkers(key_dir, {});
  return true;
}

}  // namespace fiber::backend
