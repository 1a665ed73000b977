// Estimates pi by Monte Carlo on a pool of worker processes: each task
// throws darts with its own seed and counts the hits inside the circle.
#include <fiber/fiber.hpp>

#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

std::uint64_t count_hits(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::uint64_t hits = 0;
  for (int i = 0; i < 1'000'000; ++i) {
    const double x = unit(rng), y = unit(rng);
    hits += x * x + y * y <= 1.0;
  }
  return hits;
}
FIBER_TASK(count_hits);

int main(int argc, char** argv) {
  fiber::init(argc, argv);  // in a worker, serves tasks and never returns

  fiber::Pool pool(4);
  std::vector<std::uint64_t> seeds;
  for (std::uint64_t s = 1; s <= 40; ++s) seeds.push_back(s);

  std::uint64_t hits = 0;
  for (std::uint64_t h : pool.map(count_hits, seeds)) hits += h;
  const double pi = 4.0 * static_cast<double>(hits) / (seeds.size() * 1e6);
  std::printf("pi is about %.5f (%zu tasks on %d workers)\n", pi, seeds.size(), pool.size());
}
