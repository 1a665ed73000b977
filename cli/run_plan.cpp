#include "run_plan.hpp"

#include <cstdlib>
#include <map>
#include <string_view>

#include "config/variables.hpp"
#include "unknown_argument.hpp"

namespace fiber::cli {

int CutRunTail(int argc, char** argv, RunTail* tail) {
  if (argc < 2 || std::string_view(argv[1]) != "run") return argc;
  for (int i = 2; i < argc; ++i) {
    if (std::string_view(argv[i]) != "--") continue;
    tail->given = true;
    tail->words.assign(argv + i + 1, argv + argc);
    return i;
  }
  return argc;
}

bool ProgramCommand(const CLI::App& run, const RunTail& tail, std::vector<std::string>* command,
                    std::string* err) {
  *command = run.remaining();
  if (!command->empty() && IsOptionWord(command->front())) {
    *err = UnknownOption(run, command->front(),
                         " (fiber run --help lists them; a PROGRAM starting with - goes after --)");
    return false;
  }
  if (tail.given && !command->empty()) command->push_back("--");
  command->insert(command->end(), tail.words.begin(), tail.words.end());
  if (command->empty()) {
    *err = "fiber run needs a PROGRAM to run (fiber run [OPTIONS] PROGRAM [ARGS...])";
    return false;
  }
  return true;
}

bool CheckRunOptions(const RunOptions& o, std::string* err) {
  for (const auto& kv : o.env) {
    if (kv.find('=') == std::string::npos || kv.front() == '=') {
      *err = "--env '" + kv + "' is not of the form KEY=VALUE";
      return false;
    }
    // The Slurm master's batch script sets it: a name must be one sh takes.
    if (!config::IsVariableName(kv.substr(0, kv.find('=')))) {
      *err = "--env '" + kv + "': '" + kv.substr(0, kv.find('=')) +
             "' is not a variable name (letters, digits and '_', not first a digit)";
      return false;
    }
  }
  if (!(o.grace_seconds >= 0 && o.grace_seconds <= 86400)) {
    *err = "--grace must be a number of seconds from 0 to 86400";
    return false;
  }
  return true;
}

bool CheckOutput(const RunOptions& o, std::string* err) {
  if (o.output.empty() || (o.output == "yaml" && o.dry_run)) return true;
  *err = "--output takes yaml, with --dry-run (--dry-run -o yaml)";
  return false;
}

void JoinWorkerEnv(RunOptions* o, config::Settings* settings) {
  if (o->env.empty()) return;
  std::string& names = settings->worker_env;
  for (const auto& kv : o->env) {
    if (!names.empty()) names += ',';
    names += kv.substr(0, kv.find('='));
  }
  o->settings.given["worker_env"] = names;
}

std::vector<std::string> ProgramEnvironment(const RunOptions& o, const RunRecord& run, char** environ) {
  std::map<std::string, std::string> vars;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    const auto eq = entry.find('=');
    if (eq != std::string::npos) vars[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  for (const auto& [key, value] : o.settings.given) vars[config::FindSetting(key)->variable] = value;
  if (!o.settings.config_file.empty()) {
    char resolved[4096];
    vars[config::kConfigVariable] =
        ::realpath(o.settings.config_file.c_str(), resolved) ? resolved : o.settings.config_file;
  }
  vars[config::kRunIdVariable] = run.id;
  vars[config::kRunDirVariable] = run.dir;
  for (const auto& kv : o.env) vars[kv.substr(0, kv.find('='))] = kv.substr(kv.find('=') + 1);
  std::vector<std::string> env;
  for (const auto& [k, v] : vars) env.push_back(k + "=" + v);
  return env;
}

RunRecord NewRunRecord(const RunOptions& o, const std::vector<std::string>& command,
                       const config::Settings& settings) {
  RunRecord run;
  run.name = o.name;
  run.program = command[0];
  run.args.assign(command.begin() + 1, command.end());
  run.backend = settings.backend;
  run.grace_seconds = o.grace_seconds;
  for (const config::Setting& setting : config::Table()) run.settings[setting.key] = setting.kind.show(settings);
  return run;
}

}  // namespace fiber::cli
