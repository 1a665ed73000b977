// Central inference, SEED RL's shape: many actors step their environments
// (CartPoles) but own no policy evaluation; each sends its observation to
// the master and waits for the action. The master takes whatever
// observations are waiting with one Queue::get_many, computes the actions
// of the whole batch with one policy (a small MLP), and answers each actor
// on its own reply queue (a put on an unbounded queue does not wait for
// the master's answer; a Pipe's send does). Every actor checks each answer against its own
// copy of the policy and reports. Prints steps per second and the batch
// sizes the master got.
//   central_inference [actors] [steps per actor]
#include <fiber/fiber.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <vector>

#include "cartpole.hpp"

// A 4-16-2 MLP with fixed random weights: the same in every process.
class Policy {
 public:
  static constexpr int kHidden = 16;
  explicit Policy(std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> n(0.0, 1.0);
    for (auto& row : w1_)
      for (double& w : row) w = n(rng);
    for (auto& row : w2_)
      for (double& w : row) w = n(rng);
  }
  /// The action for each observation: one forward pass of the batch.
  std::vector<int> act(const std::vector<CartPole::State>& batch) const {
    std::vector<int> actions;
    for (const auto& s : batch) {
      double out[2] = {0, 0};
      for (int h = 0; h < kHidden; ++h) {
        double z = 0;
        for (int i = 0; i < 4; ++i) z += w1_[h][i] * s[i];
        for (int a = 0; a < 2; ++a) out[a] += w2_[a][h] * std::tanh(z);
      }
      actions.push_back(out[1] > out[0] ? 1 : 0);
    }
    return actions;
  }

 private:
  double w1_[kHidden][4];
  double w2_[2][kHidden];
};

constexpr std::uint64_t kPolicySeed = 7;

struct Observation {
  int actor, step;
  CartPole::State state;
  template <class A>
  void serialize(A& ar) { ar(actor, step, state); }
};
struct Action {
  int step, action;
  template <class A>
  void serialize(A& ar) { ar(step, action); }
};
struct Report {
  int actor, answered, in_order, right;
  template <class A>
  void serialize(A& ar) { ar(actor, answered, in_order, right); }
};

// One actor: steps its CartPole with the actions the master sends back.
void actor(int id, int steps, fiber::Queue<Observation> observations,
           fiber::Queue<Action> replies, fiber::Queue<Report> reports) {
  const Policy mine(kPolicySeed);  // only to check the master's answers
  CartPole env(id);
  CartPole::State state = env.reset();
  Report report{id, 0, 0, 0};
  for (int step = 0; step < steps; ++step) {
    observations.put({id, step, state});
    const Action reply = replies.get();
    ++report.answered;
    report.in_order += reply.step == step;
    report.right += reply.action == mine.act({state})[0];
    const auto [next, reward, done] = env.step(reply.action);
    state = done ? env.reset() : next;
  }
  reports.put(report);
}
FIBER_TASK(actor);

int main(int argc, char** argv) {
  fiber::init(argc, argv);
  const int actors = argc > 1 ? std::atoi(argv[1]) : 8;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 500;

  const Policy policy(kPolicySeed);
  fiber::Queue<Observation> observations;
  std::vector<fiber::Queue<Action>> replies(actors);  // one per actor
  fiber::Queue<Report> reports;
  std::vector<fiber::Process> running;
  for (int a = 0; a < actors; ++a)
    running.emplace_back(actor, a, steps, observations, replies[a], reports);
  for (auto& p : running) p.start();

  std::map<std::size_t, int> batch_sizes;  // size -> how many batches
  auto t0 = std::chrono::steady_clock::now();
  for (int served = 0; served < actors * steps;) {
    // Waits for one observation, takes up to one per actor.
    const std::vector<Observation> batch = observations.get_many(actors);
    if (served == 0) t0 = std::chrono::steady_clock::now();  // the actors have started
    std::vector<CartPole::State> states;
    for (const auto& o : batch) states.push_back(o.state);
    const std::vector<int> actions = policy.act(states);
    for (std::size_t i = 0; i < batch.size(); ++i)
      replies[batch[i].actor].put({batch[i].step, actions[i]});
    ++batch_sizes[batch.size()];
    served += static_cast<int>(batch.size());
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  for (int a = 0; a < actors; ++a) {
    const Report r = reports.get();
    std::printf("actor %d: %d steps, %d answered, %d in order, %d right\n", r.actor, steps,
                r.answered, r.in_order, r.right);
  }
  for (auto& p : running) p.join();

  int batches = 0;
  for (const auto& [size, count] : batch_sizes) {
    std::printf("batch size %2zu: %d times\n", size, count);
    batches += count;
  }
  std::printf("%d steps in %d batches: mean batch %.1f, largest %zu\n", actors * steps, batches,
              double(actors * steps) / batches, batch_sizes.rbegin()->first);
  std::printf("steps per second %.0f\n", actors * steps / seconds);
}
