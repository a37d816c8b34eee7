// A seeded random stream for Monte Carlo models (failures, stragglers): SplitMix64
// (Steele, Lea, Flood 2014), with its own exponential and normal draws, so the same seed
// gives the same numbers on every platform, unlike the standard library's distributions.
#pragma once

#include <cmath>
#include <cstdint>

namespace collsim {

class RandomStream {
 public:
  // Stream `run` of `seed`: seed and run go through the mixer apiece, so that nearby seeds
  // do not give shifted copies of one stream.
  RandomStream(std::uint64_t seed, std::uint64_t run) : state_(mix(seed + 0x632BE59BD9B4E019ULL) ^ mix(~run)) {}

  // Uniform in (0, 1).
  double uniform() { return (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53; }
  // Exponential with `rate` per unit (rate > 0).
  double exponential(double rate) { return -std::log(uniform()) / rate; }
  // Standard normal (Box-Muller; one of the pair).
  double normal() {
    const double r = std::sqrt(-2 * std::log(uniform()));
    return r * std::cos(6.283185307179586 * uniform());
  }

 private:
  static std::uint64_t mix(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  std::uint64_t next() { return mix(state_ += 0x9E3779B97F4A7C15ULL); }
  std::uint64_t state_;
};

}  // namespace collsim
