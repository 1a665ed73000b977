#include "client/manager_links.hpp"

#include <poll.h>

#include <algorithm>

#include "fiber/errors.hpp"
#include "os/mutex.hpp"
#include "wire/limits.hpp"
#include "os/background_thread.hpp"

namespace fiber::client {

using wire::Reply;
using wire::Status;

ManagerLinks::ManagerLinks(std::string client_secret, std::chrono::milliseconds heartbeat_timeout,
                           ViaMaster via_master)
    : client_secret_(std::move(client_secret)),
      heartbeat_timeout_(heartbeat_timeout),
      via_master_(std::move(via_master)) {
  if (std::string err; !inbox_.Open(&err)) throw Error(err + " for the calls to managers");
}

ManagerLinks::~ManagerLinks() {
  inbox_.Close("this process's calls to managers have ended");
  inbox_.Wake();
  if (thread_.joinable()) thread_.join();
}

void ManagerLinks::Send(const std::string& endpoint, wire::Request request, OnReply on_reply) {
  std::call_once(started_, [this] {
    thread_ = StartBackgroundThread([this] { Run(); }, [this](const std::string& what) {
      Fail("an internal error on the connections to managers (" + what + ")");
    });
  });
  request.id = next_id_++;
  Key key(request.object, endpoint);
  bool wake = false, held = false;
  {
    os::MutexLock lock(mu_);
    if (ended_.count(request.object)) return via_master_(std::move(request), std::move(on_reply));
    Link& l = links_[key];
    // Nothing of this manager's waits in the thread: this call follows
    // every one made before it, at once when none is in flight, else with
    // the next batch (at the first answer, or once a caller waits: Flush).
    if (l.link && l.posted == 0) {
      if (l.link->state() == DirectLink::State::kClosed)
        return via_master_(std::move(request), std::move(on_reply));
      l.held.push_back({std::move(request), std::move(on_reply)});
      held = true;
      // With nothing in flight no answer can be waiting, whose signal the
      // send could take: the links' thread need hear only of a failure.
      bool sent = false;
      if (l.link->state() == DirectLink::State::kDirect && l.in_flight.empty()) wake = !SendBatches(l, &sent);
    } else {
      ++l.posted;
    }
  }
  if (wake) inbox_.Wake();
  if (held) return;
  std::string why;
  if (inbox_.Post({key, {std::move(request), on_reply}}, &why)) return;
  {
    os::MutexLock lock(mu_);
    --links_[key].posted;
  }
  on_reply(Reply{0, Status::kLost, why});
}

void ManagerLinks::Flush() {
  bool wake = false;
  {
    os::MutexLock lock(mu_);
    for (auto& [key, l] : links_)
      if (!l.held.empty() && l.link && l.link->state() == DirectLink::State::kDirect) wake |= !SendHere(l);
  }
  if (wake) inbox_.Wake();
}

// Sends the held calls from a caller's thread; false when the links'
// thread must look: a send failed (it closes the link) or took the signal
// of an answer.
bool ManagerLinks::SendHere(Link& l) {
  bool sent = false;
  return SendBatches(l, &sent) && !(sent && l.link->readable());
}

// Sends the held calls the link has room for, in order, as few messages as
// fit; false when one could not go.
bool ManagerLinks::SendBatches(Link& l, bool* sent) {
  std::vector<const wire::Request*> calls;
  while (!l.held.empty() && l.link->state() == DirectLink::State::kDirect &&
         l.in_flight.size() < wire::kMaxCallsInFlight) {
    calls.clear();
    std::size_t bytes = 0;
    for (auto it = l.held.begin(); it != l.held.end() && l.in_flight.size() + calls.size() < wire::kMaxCallsInFlight;
         ++it) {
      bytes += it->request.body.size();
      if (!calls.empty() && bytes > wire::kMaxFrameBytes) break;
      calls.push_back(&it->request);
    }
    if (!l.link->Send(calls, next_id_++)) return false;
    *sent = true;
    for (std::size_t i = 0; i < calls.size(); ++i, l.held.pop_front())
      l.in_flight.emplace(l.held.front().request.id, std::move(l.held.front().on_reply));
  }
  return true;
}

void ManagerLinks::Ended(std::uint64_t channel) {
  {
    os::MutexLock lock(mu_);
    ended_.insert(channel);
  }
  // Its thread closes its links: it alone polls their sockets.
  inbox_.Wake();
}

void ManagerLinks::Run() {
  // An answer may wait that no descriptor will signal: a send by this
  // thread took its signal.
  bool again = false;
  for (;;) {
    std::vector<pollfd> items = {{inbox_.fd(), POLLIN, 0}};
    std::vector<std::pair<std::uint64_t, Link*>> polled;  // by channel, beside their two items
    auto wait = std::chrono::milliseconds(again ? 0 : -1);
    {
      os::MutexLock lock(mu_);
      const auto now = DirectLink::Clock::now();
      for (auto& [key, l] : links_) {
        if (!l.link || l.link->state() == DirectLink::State::kClosed) continue;
        // The socket's descriptor, not the socket: callers send on it
        // meanwhile, under the lock.
        items.push_back({l.link->fd(), POLLIN, 0});
        items.push_back({l.link->events_fd(), POLLIN, 0});
        polled.emplace_back(key.first, &l);
        if (const auto deadline = l.link->deadline()) {
          const auto left = std::chrono::ceil<std::chrono::milliseconds>(*deadline - now);
          wait = std::max(std::chrono::milliseconds(0), wait.count() < 0 ? left : std::min(wait, left));
        }
      }
    }
    // poll(2) itself: zmq_poll of descriptors polls them once with no wait
    // before it waits. A signal ends it as a time up would.
    const int fired = ::poll(items.data(), items.size(), static_cast<int>(wait.count()));
    const bool woken = items[0].revents & POLLIN;
    std::vector<Posted> posted;
    if (woken) {
      posted = inbox_.Take();
      if (inbox_.closed()) return Fail("this process's calls to managers have ended");
    }
    Answers answers;
    {
      os::MutexLock lock(mu_);
      again = false;
      for (auto& p : posted) again |= Route(std::move(p), &answers);
      const auto now = DirectLink::Clock::now();
      // Each zmq call may cost a system call: only the links that fired,
      // unless a wake (a caller's, or Ended's), a time up or a send of
      // this thread's asks for all.
      const bool all = woken || fired <= 0 || wait.count() == 0;
      for (std::size_t i = 0; i < polled.size(); ++i) {
        const bool data = all || items[1 + 2 * i].revents, events = all || items[2 + 2 * i].revents;
        if (data || events) again |= Serve(polled[i].first, *polled[i].second, now, data, events, &answers);
      }
    }
    for (auto& [on_reply, reply] : answers) on_reply(std::move(reply));
  }
}

// A call the callers left to the thread: to its link, made on first use,
// or through the master once that link has closed. True when an answer
// may wait unsignalled.
bool ManagerLinks::Route(Posted p, Answers* answers) {
  Link& l = links_[p.key];
  --l.posted;
  if (ended_.count(p.key.first)) {
    via_master_(std::move(p.call.request), std::move(p.call.on_reply));
    return false;
  }
  bool made = false;
  if (!l.link) {
    l.link = std::make_unique<DirectLink>(context_, client_secret_, heartbeat_timeout_, p.key.second,
                                          static_cast<wire::Channel>(p.key.first), next_id_++,
                                          DirectLink::Clock::now());
    made = true;  // its descriptors may have signalled before they are polled
  }
  if (l.link->state() == DirectLink::State::kClosed) {
    via_master_(std::move(p.call.request), std::move(p.call.on_reply));
    return false;
  }
  l.held.push_back(std::move(p.call));
  return SendHeld(l, answers) || made;
}

// Takes a link's answers (data) and its connection's events (events);
// true as Route.
bool ManagerLinks::Serve(std::uint64_t channel, Link& l, DirectLink::Clock::time_point now, bool data,
                         bool events, Answers* answers) {
  if (!l.link || l.link->state() == DirectLink::State::kClosed) return false;
  Reply reply;
  while (data && l.link->Receive(&reply)) {
    auto it = l.in_flight.find(reply.id);
    if (it == l.in_flight.end()) continue;
    answers->emplace_back(std::move(it->second), std::move(reply));
    l.in_flight.erase(it);
  }
  if (ended_.count(channel)) l.link->Close("it has ended");
  if (events) l.link->Check(now);
  return SendHeld(l, answers);
}

// True when it sent (which may take the signal of an answer) and an
// answer waits.
bool ManagerLinks::SendHeld(Link& l, Answers* answers) {
  bool sent = false;
  if (!SendBatches(l, &sent)) l.link->Close("cannot send to it");
  if (l.link->state() == DirectLink::State::kClosed) {
    Fallback(l, answers);
    return false;
  }
  return sent && l.link->readable();
}

// The link closed: its calls in flight fail (the manager may have run
// them: they are lost with its connection), and those it held go through
// the master, in order.
void ManagerLinks::Fallback(Link& l, Answers* answers) {
  const std::string why = "lost the manager at " + l.link->endpoint() + ": " + l.link->why();
  for (auto& [id, on_reply] : l.in_flight)
    answers->emplace_back(std::move(on_reply), Reply{id, Status::kLost, why});
  l.in_flight.clear();
  for (; !l.held.empty(); l.held.pop_front())
    via_master_(std::move(l.held.front().request), std::move(l.held.front().on_reply));
}

// The thread has ended: every call waiting, and every later one, fails
// with why.
void ManagerLinks::Fail(const std::string& why) {
  inbox_.Close(why);
  std::vector<Posted> posted = inbox_.Take();
  Answers answers;
  {
    os::MutexLock lock(mu_);
    auto lost = [&](OnReply& on_reply, std::uint64_t id) {
      answers.emplace_back(std::move(on_reply), Reply{id, Status::kLost, why});
    };
    for (auto& p : posted) lost(p.call.on_reply, p.call.request.id);
    for (auto& [key, l] : links_) {
      for (auto& [id, on_reply] : l.in_flight) lost(on_reply, id);
      for (auto& c : l.held) lost(c.on_reply, c.request.id);
    }
    links_.clear();
  }
  for (auto& [on_reply, reply] : answers) on_reply(std::move(reply));
}

}  // namespace fiber::client
