// fiber run [OPTIONS] PROGRAM [ARGS...]: starts PROGRAM as a run's master,
// with the run's settings handed down, and returns its exit status.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>

#include "backend/engine_adapter.hpp"
#include "config/backend_names.hpp"
#include "commands.hpp"
#include "config/sources_report.hpp"
#include "image/engine_build.hpp"
#include "engine/engine_socket.hpp"
#include "error_line.hpp"
#include "image_build.hpp"
#include "local_program.hpp"
#include "run_plan.hpp"
#include "run_removal.hpp"
#include "run_store.hpp"
#include "runs/run_dir.hpp"
#include "supervisor.hpp"
#include "wire/item_directory.hpp"

namespace fiber::cli {

namespace {

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
    if (!engine::FindSocket(config::ImageEngineOf(settings->backend, settings->engine),
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

std::chrono::milliseconds GraceOf(const RunOptions& o) {
  return std::chrono::milliseconds(static_cast<long long>(o.grace_seconds * 1000));
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

// --dry-run: the objects the run would make (-o yaml), else the settings
// and where each came from; nothing started.
int ShowDryRun(const RunOptions& o, const config::Resolved& resolved, const std::vector<std::string>& command) {
  if (o.output != "yaml") {
    std::fputs(config::SourcesReport(resolved).c_str(), stdout);
    return 0;
  }
  const backend::DryRun objects = backend::DryRunOf(resolved.settings.backend);
  if (!objects) {
    Error("--dry-run -o yaml prints Kubernetes objects; this run's backend is " + resolved.settings.backend);
    return kFiberError;
  }
  std::string yaml, err;
  if (!objects(resolved, command, o.env, &yaml, &err)) {
    Error(err);
    return kFiberError;
  }
  std::fputs(yaml.c_str(), stdout);
  return 0;
}

// The settings of a run of command, from its options and every source,
// checked; false with *err.
bool ResolveRun(RunOptions& o, const CLI::App& run, const RunTail& tail,
                std::vector<std::string>* command, config::Resolved* resolved, std::string* err) {
  if (!ProgramCommand(run, tail, command, err) || !CheckRunOptions(o, err) ||
      !o.settings.Resolve(resolved, err))
    return false;
  JoinWorkerEnv(&o, &resolved->settings);
  if (!resolved->settings.image.empty() && !backend::RunsImages(resolved->settings.backend) && !o.quiet)
    std::fprintf(stderr, "fiber: warning: --image has no effect on the %s backend\n",
                 resolved->settings.backend.c_str());
  return CheckOutput(o, err);
}

// False with *err when a running run has the name asked for.
bool CheckNameFree(const RunStore& store, const std::string& name, std::string* err) {
  if (name.empty()) return true;
  RunRecord same;
  std::string unused;
  if (store.Find(name, &same, &unused) && same.name == name && RunStore::StateOf(same) == RunState::kRunning) {
    *err = "a running run is named '" + name + "' already (" + same.id + ")";
    return false;
  }
  return true;
}

// --detach: forks the process that stays, which records itself and goes on
// (true); the caller's process returns *status once the record names the
// one that stays, so a ps or logs right after sees a live run (false).
bool Detach(RunRecord* run, int* status) {
  int ready[2];
  std::fflush(stdout);
  const pid_t child = ::pipe(ready) == 0 ? ::fork() : -1;
  if (child < 0) {
    Error("cannot detach");
    *status = kFiberError;
    return false;
  }
  if (child > 0) {
    ::close(ready[1]);
    char byte = 0;
    const bool saved = ::read(ready[0], &byte, 1) == 1;
    ::close(ready[0]);
    *status = saved ? 0 : kFiberError;  // when not, it said why on stderr
    if (saved) std::printf("%s\n", run->id.c_str());
    return false;
  }
  ::close(ready[0]);
  ::setsid();
  run->supervisor_pid = ::getpid();
  run->supervisor_start = ProcessStart(run->supervisor_pid);
  std::string err;
  if (!SaveRecord(*run, &err)) {
    Error(err);
    std::_Exit(kFiberError);
  }
  (void)!::write(ready[1], "1", 1);
  ::close(ready[1]);
  std::freopen("/dev/null", "r", stdin);
  std::freopen("/dev/null", "w", stdout);
  std::freopen("/dev/null", "w", stderr);
  return true;
}

// How the run's master starts: the program here, or for master: cluster
// placed by its engine; either recorded in the run once started.
StartMaster MasterStart(const RunOptions& o, const Program& program, const config::Resolved& resolved, RunRecord& run) {
  const auto save = [&run] {
    std::string err;
    if (!SaveRecord(run, &err)) Error(err);
  };
  if (!resolved.settings.master_in_cluster)
    return [&o, &program, &run, save](int* status, std::string* err) -> std::unique_ptr<backend::RunningMaster> {
      // Its output then goes between redraws of the progress line.
      const bool terminal = !o.quiet && !o.detach && LocalProgram::SameTerminal(1, 2);
      std::unique_ptr<LocalProgram> local = LocalProgram::Start(program, run.dir, o.detach, terminal, status, err);
      if (local) {
        run.master_pid = local->pid();
        run.master_start = ProcessStart(local->pid());
        save();
      }
      return local;
    };
  const backend::MasterPlacement* placement = backend::PlacementOf(PlaceOf(run));
  backend::MasterLaunch launch;
  launch.resolved = resolved;
  launch.run_id = run.id;
  launch.run_dir = run.dir;
  char absolute[4096];
  launch.command = program.argv;
  launch.command[0] = ::realpath(program.path.c_str(), absolute) ? absolute : program.path;
  launch.env = o.env;
  launch.program_env = program.env;
  launch.grace = GraceOf(o);
  return [&run, placement, launch, save](int*, std::string* err) -> std::unique_ptr<backend::RunningMaster> {
    if (!placement) {  // the configuration allows master: cluster only where there is one
      *err = "the " + run.backend + " backend cannot run the program as master in a cluster";
      return nullptr;
    }
    std::unique_ptr<backend::RunningMaster> master = placement->Start(launch, err);
    if (master && !master->engine_id().empty()) {
      run.master_job = master->engine_id();
      save();
    }
    return master;
  };
}

// Supervises the run's master to its end, then removes what is left of it
// on its engine and records how it ended.
int SuperviseRun(const RunOptions& o, const Program& program, const config::Resolved& resolved, RunRecord& run) {
  if (!o.quiet && !o.detach) {
    // On a terminal, a person can see at once which file chose what runs.
    const std::string chosen = ::isatty(2) ? config::ShownAtRunSources(resolved) : "";
    std::fprintf(stderr, "fiber: run %s (%s backend%s)\n", run.id.c_str(), run.backend.c_str(),
                 chosen.empty() ? "" : ("; " + chosen).c_str());
  }
  SuperviseOptions so;
  so.run_dir = run.dir;
  so.program = program.argv[0];
  so.grace = GraceOf(o);
  so.quiet = o.quiet;
  so.detached = o.detach;
  so.here = !resolved.settings.master_in_cluster;
  std::string err;
  const int status = Supervise(MasterStart(o, program, resolved, run), so, &err);
  if (!err.empty()) Error(err);
  // Its master gone, however it went, nothing may use the run's containers
  // or pods: their logs are kept with the run's and they are removed.
  std::string removed;
  if (!RemoveRunWorkers(run, &removed, &err)) Error("cannot remove the run's workers: " + err);
  std::string finish_err;
  if (!RecordEnd(run, status, &finish_err)) Error(finish_err);
  return status;
}

int Run(RunOptions& o, const CLI::App& parsed, const RunTail& tail) {
  std::vector<std::string> command;
  config::Resolved resolved;
  std::string err;
  if (!ResolveRun(o, parsed, tail, &command, &resolved, &err)) {
    Error(err);
    return kFiberError;
  }
  if (o.dry_run) return ShowDryRun(o, resolved, command);
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
  RunRecord run = NewRunRecord(o, command, resolved.settings);
  run.engine_env = backend::EngineEnvironment(config::ProcessEnvironment);
  run.supervisor_pid = ::getpid();
  run.supervisor_start = ProcessStart(run.supervisor_pid);
  if (!CheckNameFree(store, o.name, &err) || !store.Create(&run, &err)) {
    Error(err);
    return kFiberError;
  }
  program.env = ProgramEnvironment(o, run, environ);
  if (o.detach && !Detach(&run, &status)) return status;
  return SuperviseRun(o, program, resolved, run);
}

}  // namespace

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
  run->callback([run, options, status, tail] { *status = Run(*options, *run, *tail); });
}

}  // namespace fiber::cli
