// The schedule IR: a collective as a DAG of transfers {src, dst, bytes, chunk,
// reduce|copy, depends-on}. Pure data; it knows nothing about links. Dependencies are
// stored as one flat array (CSR) so schedules of millions of transfers stay compact.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include "sim/algo/collective.hpp"
#include "sim/core/units.hpp"

namespace collsim {

using TransferId = std::uint32_t;

// A schedule may take at most max_schedule_bytes() of memory: kDefaultMaxScheduleBytes, or
// $COLLSIM_MAX_SCHEDULE_BYTES. Direct and parameter-server schedules grow with the square
// of the ranks (65536 ranks: 8.6e9 transfers), so without a limit a rank count that the
// flags accept would run the machine out of memory after minutes.
inline constexpr std::uint64_t kDefaultMaxScheduleBytes = std::uint64_t{2} << 30;
[[nodiscard]] std::uint64_t max_schedule_bytes();
// A full replay whose flows contend across the whole collective (the tree's: each rank's
// flow to its parent shares its link with its flows to its children, which share theirs,
// so every completion solves rates over a whole tree) costs about transfers x ranks. It
// may take at most max_replay_work(): kDefaultMaxReplayWork, or $COLLSIM_MAX_REPLAY_WORK.
// The default is about a quarter of an hour on one core of a 2-core CI machine, where
// the 16,384-GPU fat tree's 1 GiB tree all-reduce (2.7e11) takes about 3 minutes.
inline constexpr std::uint64_t kDefaultMaxReplayWork = std::uint64_t{1} << 40;
[[nodiscard]] std::uint64_t max_replay_work();
// The default path replays such a tree while its work stays within tree_replay_budget()
// (kDefaultTreeReplayBudget, or $COLLSIM_TREE_REPLAY_BUDGET): a few seconds of replay on
// one core (the 1,024-GPU fat tree's 1 GiB tree is 1.1e9 and takes 0.3 s). Past it, the
// tree is timed from its steady state (sim/coll/tree_estimate.hpp); --exact still replays.
inline constexpr std::uint64_t kDefaultTreeReplayBudget = std::uint64_t{1} << 33;
[[nodiscard]] std::uint64_t tree_replay_budget();
// The memory a schedule of this many transfers and dependencies takes, at least.
[[nodiscard]] std::uint64_t schedule_bytes(std::uint64_t transfers, std::uint64_t deps);

enum class TransferKind : std::uint8_t {
  Reduce,  // dst combines the chunk it holds with the incoming one
  Copy,    // dst overwrites its chunk with the incoming one
  // Moves nothing and takes no time: finishes when all its dependencies have. It lets
  // many transfers wait for many others with a + b dependencies instead of a x b (the
  // symbolic executor looks through it: depending on a join = depending on its deps).
  Join,
};

// Which part of the src->dst route a transfer loads. In-network reduction (NVLS, SHARP)
// sends a contribution only up to the switch (ToSwitch: every link but the last), and the
// switch multicasts the result down (FromSwitch: the last link only). Span: the route's
// links [span_begin, span_end) only (CollNet's aggregation trees over a fabric, where a
// stream's links end where it merges into another's: sim/algo/collnet.hpp).
enum class TransferLeg : std::uint8_t { EndToEnd, ToSwitch, FromSwitch, Span };

struct Transfer {
  std::int32_t src = 0;
  std::int32_t dst = 0;
  Bytes bytes;
  std::int32_t chunk = 0;
  TransferKind kind = TransferKind::Copy;
  TransferLeg leg = TransferLeg::EndToEnd;
  // A later slice of a pipelined step: the protocol's per-step latency was paid by the
  // step's first slice (NCCL keeps NCCL_STEPS slots in flight, hiding it in steady state).
  bool pipelined = false;
  // Which channel (parallel ring/tree, one NCCL thread block) carries it: traces draw one
  // track per rank and channel. Algorithms without channels leave 0.
  std::uint8_t channel = 0;
  // TransferLeg::Span: the links of the route it loads, [span_begin, span_end).
  std::uint8_t span_begin = 0;
  std::uint8_t span_end = 0;
};

// What a chunk means, for verification: `origin` is the rank that holds it at the start
// (kEveryRank: every rank holds its own contribution, to be reduced); `destination` is
// the rank that must hold the finished chunk at the end (kEveryRank: all of them).
struct ChunkSpec {
  static constexpr std::int32_t kEveryRank = -1;
  Bytes bytes;
  std::int32_t origin = kEveryRank;
  std::int32_t destination = kEveryRank;
};

class Schedule {
 public:
  Schedule(Collective collective, std::string algorithm);

  // Declares a chunk; returns its id.
  std::int32_t add_chunk(ChunkSpec spec);
  // Adds a transfer depending on earlier transfers; returns its id.
  TransferId add(const Transfer& t, std::span<const TransferId> deps);
  TransferId add(const Transfer& t, std::initializer_list<TransferId> deps) {
    return add(t, std::span<const TransferId>(deps.begin(), deps.size()));
  }
  // Adds a Join that finishes when all of `deps` have (needs at least one chunk).
  TransferId add_join(std::span<const TransferId> deps);
  void reserve(std::size_t transfers, std::size_t deps);
  // Throws LimitError (sim/core/error.hpp), saying the memory needed, when a schedule of
  // `transfers` transfers and `deps` dependencies would pass max_schedule_bytes(): builders
  // that know their size call it before they queue anything. add() checks the same limit
  // as it goes, for those that do not.
  void expect(std::uint64_t transfers, std::uint64_t deps) const;

  [[nodiscard]] const Collective& collective() const { return collective_; }
  [[nodiscard]] const std::string& algorithm() const { return algorithm_; }
  [[nodiscard]] int ranks() const { return collective_.ranks; }
  [[nodiscard]] std::size_t size() const { return transfers_.size(); }
  [[nodiscard]] std::size_t dependency_count() const { return dep_list_.size(); }
  // A transfer by value: stored packed, with its bytes taken from its chunk.
  [[nodiscard]] Transfer transfer(TransferId id) const;
  // Every transfer, unpacked (a copy: for tests and reports, not hot loops).
  [[nodiscard]] std::vector<Transfer> transfers() const;
  [[nodiscard]] std::span<const TransferId> deps(TransferId id) const;
  // Asks the CPU to load transfer `id` (a replay about to start it), so that its cache
  // miss overlaps others.
  void prefetch(TransferId id) const { __builtin_prefetch(&transfers_[id]); }
  [[nodiscard]] const std::vector<ChunkSpec>& chunks() const { return chunks_; }

  // Bytes each rank sends (index = rank).
  [[nodiscard]] std::vector<Bytes> bytes_sent_per_rank() const;

 private:
  Collective collective_;
  std::string algorithm_;
  std::vector<ChunkSpec> chunks_;
  // 16 bytes a transfer instead of 24: a transfer always moves its whole chunk (the
  // verifier insists), so its bytes live in the chunk table. Big flat rings have tens of
  // millions of transfers.
  struct Packed {
    std::int32_t src;
    std::int32_t dst;
    std::int32_t chunk;
    std::uint8_t flags;    // kind (bits 0-1), leg (bits 2-3), pipelined (bit 4)
    std::uint8_t channel;
    std::uint8_t span_begin;  // with the two above, fills the padding: still 16 bytes
    std::uint8_t span_end;
  };
  static_assert(sizeof(Packed) == 16);
  static_assert(static_cast<unsigned>(TransferKind::Join) < 4 && static_cast<unsigned>(TransferLeg::Span) < 4);
  std::vector<Packed> transfers_;
  std::vector<std::uint64_t> dep_begin_;  // CSR offsets, size() + 1 entries
  std::vector<TransferId> dep_list_;
  std::uint64_t max_bytes_;

  [[noreturn]] void refuse(const std::string& need) const;
};

// A channel index as Transfer::channel stores it; throws std::invalid_argument past 255.
[[nodiscard]] std::uint8_t channel_tag(int channel);

// Splits `total` bytes into `parts` chunks that differ by at most one byte; the first
// total % parts chunks get the extra byte. Nothing is dropped.
[[nodiscard]] std::vector<Bytes> split_evenly(Bytes total, int parts);

}  // namespace collsim
