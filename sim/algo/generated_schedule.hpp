// A schedule computed on demand instead of stored: a regular algorithm (the ring) knows
// each transfer and its dependents from the transfer's id, so a full replay needs no
// stored transfers and no reverse index (the schedule of a 4096-rank ring all-reduce
// would take ~1.2 GB). It is the same DAG as the algorithm's built Schedule, id for id:
// same transfers, same dependencies (a unit test compares them).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "sim/algo/collective.hpp"
#include "sim/algo/schedule.hpp"

namespace collsim {

class GeneratedSchedule {
 public:
  static constexpr std::size_t kMaxDependents = 4;
  struct Dependent {
    std::uint64_t id = 0;
    std::uint32_t indegree = 0;  // indegree(id), so that a replay need not ask
  };
  using Dependents = std::array<Dependent, kMaxDependents>;

  GeneratedSchedule(Collective collective, std::string algorithm)
      : collective_(collective), algorithm_(std::move(algorithm)) {}
  virtual ~GeneratedSchedule() = default;
  GeneratedSchedule(const GeneratedSchedule&) = delete;
  GeneratedSchedule& operator=(const GeneratedSchedule&) = delete;

  [[nodiscard]] const Collective& collective() const { return collective_; }
  [[nodiscard]] const std::string& algorithm() const { return algorithm_; }
  [[nodiscard]] int ranks() const { return collective_.ranks; }

  [[nodiscard]] virtual std::uint64_t size() const = 0;
  // Transfer `id`, and its route slot: transfers of one slot go between the same two
  // ranks, so a replay looks a slot's route up once (a dense table over the pairs the
  // schedule uses, where one over all pairs of 4096 ranks would take 128 MiB).
  [[nodiscard]] virtual Transfer transfer(std::uint64_t id, std::uint64_t& route_slot) const = 0;
  [[nodiscard]] Transfer transfer(std::uint64_t id) const {
    std::uint64_t slot = 0;
    return transfer(id, slot);
  }
  // How many route slots there are (all below this).
  [[nodiscard]] virtual std::uint64_t route_slots() const = 0;
  // How many transfers `id` depends on.
  [[nodiscard]] virtual std::uint32_t indegree(std::uint64_t id) const = 0;
  // The transfers that depend on `id`, in increasing id order (as a stored schedule's
  // reverse index lists them); returns how many of `out` it filled.
  virtual std::size_t dependents(std::uint64_t id, Dependents& out) const = 0;
  // The transfers that depend on nothing, in increasing id order.
  [[nodiscard]] virtual std::vector<std::uint64_t> roots() const = 0;

 private:
  Collective collective_;
  std::string algorithm_;
};

}  // namespace collsim
