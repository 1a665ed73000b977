// CartPole, the classic control task (Barto, Sutton and Anderson 1983, as
// in OpenAI Gym): push a cart left or right to keep a pole upright. Reward
// 1 per step, up to 500 steps. Used by the es and remote_env examples.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <tuple>

class CartPole {
 public:
  using State = std::array<double, 4>;  // x, x', theta, theta'

  explicit CartPole(std::uint64_t seed = 0) : rng_(seed) {}

  State reset() {
    std::uniform_real_distribution<double> u(-0.05, 0.05);
    for (double& v : s_) v = u(rng_);
    steps_ = 0;
    return s_;
  }

  /// action 0 pushes left, 1 right; returns the state, the reward and
  /// whether the episode is over.
  std::tuple<State, double, bool> step(int action) {
    constexpr double g = 9.8, m_cart = 1.0, m_pole = 0.1, half_len = 0.5, force_mag = 10.0,
                     tau = 0.02;
    const double force = action == 1 ? force_mag : -force_mag;
    const auto [x, dx, th, dth] = s_;
    const double cos_t = std::cos(th), sin_t = std::sin(th), total = m_cart + m_pole;
    const double temp = (force + m_pole * half_len * dth * dth * sin_t) / total;
    const double ddth = (g * sin_t - cos_t * temp) /
                        (half_len * (4.0 / 3.0 - m_pole * cos_t * cos_t / total));
    const double ddx = temp - m_pole * half_len * ddth * cos_t / total;
    s_ = {x + tau * dx, dx + tau * ddx, th + tau * dth, dth + tau * ddth};
    ++steps_;
    const bool done = std::abs(s_[0]) > 2.4 || std::abs(s_[2]) > 12 * M_PI / 180 || steps_ >= 500;
    return {s_, 1.0, done};
  }

 private:
  std::mt19937_64 rng_;
  State s_{};
  int steps_ = 0;
};
