// ArraySubmitter (backend/slurm/array_submitter.hpp) against an sbatch on
// PATH that takes arrays of at most as many tasks as its file "allowed"
// says and refuses larger ones as a QOS's MaxSubmitJobs makes Slurm's do:
// refused arrays are halved until taken, and a single refused job waits in
// fiber, said by waiting(), until there is room.
#include "backend/slurm/array_submitter.hpp"

#include <doctest/doctest.h>

#include <fstream>

#include "support/fake_command.hpp"
#include "support/fiber_command.hpp"

using fiber::backend::ArraySubmitter;
using fiber::backend::WorkerArray;

namespace {

constexpr const char* kRefusal =
    "sbatch: error: Batch job submission failed: Job violates accounting/QOS policy (job submit limit, user's size "
    "and/or time limits)";

// An sbatch first on PATH that takes arrays of at most Allow(n) tasks.
class LimitedSbatch {
 public:
  explicit LimitedSbatch(int allowed)
      : sbatch_("sbatch", fiber::testing::FakeCommand::Script{std::string(R"SH(
for a; do case $a in --array=*) spec=${a#--array=};; esac; done
n=0
for part in $(echo "${spec%%\%*}" | tr ',' ' '); do
  case $part in *-*) n=$((n + ${part#*-} - ${part%-*} + 1));; *) n=$((n + 1));; esac
done
cat >/dev/null
if [ "$n" -gt "$(cat "$dir/allowed")" ]; then echo ")SH") + kRefusal + R"SH(" >&2; exit 1; fi
echo "$n" >> "$dir/taken"
echo $(( $(wc -l < "$dir/taken") + 100 ))
)SH"}) {
    Allow(allowed);
  }
  void Allow(int n) { std::ofstream(sbatch_.dir() + "/allowed") << n << "\n"; }

 private:
  fiber::testing::FakeCommand sbatch_;
};

WorkerArray Array(long first, int n) {
  WorkerArray array;
  array.run_id = "r1";
  array.first = first;
  array.command = {"/bin/true"};
  for (long i = 0; i < n; ++i) array.indexes.push_back(i);
  return array;
}

}  // namespace

TEST_CASE("an array refused for a submit limit is halved until each part is taken, every worker once") {
  LimitedSbatch sbatch(3);
  ArraySubmitter submitter{fiber::config::Settings{}, 1001};
  submitter.Add(Array(10, 8));
  std::vector<ArraySubmitter::Done> done;
  const auto all_taken = [&] {
    for (auto& d : submitter.Take()) done.push_back(std::move(d));
    std::size_t n = 0;
    for (const auto& d : done) n += d.array.indexes.size();
    return n == 8;
  };
  REQUIRE(fiber::testing::eventually(all_taken, 30));
  std::vector<long> workers;
  for (const auto& d : done) {
    CHECK_MESSAGE(d.error.empty(), d.error);
    CHECK(!d.job_id.empty());
    CHECK(d.array.indexes.size() <= 3);
    for (long i : d.array.indexes) workers.push_back(d.array.first + i);
  }
  CHECK(workers == std::vector<long>{10, 11, 12, 13, 14, 15, 16, 17});
  CHECK(submitter.waiting().empty());
}

TEST_CASE("arrays added while another is being submitted go together in one sbatch") {
  LimitedSbatch sbatch(100);
  ArraySubmitter submitter{fiber::config::Settings{}, 1001};
  submitter.Add(Array(0, 2));
  for (long n = 2; n < 6; ++n) submitter.Add(Array(n, 1));
  std::vector<ArraySubmitter::Done> done;
  REQUIRE(fiber::testing::eventually([&] {
    for (auto& d : submitter.Take()) done.push_back(std::move(d));
    std::size_t n = 0;
    for (const auto& d : done) n += d.array.indexes.size();
    return n == 6;
  }, 30));
  // The first may have gone alone, before the others came.
  CHECK(done.size() <= 2);
  CHECK(done.back().array.indexes.back() + done.back().array.first == 5);
}

TEST_CASE("a single job refused waits in fiber, saying why, and is submitted once there is room") {
  LimitedSbatch sbatch(0);
  ArraySubmitter submitter{fiber::config::Settings{}, 1001};
  submitter.Add(Array(0, 2));
  REQUIRE(fiber::testing::eventually([&] { return !submitter.waiting().empty(); }, 30));
  CHECK_MESSAGE(submitter.waiting().find("Job violates accounting/QOS policy") != std::string::npos,
                submitter.waiting());
  CHECK(submitter.Take().empty());
  // A worker taken back is never submitted.
  CHECK(submitter.Withdraw(1));
  CHECK_FALSE(submitter.Withdraw(1));
  sbatch.Allow(5);
  std::vector<ArraySubmitter::Done> done;
  REQUIRE(fiber::testing::eventually([&] {
    for (auto& d : submitter.Take()) done.push_back(std::move(d));
    return !done.empty();
  }, 30));
  REQUIRE(done.size() == 1);
  CHECK(done[0].array.indexes == std::vector<long>{0});
  CHECK(submitter.waiting().empty());
}

TEST_CASE("another refusal is the array's answer, at once") {
  const fiber::testing::FakeCommand sbatch(
      "sbatch", fiber::testing::FakeCommand::Script{"echo 'sbatch: error: Batch job submission failed: Requested node "
                                                    "configuration is not available' >&2\nexit 1\n"});
  ArraySubmitter submitter{fiber::config::Settings{}, 1001};
  submitter.Add(Array(0, 2));
  std::vector<ArraySubmitter::Done> done;
  REQUIRE(fiber::testing::eventually([&] {
    done = submitter.Take();
    return !done.empty();
  }, 30));
  REQUIRE(done.size() == 1);
  CHECK(done[0].job_id.empty());
  CHECK_MESSAGE(done[0].error.find("Requested node configuration is not available") != std::string::npos, done[0].error);
  CHECK(done[0].array.indexes.size() == 2);
}
