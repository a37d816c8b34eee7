// What collsim knows about one algorithm, in one descriptor: its name and one-line
// description, the collectives it implements, the builders of its schedule and of its
// phased fast path, the NCCL algorithm it reproduces (NCCL's protocols and tuning tables
// then apply; sim/coll maps it to a table row) and what it needs of the ranks' hosts.
// Each algorithm's file (sim/algo/<name>.cpp) defines its own; sim/algo/registry.cpp
// lists them. No other code compares algorithm names: it asks the descriptor.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>

#include "sim/algo/algorithm_options.hpp"
#include "sim/algo/collective.hpp"
#include "sim/algo/generated_schedule.hpp"
#include "sim/algo/phased_schedule.hpp"
#include "sim/algo/schedule.hpp"

namespace collsim {

// NCCL's algorithm that a collsim algorithm reproduces.
enum class NcclAlgorithm : std::uint8_t {
  None,          // not NCCL's (ps, bintree, hier_ring, rhd, rd): a what-if
  Ring,          // NCCL's ring (channels follow its searched rings)
  Tree,          // NCCL's double binary tree
  Nvls,          // NVLink SHARP on an NVSwitch
  NvlsTree,      // NVLS inside hosts, trees across them (NVLSTree)
  CollNet,       // CollNet (Direct): SHARP on InfiniBand switches
  CollNetChain,  // CollNet Chain
  PointToPoint,  // NCCL's point-to-point sends (how it runs all-to-all)
  Pat,           // PAT: all-gather / reduce-scatter in log2 n dimensions, one GPU per node
};

// What an algorithm needs of the hosts its ranks sit on.
enum class HostRequirement : std::uint8_t {
  Any,
  SameRanksPerHost,  // ranks grouped by host, the same count on every host
};

// Builds the schedule; throws std::invalid_argument when the options do not fit.
using ScheduleBuilder = Schedule (*)(const Collective&, const AlgorithmOptions&);
// The step form of the schedule, or nullopt when these options have none.
using PhasedBuilder = std::optional<PhasedSchedule> (*)(const Collective&, const AlgorithmOptions&);
// The schedule computed on demand, or nullptr when these options have none.
using GeneratedBuilder = std::unique_ptr<GeneratedSchedule> (*)(const Collective&, const AlgorithmOptions&);

struct AlgorithmInfo {
  std::string_view name;         // what --algo, plan files and reports call it
  std::string_view description;  // one line, for --help
  std::span<const CollectiveOp> ops;
  ScheduleBuilder build = nullptr;
  PhasedBuilder phased = nullptr;  // null: always played transfer by transfer
  GeneratedBuilder generated = nullptr;  // null: the full replay plays the built schedule
  NcclAlgorithm nccl = NcclAlgorithm::None;
  HostRequirement hosts = HostRequirement::Any;

  [[nodiscard]] constexpr bool implements(CollectiveOp op) const {
    for (CollectiveOp o : ops) {
      if (o == op) return true;
    }
    return false;
  }
};

// The ops of the many algorithms that implement all-reduce only.
inline constexpr std::array<CollectiveOp, 1> kAllReduceOnly{CollectiveOp::AllReduce};

}  // namespace collsim
