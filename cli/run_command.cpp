// fiber run [OPTIONS] PROGRAM [ARGS...]: starts PROGRAM as a run's master,
// with the run's settings handed down, and returns its exit status.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string_view>

#include "backend/engine_adapter.hpp"
#include "backend/container/container_backend.hpp"
#include "commands.hpp"
#include "config/sources_report.hpp"
#include "config/variables.hpp"
#include "image/engine_build.hpp"
#include "engine/engine_socket.hpp"
#include "image_build.hpp"
#include "local_program.hpp"
#include "run_removal.hpp"
#include "run_store.hpp"
#include "runs/run_dir.hpp"
#include "supervisor.hpp"
#include "wire/item_directory.hpp"

extern char** environ;

namespace fiber::cli {

namespace {

struct RunOptions {
  SettingsFlags settings;
  std::vector<std::string> env;  // K=V
  std::string name;
  std::string output;  // --output: yaml, with --dry-run
  double grace_seconds = kDefaultGraceSeconds;
  bool detach = false, quiet = false, dry_run = false, build = false;
};

// The program's environment: ours, the settings the flags gave as the
// variables the runtime reads (so the program resolves what we resolved),
// the run's own variables, and --env last.
std::vector<std::string> ProgramEnvironment(const RunOptions& o, const RunRecord& run) {
  std::map<std::string, std::string> vars;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    const auto eq = entry.find('=');
    if (eq != std::string::npos) vars[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  for (const auto& [key, value] : o.settings.given)
    vars[config::FindSetting(key)->variable] = value;
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

// The image workers run, when one is wanted: the project's Dockerfile built
// (--build), the one named (--image, the image setting), or for a container
// backend the program packaged. Handed to the program as the image setting.
bool ChooseImage(RunOptions& o, const std::string& program, config::Settings* settings,
                 std::string* err) {
  const bool progress = !o.quiet && ::isatty(2);
  if (o.build) {
    if (!settings->image.empty()) {
      *err = "--build and the image setting (" + settings->image + ") both choose the image; give one";
      return false;
    }
    char cwd[4096];
    const std::string here = ::getcwd(cwd, sizeof cwd) ? cwd : ".";
    const std::string project_file = config::FindProjectFile(here);
    const std::string context =
        project_file.empty() ? here : project_file.substr(0, project_file.rfind('/'));
    std::string socket;
    if (!engine::FindSocket(backend::ImageEngineOf(settings->backend, settings->engine),
                            config::ProcessEnvironment,
                            &socket, err))
      return false;
    if (progress) std::fprintf(stderr, "fiber: building %s/Dockerfile\n", context.c_str());
    const auto step = [progress](const std::string& line) {
      if (progress) std::fprintf(stderr, "  %s\n", line.c_str());
    };
    // Told before it goes, as docker build tells it: a context larger than
    // expected is a file .dockerignore should list.
    const auto sending = [progress](const image::BuildContext& c) {
      if (!progress) return;
      std::fprintf(stderr, "fiber: sending the build context: %lld files, %s", static_cast<long long>(c.files),
                   HumanSize(c.bytes).c_str());
      if (c.left_out > 0)
        std::fprintf(stderr, " (%lld left out by .dockerignore)", static_cast<long long>(c.left_out));
      std::fprintf(stderr, "\n");
    };
    if (!image::BuildDockerfile(context, image::RepositoryFor(context), engine::Client(socket), sending, step,
                                &settings->image, err))
      return false;
  } else if (settings->image.empty() && backend::RunsImages(settings->backend)) {
    ImageRequest request;
    request.program = program;
    request.settings = settings;
    request.progress = progress;
    BuiltImage built;
    if (!BuildImage(request, &built, err)) return false;
    settings->image = built.reference;
  } else {
    return true;
  }
  o.settings.given["image"] = settings->image;
  if (progress) std::fprintf(stderr, "fiber: image %s\n", settings->image.c_str());
  return true;
}

// The program and its arguments: the words after "--", or those from the
// first word CLI11 did not take as one of run's own (a "--" after that is
// the program's). A word before PROGRAM that looks like an option and is
// not one of run's is a mistake, not a program.
bool ProgramCommand(const std::vector<std::string>& remaining, const RunTail& tail,
                    std::vector<std::string>* command, std::string* err) {
  if (!remaining.empty() && remaining[0].size() > 1 && remaining[0][0] == '-') {
    *err = "unknown option " + remaining[0].substr(0, remaining[0].find('=')) +
           " for fiber run (fiber run --help lists them; a PROGRAM starting with - goes after --)";
    return false;
  }
  *command = remaining;
  if (tail.given && !command->empty()) command->push_back("--");
  command->insert(command->end(), tail.words.begin(), tail.words.end());
  return true;
}

// Prints "PROGRAM [ARGS...]" in run's usage, which CLI11 cannot know of: the
// command is what it leaves over.
class RunUsage : public CLI::Formatter {
 public:
  std::string make_usage(const CLI::App* app, std::string name) const override {
    std::string usage = CLI::Formatter::make_usage(app, std::move(name));
    usage.insert(usage.find_last_not_of('\n') + 1, " [--] PROGRAM [ARGS...]");
    return usage;
  }
};

int Run(RunOptions& o, const std::vector<std::string>& remaining, const RunTail& tail) {
  std::vector<std::string> command;
  std::string command_err;
  if (!ProgramCommand(remaining, tail, &command, &command_err)) {
    Error(command_err);
    return kFiberError;
  }
  if (command.empty()) {
    Error("fiber run needs a PROGRAM to run (fiber run [OPTIONS] PROGRAM [ARGS...])");
    return kFiberError;
  }
  for (const auto& kv : o.env) {
    if (kv.find('=') == std::string::npos || kv.front() == '=') {
      Error("--env '" + kv + "' is not of the form KEY=VALUE");
      return kFiberError;
    }
    // The Slurm master's batch script sets it: a name must be one sh takes.
    if (!config::IsVariableName(kv.substr(0, kv.find('=')))) {
      Error("--env '" + kv + "': '" + kv.substr(0, kv.find('=')) +
            "' is not a variable name (letters, digits and '_', not first a digit)");
      return kFiberError;
    }
  }
  if (!(o.grace_seconds >= 0 && o.grace_seconds <= 86400)) {
    Error("--grace must be a number of seconds from 0 to 86400");
    return kFiberError;
  }
  config::Resolved resolved;
  std::string err;
  if (!o.settings.Resolve(&resolved, &err)) {
    Error(err);
    return kFiberError;
  }
  // --env reaches the workers too, on every backend: its names join
  // worker_env, which the program resolves from its variable.
  if (!o.env.empty()) {
    std::string& names = resolved.settings.worker_env;
    for (const auto& kv : o.env) {
      if (!names.empty()) names += ',';
      names += kv.substr(0, kv.find('='));
    }
    o.settings.given["worker_env"] = names;
  }
  if (!resolved.settings.image.empty() && !backend::RunsImages(resolved.settings.backend) && !o.quiet)
    std::fprintf(stderr, "fiber: warning: --image has no effect on the %s backend\n",
                 resolved.settings.backend.c_str());
  if (!o.output.empty() && (o.output != "yaml" || !o.dry_run)) {
    Error("--output takes yaml, with --dry-run (--dry-run -o yaml)");
    return kFiberError;
  }
  if (o.dry_run && o.output == "yaml") {
    const backend::DryRun objects = backend::DryRunOf(resolved.settings.backend);
    if (!objects) {
      Error("--dry-run -o yaml prints Kubernetes objects; this run's backend is " +
            resolved.settings.backend);
      return kFiberError;
    }
    std::string yaml;
    if (!objects(resolved, command, o.env, &yaml, &err)) {
      Error(err);
      return kFiberError;
    }
    std::fputs(yaml.c_str(), stdout);
    return 0;
  }
  if (o.dry_run) {
    std::fputs(config::SourcesReport(resolved).c_str(), stdout);
    return 0;
  }
  // A backend that cannot work here is refused before the program starts,
  // not at its first Pool.
  if (!backend::CheckReady(resolved.settings, o.build, &err)) {
    Error(err);
    return kFiberError;
  }
  Program program;
  int status = 0;
  const char* path = std::getenv("PATH");
  if (!FindProgram(command[0], path ? path : "/usr/bin:/bin", &program.path, &status, &err)) {
    Error(err);
    return status;
  }
  program.argv = command;
  if (!ChooseImage(o, program.path, &resolved.settings, &err)) {
    Error(err);
    return kFiberError;
  }
  wire::RemoveAbandonedItemDirectories();  // of masters gone, as ps and prune do too
  RunStore store(RunsRoot());
  RunRecord run;
  run.name = o.name;
  run.program = command[0];
  run.args.assign(command.begin() + 1, command.end());
  run.backend = resolved.settings.backend;
  run.grace_seconds = o.grace_seconds;
  for (const config::Setting& setting : config::Table())
    run.settings[setting.key] = setting.kind.show(resolved.settings);
  run.engine_env = backend::EngineEnvironment(config::ProcessEnvironment);
  run.supervisor_pid = ::getpid();
  run.supervisor_start = ProcessStart(run.supervisor_pid);
  if (!o.name.empty()) {
    RunRecord same;
    std::string unused;
    if (store.Find(o.name, &same, &unused) && same.name == o.name &&
        RunStore::StateOf(same) == RunState::kRunning) {
      Error("a running run is named '" + o.name + "' already (" + same.id + ")");
      return kFiberError;
    }
  }
  if (!store.Create(&run, &err)) {
    Error(err);
    return kFiberError;
  }
  program.env = ProgramEnvironment(o, run);

  if (o.detach) {
    // The caller returns once the record names the process that stays, so a
    // ps or logs right after sees a live run.
    int ready[2];
    std::fflush(stdout);
    const pid_t child = ::pipe(ready) == 0 ? ::fork() : -1;
    if (child < 0) {
      Error("cannot detach");
      return kFiberError;
    }
    if (child > 0) {
      ::close(ready[1]);
      char byte = 0;
      const bool saved = ::read(ready[0], &byte, 1) == 1;
      ::close(ready[0]);
      if (!saved) return kFiberError;  // it said why on stderr
      std::printf("%s\n", run.id.c_str());
      return 0;
    }
    ::close(ready[0]);
    ::setsid();
    run.supervisor_pid = ::getpid();
    run.supervisor_start = ProcessStart(run.supervisor_pid);
    if (!store.Save(run, &err)) {
      Error(err);
      std::_Exit(kFiberError);
    }
    (void)!::write(ready[1], "1", 1);
    ::close(ready[1]);
    std::freopen("/dev/null", "r", stdin);
    std::freopen("/dev/null", "w", stdout);
    std::freopen("/dev/null", "w", stderr);
  }
  if (!o.quiet && !o.detach) {
    // On a terminal, a person can see at once which file chose what runs.
    const std::string chosen = ::isatty(2) ? config::ShownAtRunSources(resolved) : "";
    std::fprintf(stderr, "fiber: run %s (%s backend%s)\n", run.id.c_str(), run.backend.c_str(),
                 chosen.empty() ? "" : ("; " + chosen).c_str());
  }
  SuperviseOptions so;
  so.run_dir = run.dir;
  so.program = command[0];
  so.grace = std::chrono::milliseconds(static_cast<long long>(o.grace_seconds * 1000));
  so.quiet = o.quiet;
  so.detached = o.detach;
  so.here = !resolved.settings.master_in_cluster;
  const auto save = [&] {
    std::string save_err;
    if (!store.Save(run, &save_err)) Error(save_err);
  };
  StartMaster start = [&](int* start_status, std::string* start_err) -> std::unique_ptr<backend::RunningMaster> {
    // Its output then goes between redraws of the progress line.
    const bool terminal = !o.quiet && !o.detach && LocalProgram::SameTerminal(1, 2);
    std::unique_ptr<LocalProgram> local =
        LocalProgram::Start(program, run.dir, o.detach, terminal, start_status, start_err);
    if (local) {
      run.master_pid = local->pid();
      run.master_start = ProcessStart(local->pid());
      save();
    }
    return local;
  };
  if (resolved.settings.master_in_cluster) {
    const backend::MasterPlacement* placement = backend::PlacementOf(PlaceOf(run));
    backend::MasterLaunch launch;
    launch.resolved = resolved;
    launch.run_id = run.id;
    launch.run_dir = run.dir;
    char absolute[4096];
    launch.command = command;
    launch.command[0] = ::realpath(program.path.c_str(), absolute) ? absolute : program.path;
    launch.env = o.env;
    launch.program_env = program.env;
    launch.grace = so.grace;
    start = [&, placement, launch](int*, std::string* start_err) -> std::unique_ptr<backend::RunningMaster> {
      if (!placement) {  // the configuration allows master: cluster only where there is one
        *start_err = "the " + run.backend + " backend cannot run the program as master in a cluster";
        return nullptr;
      }
      std::unique_ptr<backend::RunningMaster> master = placement->Start(launch, start_err);
      if (master && !master->engine_id().empty()) {
        run.master_job = master->engine_id();
        save();
      }
      return master;
    };
  }
  status = Supervise(start, so, &err);
  if (!err.empty()) Error(err);
  // Its master gone, however it went, nothing may use the run's containers
  // or pods: their logs are kept with the run's and they are removed.
  std::string removed;
  if (!RemoveRunWorkers(run, &removed, &err)) Error("cannot remove the run's workers: " + err);
  std::string finish_err;
  if (!store.Finish(run, status, &finish_err)) Error(finish_err);
  return status;
}

}  // namespace

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

void AddRunCommand(CLI::App& app, int* status, const RunTail* tail) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* run = app.add_subcommand("run", "start PROGRAM as a run's master; its exit status is the program's");
  run->prefix_command();
  run->formatter(std::make_shared<RunUsage>());
  options->settings.AddTo(*run);
  run->add_option("--env", options->env, "KEY=VALUE added to the program's and its workers' environment (repeatable)")
      ->allow_extra_args(false);
  run->add_option("--name", options->name, "a name for the run, for ps, logs and stop");
  run->add_option("--grace", options->grace_seconds,
                  "seconds the program has to stop after the first Ctrl-C or SIGTERM (default 10)");
  run->add_flag("--build", options->build,
                 "build the project's Dockerfile through the engine for the workers' image");
  run->add_flag("-d,--detach", options->detach, "start in the background and print the run id");
  run->add_flag("-q,--quiet", options->quiet, "no messages from fiber on stderr");
  run->add_flag("--dry-run", options->dry_run, "print the resolved settings and start nothing");
  run->add_option("-o,--output", options->output,
                  "with --dry-run, yaml: the Kubernetes objects the run would create");
  run->callback([run, options, status, tail] { *status = Run(*options, run->remaining(), *tail); });
}

}  // namespace fiber::cli
