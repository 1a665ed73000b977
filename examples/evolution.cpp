// Evolution strategies (OpenAI-ES style) on a pool: each generation, workers
// score perturbed copies of the parameters; only seeds and scores travel,
// since a worker rebuilds a perturbation from its seed.
#include <fiber/fiber.hpp>

#include <cmath>
#include <cstdio>
#include <random>
#include <tuple>
#include <vector>

constexpr int kDims = 20;
constexpr double kSigma = 0.1;

// The task: fitness of params + sigma * noise(seed); higher is better.
double evaluate(std::vector<double> params, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0.0, 1.0);
  double loss = 0;  // Rastrigin-like: many local minima around a bowl
  for (double p : params) {
    const double x = p + kSigma * noise(rng) - 0.5;
    loss += x * x - 0.1 * std::cos(2 * M_PI * x) + 0.1;
  }
  return -loss;
}
FIBER_TASK(evaluate);

int main(int argc, char** argv) {
  fiber::init(argc, argv);
  fiber::Pool pool(4);
  std::vector<double> params(kDims, 0.0);
  std::mt19937_64 seeds(7);
  const int population = 64;
  for (int generation = 0; generation < 30; ++generation) {
    std::vector<std::tuple<std::vector<double>, std::uint64_t>> jobs;
    for (int i = 0; i < population; ++i) jobs.emplace_back(params, seeds());
    const std::vector<double> scores = pool.starmap(evaluate, jobs);

    double mean = 0;
    for (double s : scores) mean += s / population;
    std::vector<double> step(kDims, 0.0);
    for (int i = 0; i < population; ++i) {
      std::mt19937_64 rng(std::get<1>(jobs[i]));
      std::normal_distribution<double> noise(0.0, 1.0);
      for (double& g : step) g += (scores[i] - mean) * noise(rng);
    }
    for (int d = 0; d < kDims; ++d) params[d] += 0.05 / (population * kSigma) * step[d];
    if (generation % 5 == 4) std::printf("generation %2d  mean fitness %.4f\n", generation + 1, mean);
  }
}
