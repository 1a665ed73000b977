#include "master/dealing.hpp"

#include <algorithm>
#include <cstring>
#include <set>

#include "diagnostics/hop_trace.hpp"
#include "diagnostics/log.hpp"
#include "wire/codec.hpp"
#include "wire/limits.hpp"
#include "wire/task_batch.hpp"

namespace fiber::master {

using detail::Outcome;
using wire::Type;

namespace {

// The one place a worker's report of a call becomes what the caller sees.
Outcome ToOutcome(const wire::OutcomeView& view) {
  switch (view.kind) {
    case wire::OutcomeKind::kValue: return {Outcome::Kind::kValue, std::string(view.value), {}};
    case wire::OutcomeKind::kRaised:
      return {Outcome::Kind::kRemoteError, std::string(view.raised.message),
              std::string(view.raised.type)};
    case wire::OutcomeKind::kNotRegistered:
      return {Outcome::Kind::kNotRegistered, std::string(view.value), {}};
  }
  return {Outcome::Kind::kWorkerLost, "an outcome of unknown kind", {}};
}

// A task queued behind one running this long on a busy worker is taken back
// for an idle worker; well above a round trip, so the stealing costs little
// next to what it saves.
constexpr std::chrono::milliseconds kStealAfter{100};

// How many of map's items a call of the chunk form holds: its encoding
// starts with the length of its std::vector of argument tuples, a cereal
// size tag (detail::encode_chunks).
std::size_t ItemsOfChunk(const std::string& chunk) {
  std::uint64_t n = 0;
  if (chunk.size() < sizeof n) return 1;
  std::memcpy(&n, chunk.data(), sizeof n);
  return static_cast<std::size_t>(n);
}

}  // namespace

Dealing::Dealing(const PoolServiceOptions& options, const PoolPhase& phase, Outbox& outbox,
                 PoolStats& stats)
    : options_(options),
      phase_(phase),
      outbox_(outbox),
      stats_(stats),
      tasks_(options.max_task_retries) {}

void Dealing::Submit(std::string function, std::vector<std::string> calls, std::size_t chunksize,
                     std::shared_ptr<detail::Batch> batch, wire::TaskForm form) {
  std::size_t item = 0;  // of the caller's items, for reports of what a worker ran
  for (std::size_t first = 0; first < calls.size(); first += chunksize) {
    Task task;
    task.function = function;
    task.form = form;
    task.batch = batch;
    task.first = first;
    const std::size_t end = std::min(calls.size(), first + chunksize);
    task.first_item = item;
    for (std::size_t i = first; i < end; ++i)
      task.items += form == wire::TaskForm::kChunk ? ItemsOfChunk(calls[i]) : 1;
    item += task.items;
    stats_.Submitted(1, task.items);
    task.calls.assign(std::make_move_iterator(calls.begin() + static_cast<std::ptrdiff_t>(first)),
                      std::make_move_iterator(calls.begin() + static_cast<std::ptrdiff_t>(end)));
    tasks_.Add(std::move(task));
  }
}

std::vector<std::string> Dealing::Deal(WorkerSet& workers, Clock::time_point now) {
  if (!tasks_.HasPending()) return {};
  const auto free = workers.WithFreeCredit(tasks_);
  // Deal pending tasks one per worker per pass, so a round of tasks spreads
  // over idle workers before any queues behind a busy one; each worker then
  // gets its share in one message of at most about kMaxTaskMessageBytes (big
  // arguments wait for results to come back rather than pile up at once).
  std::vector<std::optional<wire::Writer>> messages(free.size());
  // Those over their budget wait for the program to take their results.
  std::vector<bool> held_back(free.size(), false);
  bool any_held_back = false;
  for (std::size_t i = 0; i < free.size() && options_.budget; ++i)
    if (OverBudget(*free[i].first)) held_back[i] = any_held_back = true;
  if (any_held_back && !AnyWithinBudget(workers)) held_back.assign(free.size(), false);
  bool dealt = true;
  while (tasks_.HasPending() && dealt) {
    dealt = false;
    for (std::size_t i = 0; i < free.size() && tasks_.HasPending(); ++i) {
      const auto& [id, w] = free[i];
      if (held_back[i] || !HasRoom(*id, *w)) continue;
      if (messages[i] && messages[i]->size() >= wire::kMaxTaskMessageBytes) continue;
      if (tasks_.Leases(*id) == 0) w->busy_since = now;
      ++w->dealt;
      const std::uint64_t task_id = tasks_.LeaseNext(*id, now);
      const Task& task = *tasks_.Find(task_id);
      if (!messages[i]) messages[i].emplace(Type::kTask, options_.channel);
      wire::AppendTask(*messages[i], task_id, task.function, task.form, task.calls);
      dealt = true;
    }
  }
  std::vector<std::string> unreachable;
  for (std::size_t i = 0; i < free.size(); ++i) {
    if (!messages[i]) continue;
    FIBER_HOP("io-send");
    if (outbox_.Send(*free[i].first, messages[i]->Finish())) {
      free[i].second->last_sent = now;
    } else {
      unreachable.push_back(*free[i].first);
    }
  }
  return unreachable;
}

bool Dealing::HasRoom(const std::string& id, const Worker& w) const {
  if (tasks_.Leases(id) >= static_cast<std::size_t>(w.credit)) return false;
  return !options_.max_tasks_per_child || w.dealt < *options_.max_tasks_per_child;
}

Dealing::Answer Dealing::OnResult(WorkerSet& workers, const std::string& id,
                                  const zmq::message_t& message, Clock::time_point now) {
  FIBER_HOP("io-got-result");
  Worker& worker = *workers.Find(id);
  // A task it was asked to skip (Steal) is answered with no outcome when it
  // skipped it, and goes to another worker then; or with outcomes, which
  // count, when it had started it.
  std::set<std::uint64_t> kept;
  const std::size_t answerable = tasks_.Leases(id) + worker.revoked.size();
  std::size_t answered = 0;
  const auto check = [&](std::uint64_t task, std::uint32_t outcomes, std::string* why) {
    if (++answered > answerable) {
      *why = "results for more tasks than the " + std::to_string(answerable) + " it was given";
      return wire::ResultUse::kRefuse;
    }
    const std::optional<std::size_t> calls = tasks_.CallsHeldBy(task, id);
    if (worker.revoked.count(task) != 0 && (outcomes == 0 || !calls)) return wire::ResultUse::kSkip;
    if (!calls || !kept.insert(task).second) {
      *why = "a result for task " + std::to_string(task) + ", which it does not hold";
      return wire::ResultUse::kRefuse;
    }
    if (outcomes != *calls) {
      *why = "a result for task " + std::to_string(task) + " with " + std::to_string(outcomes) +
             " outcomes for " + std::to_string(*calls) + " calls";
      return wire::ResultUse::kRefuse;
    }
    return wire::ResultUse::kKeep;
  };
  std::uint32_t credit = 0;
  std::vector<wire::ResultView> results;
  std::string err;
  if (!wire::ReadResults(message, &credit, &results, &err, check)) return {"it sent " + err, false};
  workers.SetCredit(worker, static_cast<int>(credit));
  // A task runs from when it was dealt, or from the result before it,
  // whichever came later: as far as the master can tell.
  Clock::time_point since = worker.busy_since;
  for (const auto& result : results) {
    const auto revoke = worker.revoked.find(result.id);
    const bool revoked = revoke != worker.revoked.end();
    if (revoked) worker.revoked.erase(revoke);
    if (result.outcomes.empty() || kept.count(result.id) == 0) {
      if (revoked && tasks_.TakeBack(id, result.id)) --worker.dealt;  // skipped, as asked
      continue;
    }
    std::vector<Outcome> outcomes;
    outcomes.reserve(result.outcomes.size());
    PeerBudget::Usage cost;
    for (const auto& view : result.outcomes) {
      outcomes.push_back(ToOutcome(view));
      cost.bytes += outcomes.back().data.size() + outcomes.back().error_type.size() + wire::kHeldOverheadBytes;
    }
    const auto finished = tasks_.Finish(result.id, id, std::move(outcomes));  // held: checked
    FIBER_HOP("io-completed");
    Charge(id, finished->batch, cost);
    stats_.Finished(now, now - std::max(finished->leased_at, since), finished->items, finished->done);
    since = now;
    ++worker.tasks_done;
  }
  const bool idle = tasks_.Leases(id) == 0;
  if (idle) {
    worker.idle_since = now;
  } else {
    worker.busy_since = now;  // the next task it holds has begun
  }
  return {std::nullopt, idle};
}

void Dealing::Charge(const std::string& id, const std::shared_ptr<detail::Batch>& batch,
                     PeerBudget::Usage cost) {
  if (!options_.budget) return;
  HeldResults& held = held_results_[{batch.get(), id}];
  if (held.batch.expired()) held = {batch, {}};  // new, or a dropped batch's address reused
  options_.budget->Charge(id, cost, &held.hold);
}

bool Dealing::ReleaseTaken() {
  const std::size_t before = held_results_.size();
  std::erase_if(held_results_, [](const auto& entry) { return entry.second.batch.expired(); });
  return held_results_.size() != before;
}

bool Dealing::OverBudget(const std::string& id) const {
  return options_.budget && options_.budget->BytesLeft(id) == 0;
}

bool Dealing::AnyWithinBudget(const WorkerSet& workers) const {
  for (const auto& [id, w] : workers.all())
    if (w.state == WorkerState::kReady && w.connected && !w.closed_at && !OverBudget(id)) return true;
  return false;
}

std::vector<std::pair<std::string, backend::EndCause>> Dealing::TimeOut(const WorkerSet& workers,
                                                                         Clock::time_point now) {
  if (!options_.task_timeout || !phase_.running()) return {};
  std::vector<std::pair<std::string, backend::EndCause>> late;
  for (const auto& [id, w] : workers.all()) {
    if (!w.connected || tasks_.Leases(id) == 0 || now - w.busy_since <= *options_.task_timeout) continue;
    const std::uint64_t task = tasks_.Oldest(id);
    const std::string what = "task " + tasks_.Describe(task) + " ran longer than its pool's " +
                             "task_timeout of " + log::Seconds(*options_.task_timeout);
    const Outcome timeout{Outcome::Kind::kTimeout, what + " on worker " + id + ", which was killed", {}};
    (void)tasks_.Finish(task, id, std::vector<Outcome>(*tasks_.CallsHeldBy(task, id), timeout));
    tasks_.GiveBack(id);  // those queued behind it did not run: no loss
    late.emplace_back(id, backend::Because(backend::end_word::kTaskTimeout, "killed, its " + what));
  }
  return late;
}

std::vector<std::string> Dealing::Steal(WorkerSet& workers, Clock::time_point now) {
  if (tasks_.HasPending() || !phase_.running()) return {};
  std::size_t thieves = 0, asked = 0;
  const bool pressing = options_.budget && AnyWithinBudget(workers);  // as Deal would
  // Busy workers holding two or more tasks they were not asked to skip, by
  // how many.
  std::vector<std::pair<std::size_t, const std::string*>> victims;
  for (const auto& [id, w] : workers.all()) {
    const std::size_t held = tasks_.Leases(id);
    asked += w.revoked.size();
    if (held == 0 && w.state == WorkerState::kReady && !w.closed_at && HasRoom(id, w) &&
        !(pressing && OverBudget(id)))
      ++thieves;
    const std::size_t left = held - std::min(held, w.revoked.size());
    if (left > 1 && w.connected && !w.closed_at && now - w.busy_since >= kStealAfter)
      victims.emplace_back(left, &id);
  }
  // Tasks asked for already go to idle workers once skipped.
  thieves -= std::min(thieves, asked);
  const auto fewer = [](const auto& a, const auto& b) { return a.first < b.first; };
  std::make_heap(victims.begin(), victims.end(), fewer);
  std::map<std::string, wire::Revoke> revokes;
  // One task for each worker holding none, from the busy one holding most:
  // the last it was dealt and was not asked to skip.
  for (; thieves > 0 && !victims.empty(); --thieves) {
    std::pop_heap(victims.begin(), victims.end(), fewer);
    auto& [left, victim] = victims.back();
    Worker& w = *workers.Find(*victim);
    const std::vector<std::uint64_t>& held = tasks_.LeasesOf(*victim);
    const auto task = std::find_if(held.rbegin(), held.rend(),
                                   [&w](std::uint64_t id) { return w.revoked.count(id) == 0; });
    w.revoked.insert(*task);
    revokes[*victim].ids.push_back(*task);
    if (--left > 1) {
      std::push_heap(victims.begin(), victims.end(), fewer);
    } else {
      victims.pop_back();
    }
  }
  std::vector<std::string> unreachable;
  for (auto& [victim, revoke] : revokes) {
    if (outbox_.Send(victim, wire::Encode(revoke, options_.channel))) {
      workers.Find(victim)->last_sent = now;
    } else {
      unreachable.push_back(victim);
    }
  }
  return unreachable;
}

void Dealing::Lose(const std::string& id, const std::string& why) {
  stats_.Retried(tasks_.Lose(id, why));
}

}  // namespace fiber::master
