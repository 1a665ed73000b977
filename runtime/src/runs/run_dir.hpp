// Where a run keeps its records: one directory per run under
// $XDG_STATE_HOME/fiber/runs (default ~/.local/state/fiber/runs), readable by
// its owner only. The launcher (cli/) writes the record and the final status;
// the runtime writes its workers' logs and its final numbers there and
// answers status queries on the control socket. The one place that names
// these files.
#pragma once

#include <string>

namespace fiber::runs {

/// A fresh run id: 12 hex digits, enough to tell the runs of one machine
/// or cluster apart.
std::string NewRunId();

/// The directory that holds every run's directory; getenv is the process's
/// environment reader (XDG_STATE_HOME, else HOME, else the user database's
/// home of this uid). False with *err when none names one.
[[nodiscard]] bool RunsRoot(const char* (*getenv)(const char*), std::string* root, std::string* err);

/// Files of one run, given its directory.
inline std::string RecordPath(const std::string& dir) { return dir + "/run.json"; }
inline std::string StatusPath(const std::string& dir) { return dir + "/status.json"; }
inline std::string MasterLogPath(const std::string& dir) { return dir + "/master.log"; }
inline std::string WorkersDir(const std::string& dir) { return dir + "/workers"; }
inline std::string WorkerLogPath(const std::string& dir, const std::string& worker_id) {
  return WorkersDir(dir) + "/" + worker_id + ".log";
}
/// The Slurm backend's files of a run (on the filesystem its nodes share):
/// each worker's key until the worker reads it, and each worker job's
/// output, to which the worker's log is a link.
inline std::string SlurmDir(const std::string& dir) { return dir + "/slurm"; }
/// A Unix socket (ZeroMQ ipc) on which the master answers fiber ps
/// (runs/control_protocol.hpp).
inline std::string ControlSocketPath(const std::string& dir) { return dir + "/control"; }
/// The master's numbers as it ended ("status"'s, and the workers it
/// started); written by a master that ends normally, else by fiber run with
/// those it had at the stop that ended it ("as_of": "stop"); never while it runs.
inline std::string FinalNumbersPath(const std::string& dir) { return dir + "/final.json"; }

/// Writes text to path whole or not at all: a reader never sees half a
/// file. False with *err.
[[nodiscard]] bool WriteWhole(const std::string& path, const std::string& text, std::string* err);

/// Makes path and its missing parents, mode 0700; false with *err, also
/// when a directory on the way is another user's or others can write to it
/// (config/trusted_file.hpp's OpenTrustedDirectory), naming it.
[[nodiscard]] bool MakePrivateDirs(const std::string& path, std::string* err);

/// Opens a file of a run's directory (a log) to append to, made 0600 when
/// missing; never through a symbolic link planted at path (-1, ELOOP).
int OpenToAppend(const std::string& path);

}  // namespace fiber::runs
