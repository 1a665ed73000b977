// IMPALA's shape (Espeholt et al. 2018): actors in Processes play CartPole
// with the newest policy they have and send whole trajectories through one
// bounded Queue; the learner takes them in batches with get_many, improves
// the policy (REINFORCE on a linear policy; IMPALA's V-trace correction for
// actors a version behind is left out) and broadcasts it with fiber::share:
// each actor gets the handle through a queue of its own, and the weights
// themselves are loaded once per process, however many actors read them.
// It prints frames per second and the mean return as it learns.
//   impala [updates] [seed]
#include <fiber/fiber.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <tuple>
#include <vector>

#include "cartpole.hpp"

constexpr int kActors = 4, kBatch = 8;  // episodes per update
constexpr double kLearningRate = 10, kMaxStep = 0.5, kDiscount = 0.99;

struct Policy {
  int version = 0;
  std::vector<double> w = std::vector<double>(5, 0.0);  // 4 weights and a bias
  template <class Archive>
  void serialize(Archive& ar) {
    ar(version, w);
  }
};

struct Trajectory {
  int version = 0;  // of the policy that played it
  std::vector<CartPole::State> states;
  std::vector<int> actions;
  template <class Archive>
  void serialize(Archive& ar) {
    ar(version, states, actions);
  }
};

// The policy's probability of pushing right.
double p_right(const Policy& p, const CartPole::State& s) {
  const double z = p.w[0] * s[0] + p.w[1] * s[1] + p.w[2] * s[2] + p.w[3] * s[3] + p.w[4];
  return 1 / (1 + std::exp(-std::clamp(z, -30.0, 30.0)));
}

Trajectory play(CartPole& env, const Policy& p, std::mt19937_64& rng) {
  Trajectory t{p.version, {}, {}};
  std::uniform_real_distribution<double> u(0, 1);
  auto s = env.reset();
  for (bool done = false; !done;) {
    const int action = u(rng) < p_right(p, s) ? 1 : 0;
    t.states.push_back(s);
    t.actions.push_back(action);
    double reward;
    std::tie(s, reward, done) = env.step(action);
  }
  return t;
}

// An actor: plays episode after episode until the learner closes the queue.
void actor(std::uint64_t seed, fiber::Queue<Trajectory> trajectories,
           fiber::Queue<fiber::Shared<Policy>> weights) {
  CartPole env(seed);
  std::mt19937_64 rng(seed);
  fiber::Shared<Policy> policy = weights.get();
  try {
    for (;;) {
      if (!weights.empty()) policy = weights.get_many(64).back();  // the newest
      trajectories.put(play(env, policy.get(), rng));  // waits while the queue is full
    }
  } catch (const fiber::Closed&) {
  }
}
FIBER_TASK(actor);

// REINFORCE: makes each action more likely in proportion to how much better
// than the batch's average the discounted return after it was.
void learn(Policy& p, const std::vector<Trajectory>& batch) {
  std::vector<double> returns;
  for (const Trajectory& t : batch) {
    std::vector<double> g(t.actions.size());
    double after = 0;
    for (std::size_t i = g.size(); i-- > 0;) g[i] = after = 1 + kDiscount * after;
    returns.insert(returns.end(), g.begin(), g.end());
  }
  double mean = 0, var = 0;
  for (double g : returns) mean += g / returns.size();
  for (double g : returns) var += (g - mean) * (g - mean) / returns.size();
  std::vector<double> grad(5, 0.0);
  std::size_t k = 0;
  for (const Trajectory& t : batch)
    for (std::size_t i = 0; i < t.actions.size(); ++i, ++k) {
      const auto& s = t.states[i];
      const double advantage = (returns[k] - mean) / (std::sqrt(var) + 1e-8);
      const double dlogp = t.actions[i] - p_right(p, s);
      for (int j = 0; j < 4; ++j) grad[j] += advantage * dlogp * s[j];
      grad[4] += advantage * dlogp;
    }
  // A step at most kMaxStep long: one odd batch cannot wreck the policy.
  double norm = 0;
  for (double& g : grad) {
    g *= kLearningRate / returns.size();
    norm += g * g;
  }
  const double scale = std::min(1.0, kMaxStep / (std::sqrt(norm) + 1e-12));
  for (int j = 0; j < 5; ++j) p.w[j] += scale * grad[j];
  ++p.version;
}

int main(int argc, char** argv) {
  fiber::init(argc, argv);
  const int updates = argc > 1 ? std::atoi(argv[1]) : 100;
  const std::uint64_t seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1;

  fiber::Queue<Trajectory> trajectories(2 * kBatch);  // actors wait while the learner is behind
  std::vector<fiber::Queue<fiber::Shared<Policy>>> weights(kActors);
  Policy policy;
  fiber::Shared<Policy> shared = fiber::share(policy);
  for (auto& w : weights) w.put(shared);
  std::vector<fiber::Process> actors;
  for (int i = 0; i < kActors; ++i) actors.emplace_back(actor, seed * 100 + i, trajectories, weights[i]);
  for (auto& a : actors) a.start();

  const auto start = std::chrono::steady_clock::now();
  long frames = 0;
  for (int update = 1; update <= updates; ++update) {
    std::vector<Trajectory> batch;
    while (batch.size() < kBatch)
      for (Trajectory& t : trajectories.get_many(kBatch - batch.size())) batch.push_back(std::move(t));
    double steps = 0, lag = 0;
    for (const Trajectory& t : batch) {
      steps += t.actions.size();
      lag += policy.version - t.version;
    }
    frames += static_cast<long>(steps);
    learn(policy, batch);
    shared = fiber::share(policy);  // a new version is a new share
    for (auto& w : weights) w.put(shared);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("update %3d  mean return %6.1f  policy lag %.1f  frames/s %.0f\n", update,
                steps / kBatch, lag / kBatch, frames / seconds);
  }
  trajectories.close();  // each actor's next put throws Closed: it ends
  for (auto& a : actors) a.join();
  return 0;
}
