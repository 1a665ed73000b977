// Evolution strategies (Salimans et al. 2017, "Evolution Strategies as a
// Scalable Alternative to Reinforcement Learning") on CartPole, with a
// linear policy. Each worker builds the same table of Gaussian noise once,
// from a seed, in the Pool initializer; a task is one noise index, and it
// sends back only that index and two returns (mirrored sampling: the
// policy plus and minus the noise). The master ranks the returns (centred
// ranks) and steps the policy along the noise weighted by them.
//   es [iterations] [seed]
#include <fiber/fiber.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <tuple>
#include <vector>

#include "cartpole.hpp"

constexpr int kParams = 5;  // 4 weights and a bias
constexpr int kPairs = 24;  // mirrored pairs per iteration
constexpr double kSigma = 0.1, kStep = 0.2;
using Policy = std::vector<double>;

std::vector<double> noise;  // the shared noise table, one per process

void build_noise(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> gauss(0.0, 1.0);
  noise.resize(100000);
  for (double& n : noise) n = gauss(rng);
}
FIBER_TASK(build_noise);

double episode(const Policy& p, std::uint64_t env_seed) {
  CartPole env(env_seed);
  auto s = env.reset();
  double total = 0;
  for (bool done = false; !done;) {
    const double push = p[0] * s[0] + p[1] * s[1] + p[2] * s[2] + p[3] * s[3] + p[4];
    double reward;
    std::tie(s, reward, done) = env.step(push > 0 ? 1 : 0);
    total += reward;
  }
  return total;
}

// Returns of the policy moved by +sigma and -sigma times the noise at index.
std::tuple<int, double, double> evaluate(Policy p, int index, std::uint64_t env_seed) {
  Policy plus = p, minus = p;
  for (int i = 0; i < kParams; ++i) {
    plus[i] += kSigma * noise[index + i];
    minus[i] -= kSigma * noise[index + i];
  }
  return {index, episode(plus, env_seed), episode(minus, env_seed)};
}
FIBER_TASK(evaluate);

// Ranks scaled to [-0.5, 0.5]: only the order of the returns counts.
std::vector<double> centred_ranks(const std::vector<double>& x) {
  std::vector<std::size_t> order(x.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](auto a, auto b) { return x[a] < x[b]; });
  std::vector<double> ranks(x.size());
  for (std::size_t r = 0; r < order.size(); ++r)
    ranks[order[r]] = static_cast<double>(r) / (x.size() - 1) - 0.5;
  return ranks;
}

int main(int argc, char** argv) {
  fiber::init(argc, argv);
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 20;
  const std::uint64_t seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1;
  build_noise(seed);  // the master needs the same table
  fiber::PoolOptions options;
  options.processes = 4;
  options.initializer = fiber::call(build_noise, seed);
  fiber::Pool pool(options);

  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> pick(0, static_cast<int>(noise.size()) - kParams);
  Policy policy(kParams, 0.0);
  for (int it = 1; it <= iterations; ++it) {
    std::vector<std::tuple<Policy, int, std::uint64_t>> jobs;
    const std::uint64_t env_seed = rng();
    for (int i = 0; i < kPairs; ++i) jobs.emplace_back(policy, pick(rng), env_seed);
    const auto results = pool.starmap(evaluate, jobs);

    std::vector<double> returns;
    for (const auto& [index, plus, minus] : results) {
      returns.push_back(plus);
      returns.push_back(minus);
    }
    const std::vector<double> ranks = centred_ranks(returns);
    Policy step(kParams, 0.0);
    for (int i = 0; i < kPairs; ++i) {
      const int index = std::get<0>(results[i]);
      for (int k = 0; k < kParams; ++k)
        step[k] += (ranks[2 * i] - ranks[2 * i + 1]) * noise[index + k];
    }
    for (int k = 0; k < kParams; ++k) policy[k] += kStep / (kPairs * kSigma) * step[k];
    const double mean = std::accumulate(returns.begin(), returns.end(), 0.0) / returns.size();
    std::printf("iteration %2d  mean reward %6.1f\n", it, mean);
    std::fflush(stdout);
  }
}
