#include "backend/slurm/array_submitter.hpp"

#include <algorithm>
#include <chrono>
#include <utility>

#include "backend/slurm/slurm_command.hpp"
#include "os/background_thread.hpp"
#include "os/mutex.hpp"

namespace fiber::backend {

namespace {

// Between two sbatch calls, but for the parts of a refused array: those
// who come meanwhile (workers started as others connect) go in one.
constexpr std::chrono::seconds kSubmitPace{1};

// The first wait for room after a refusal, and the longest.
constexpr std::chrono::seconds kFirstPause{2};
constexpr std::chrono::seconds kLongestPause{30};

// Whether b's workers may join a's array: the same script and options
// but for which workers, their numbers a stride apart and all within
// max_array_size indexes.
bool Joinable(const config::Settings& settings, const WorkerArray& a, const WorkerArray& b, long max_array_size) {
  if (a.stride != b.stride || (a.first - b.first) % a.stride != 0) return false;
  WorkerArray as_a = b;
  as_a.first = a.first;
  as_a.indexes = a.indexes;
  const long lowest = std::min(a.first, b.first);
  const long highest = std::max(a.NumberAt(a.indexes.back()), b.NumberAt(b.indexes.back()));
  return (highest - lowest) / a.stride < max_array_size && WorkerScript(as_a) == WorkerScript(a) &&
         SbatchArguments(settings, as_a) == SbatchArguments(settings, a);
}

// a with b's workers too.
void Join(WorkerArray* a, const WorkerArray& b) {
  std::vector<long> numbers;
  for (long i : a->indexes) numbers.push_back(a->NumberAt(i));
  for (long i : b.indexes) numbers.push_back(b.NumberAt(i));
  a->SetNumbers(std::move(numbers));
}

}  // namespace

ArraySubmitter::ArraySubmitter(config::Settings settings, long max_array_size)
    : settings_(std::move(settings)),
      max_array_size_(max_array_size),
      pause_(kFirstPause),
      requests_(1, kSubmitPace, "submitting the run's worker arrays") {}

void ArraySubmitter::Stop() { requests_.Stop(); }

void ArraySubmitter::Add(WorkerArray array) {
  os::MutexLock lock(mu_);
  queue_.push_back(std::move(array));
  if (!busy_) PostNext(RequestQueue::When{});  // else the submission under way posts the next, at its time
}

void ArraySubmitter::PostNext(RequestQueue::When when) {
  if (posted_) return;
  posted_ = true;
  requests_.Post("arrays", [this] {
    try {
      SubmitNext();
    } catch (...) {
      ReportEscaped([this](const std::string& what) { FailAll("an internal error submitting jobs (" + what + ")"); });
    }
  }, when);
}

void ArraySubmitter::FailAll(const std::string& why) {
  os::MutexLock lock(mu_);
  for (WorkerArray& array : queue_) done_.push_back({std::move(array), "", why});
  queue_.clear();
  busy_ = false;
}

bool ArraySubmitter::Withdraw(long n) {
  os::MutexLock lock(mu_);
  for (auto array = queue_.begin(); array != queue_.end(); ++array) {
    const auto at = std::find_if(array->indexes.begin(), array->indexes.end(),
                                 [&](long i) { return array->NumberAt(i) == n; });
    if (at == array->indexes.end()) continue;
    array->indexes.erase(at);
    if (array->indexes.empty()) queue_.erase(array);
    return true;
  }
  return false;
}

std::vector<ArraySubmitter::Done> ArraySubmitter::Take() {
  os::MutexLock lock(mu_);
  return std::exchange(done_, {});
}

std::string ArraySubmitter::waiting() const {
  os::MutexLock lock(mu_);
  return queue_.empty() && !busy_ ? "" : waiting_;
}

void ArraySubmitter::SubmitNext() {
  os::MutexLock lock(mu_);
  posted_ = false;
  if (queue_.empty()) return;  // withdrawn meanwhile
  WorkerArray array = std::move(queue_.front());
  queue_.pop_front();
  // Workers started one by one as others connect go in one sbatch; not
  // the parts of a refused array, until the queue is through.
  if (queue_.empty()) limited_ = false;
  while (!limited_ && !queue_.empty() && Joinable(settings_, array, queue_.front(), max_array_size_)) {
    Join(&array, queue_.front());
    queue_.pop_front();
  }
  busy_ = true;
  lock.Unlock();
  std::string job_id, err;
  const bool submitted = SubmitWorkers(settings_, array, &job_id, &err);
  lock.Lock();
  busy_ = false;
  RequestQueue::When next;  // paced
  if (submitted) {
    done_.push_back({std::move(array), job_id, ""});
    waiting_.clear();
    pause_ = kFirstPause;
  } else if (!SubmitLimitError(err)) {
    done_.push_back({std::move(array), "", err});
  } else if (array.indexes.size() > 1) {
    // Room for fewer, perhaps: the first half first, at once.
    limited_ = true;
    WorkerArray rest = array;
    const auto half = static_cast<std::ptrdiff_t>(array.indexes.size() / 2);
    array.indexes.erase(array.indexes.begin() + half, array.indexes.end());
    rest.indexes.erase(rest.indexes.begin(), rest.indexes.begin() + half);
    queue_.push_front(std::move(rest));
    queue_.push_front(std::move(array));
    next = {false, {}};
  } else {
    limited_ = true;
    waiting_ = err;
    queue_.push_front(std::move(array));
    next = {false, RequestQueue::Clock::now() + pause_};
    pause_ = std::min(pause_ * 2, kLongestPause);
  }
  // Unpaced but for room: the parts of a refused array go on at once.
  if (limited_ && next.paced) next = {false, {}};
  if (!queue_.empty()) PostNext(next);
}

}  // namespace fiber::backend
