// Environments kept alive in managers and stepped remotely, the loop of
// population-based RL: N CartPoles live in two manager processes (started
// by the run's backend, so on other machines with a cluster backend); each
// step the master sends every running environment its action at once, and
// the managers step theirs in parallel. The policy improves by random
// search: a perturbed policy is kept when its mean return is at least the
// best so far.
//   remote_env [iterations] [seed]
#include <fiber/fiber.hpp>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "cartpole.hpp"

FIBER_CLASS(CartPole, &CartPole::reset, &CartPole::step);

constexpr int kEnvs = 4;
using Policy = std::vector<double>;  // a weight per state variable

int act(const Policy& p, const CartPole::State& s) {
  return p[0] * s[0] + p[1] * s[1] + p[2] * s[2] + p[3] * s[3] > 0 ? 1 : 0;
}

// One episode on every environment, stepped in lockstep; the mean return.
double mean_return(std::vector<fiber::RemoteObject<CartPole>>& envs, const Policy& p) {
  std::vector<fiber::AsyncResult<CartPole::State>> resets;
  for (auto& env : envs) resets.push_back(env.call(&CartPole::reset));
  std::vector<CartPole::State> states;
  for (auto& r : resets) states.push_back(r.get());
  std::vector<bool> done(envs.size(), false);
  double total = 0;
  for (std::size_t running = envs.size(); running > 0;) {
    std::vector<std::pair<std::size_t, fiber::AsyncResult<std::tuple<CartPole::State, double, bool>>>> steps;
    for (std::size_t i = 0; i < envs.size(); ++i)
      if (!done[i]) steps.emplace_back(i, envs[i].call(&CartPole::step, act(p, states[i])));
    for (auto& [i, step] : steps) {
      double reward;
      bool over;
      std::tie(states[i], reward, over) = step.get();
      total += reward;
      if (over) {
        done[i] = true;
        --running;
      }
    }
  }
  return total / envs.size();
}

int main(int argc, char** argv) {
  fiber::init(argc, argv);
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 10;
  const std::uint64_t seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1;

  std::vector<fiber::Manager> managers(2);
  std::vector<fiber::RemoteObject<CartPole>> envs;
  for (int i = 0; i < kEnvs; ++i) envs.push_back(managers[i % 2].make<CartPole>(seed + i));

  std::mt19937_64 rng(seed);
  std::normal_distribution<double> gauss(0.0, 1.0);
  Policy best(4, 0.0);
  double best_return = mean_return(envs, best);
  std::printf("start         mean return %6.1f\n", best_return);
  for (int it = 1; it <= iterations; ++it) {
    Policy candidate = best;
    for (double& w : candidate) w += gauss(rng);
    const double r = mean_return(envs, candidate);
    if (r >= best_return) {
      best = candidate;
      best_return = r;
    }
    std::printf("iteration %2d  mean return %6.1f  best %6.1f\n", it, r, best_return);
    std::fflush(stdout);
  }
}
