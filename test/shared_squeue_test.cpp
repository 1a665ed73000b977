// One squeue shared by the user's masters (backend/slurm/shared_squeue.hpp),
// against a script on PATH that answers as squeue does and counts its runs:
// callers that want a newer answer than the file holds share one squeue,
// at most one a second; an answer new enough is read, not asked again; a
// failure is shared as well; a master that dies holding the lock frees it.
// The Slurm suite's slurm-shared-squeue runs three real runs at once.
#include "backend/slurm/shared_squeue.hpp"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <thread>
#include <vector>

#include "support/fake_command.hpp"
#include "support/temp_dir.hpp"

using fiber::backend::ListUserJobs;
using fiber::backend::SqueueSharePath;
using fiber::backend::UserJobs;
using Clock = std::chrono::steady_clock;
using Script = fiber::testing::FakeCommand;
using Body = fiber::testing::FakeCommand::Script;

namespace {

const std::atomic<bool> kGoOn{false};

// squeue as it lists one job, numbered by its run.
Body Listing() {
  return Body{"echo x >> \"$dir/runs\"\necho \"12_$(wc -l < \"$dir/runs\")|12|1|RUNNING|None|0:0|localhost|fiber.run=r|\"\n"};
}

// Two answers for what was made since before, from a new share in runs.
void TwoAnswers(const std::string& runs, UserJobs* first, UserJobs* second) {
  const std::string share = SqueueSharePath(runs);
  std::string err;
  const auto before = Clock::now();
  REQUIRE(ListUserJobs(share, before, kGoOn, first, &err));
  REQUIRE(ListUserJobs(share, before, kGoOn, second, &err));
}

}  // namespace

TEST_CASE("masters that each want a new answer share squeue: at most one a second, every answer the same") {
  const Script squeue("squeue", Listing());
  const fiber::testing::TempDir runs;
  const std::string share = SqueueSharePath(runs.path());
  const auto start = Clock::now();
  std::atomic<int> answers{0};
  std::vector<std::thread> masters;
  for (int m = 0; m < 3; ++m)
    masters.emplace_back([&] {
      // Each step wants an answer made after it began: a master hurried.
      while (Clock::now() - start < std::chrono::milliseconds(2500)) {
        UserJobs jobs;
        std::string err;
        const auto since = Clock::now();
        if (ListUserJobs(share, since, kGoOn, &jobs, &err) && jobs.error.empty() && jobs.taken >= since &&
            jobs.text.rfind("12_", 0) == 0)
          ++answers;
      }
    });
  for (std::thread& t : masters) t.join();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  CHECK(answers >= 3);
  CHECK_MESSAGE(squeue.runs() <= seconds + 1, squeue.runs() << " squeues in " << seconds << " s");
}

TEST_CASE("an answer made since what a master asks for is read from the file, squeue not run again") {
  const Script squeue("squeue", Listing());
  const fiber::testing::TempDir runs, other;
  UserJobs first, second;
  TwoAnswers(runs.path(), &first, &second);
  CHECK(squeue.runs() == 1);
  CHECK(second.text == first.text);
  CHECK(second.taken == first.taken);
  // A share in another directory (other runs) is its own.
  TwoAnswers(other.path(), &first, &second);
  CHECK(squeue.runs() == 2);
}

TEST_CASE("a failed squeue is shared as its error, and not run again for what it answered") {
  const Script squeue("squeue", Body{"echo x >> \"$dir/runs\"\n"
                                     "echo 'slurm_load_jobs error: Unable to contact slurm controller' >&2\nexit 1\n"});
  const fiber::testing::TempDir runs;
  UserJobs first, second;
  TwoAnswers(runs.path(), &first, &second);
  CHECK_MESSAGE(first.error.find("Unable to contact slurm controller") != std::string::npos, first.error);
  CHECK(second.error == first.error);
  CHECK(second.text.empty());
  CHECK(squeue.runs() == 1);
}

TEST_CASE("a file of nonsense or from before a reboot (taken later than now) is not an answer") {
  const Script squeue("squeue", Listing());
  const fiber::testing::TempDir runs;
  const std::string share = SqueueSharePath(runs.path());
  UserJobs jobs;
  std::string err;
  for (const char* text : {"9223372036854775000 1\n99_9|99|9|RUNNING|None|0:0|localhost|fiber.run=r|\n", "nonsense", ""}) {
    std::ofstream(share) << text;
    REQUIRE(ListUserJobs(share, Clock::time_point{}, kGoOn, &jobs, &err));
    CHECK(jobs.text.rfind("12_", 0) == 0);
  }
  CHECK(squeue.runs() == 3);
}

TEST_CASE("a master that dies holding the lock frees it: another runs squeue; a waiting master stops when told") {
  const Script squeue("squeue", Listing());
  const fiber::testing::TempDir runs;
  const std::string share = SqueueSharePath(runs.path());
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  const pid_t holder = ::fork();
  REQUIRE(holder >= 0);
  if (holder == 0) {
    // A master in its squeue, for ever.
    const int lock = ::open((share + ".lock").c_str(), O_RDWR | O_CREAT, 0600);
    if (lock < 0 || ::flock(lock, LOCK_EX) != 0) ::_exit(1);
    (void)!::write(ready[1], "x", 1);
    for (;;) ::pause();
  }
  ::close(ready[1]);
  char c = 0;
  REQUIRE(::read(ready[0], &c, 1) == 1);
  ::close(ready[0]);

  std::atomic<bool> stopping{false};
  UserJobs jobs;
  std::string err;
  std::thread stopped([&] { CHECK_FALSE(ListUserJobs(share, Clock::now(), stopping, &jobs, &err)); });
  stopping = true;
  stopped.join();
  CHECK(squeue.runs() == 0);

  bool answered = false;
  std::thread waiting([&] { answered = ListUserJobs(share, Clock::now(), kGoOn, &jobs, &err); });
  ::kill(holder, SIGKILL);
  int status = 0;
  (void)::waitpid(holder, &status, 0);
  waiting.join();
  CHECK(answered);
  CHECK(jobs.text.rfind("12_1|", 0) == 0);
  CHECK(squeue.runs() == 1);
}
