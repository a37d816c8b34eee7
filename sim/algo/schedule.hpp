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

enum class TransferKind : std::uint8_t {
  Reduce,  // dst combines the chunk it holds with the incoming one
  Copy,    // dst overwrites its chunk with the incoming one
};

struct Transfer {
  std::int32_t src = 0;
  std::int32_t dst = 0;
  Bytes bytes;
  std::int32_t chunk = 0;
  TransferKind kind = TransferKind::Copy;
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
  void reserve(std::size_t transfers, std::size_t deps);

  [[nodiscard]] const Collective& collective() const { return collective_; }
  [[nodiscard]] const std::string& algorithm() const { return algorithm_; }
  [[nodiscard]] int ranks() const { return collective_.ranks; }
  [[nodiscard]] std::size_t size() const { return transfers_.size(); }
  [[nodiscard]] const Transfer& transfer(TransferId id) const { return transfers_[id]; }
  [[nodiscard]] const std::vector<Transfer>& transfers() const { return transfers_; }
  [[nodiscard]] std::span<const TransferId> deps(TransferId id) const;
  [[nodiscard]] const std::vector<ChunkSpec>& chunks() const { return chunks_; }

  // Bytes each rank sends (index = rank).
  [[nodiscard]] std::vector<Bytes> bytes_sent_per_rank() const;

 private:
  Collective collective_;
  std::string algorithm_;
  std::vector<ChunkSpec> chunks_;
  std::vector<Transfer> transfers_;
  std::vector<std::uint64_t> dep_begin_;  // CSR offsets, size() + 1 entries
  std::vector<TransferId> dep_list_;
};

// Splits `total` bytes into `parts` chunks that differ by at most one byte; the first
// total % parts chunks get the extra byte. Nothing is dropped.
[[nodiscard]] std::vector<Bytes> split_evenly(Bytes total, int parts);

}  // namespace collsim
