// The real data one rank holds while it executes a Schedule: one buffer per chunk
// (float32 elements; a chunk whose byte count is not a multiple of 4 ends in 1-3 tail
// bytes that are summed as uint8 modulo 256). Every contribution is a small integer, so
// float sums are exact in any order and the final result can be checked element by element.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/algo/schedule.hpp"
#include "sim/exec/connections.hpp"

namespace collsim::exec {

// Rank `rank`'s contribution to chunk `chunk`, element `i`: an integer in 0..60.
[[nodiscard]] float contribution(int rank, int chunk, std::int64_t i);
// Tail byte `j` (0..2) of rank `rank`'s contribution to `chunk`.
[[nodiscard]] std::uint8_t tail_contribution(int rank, int chunk, int j);

class ChunkData {
 public:
  ChunkData(const Schedule& s, int rank);

  // Fills every chunk this rank starts with (origin = every rank or this rank) with its
  // contribution; forgets every other chunk.
  void reset();
  // The chunk's current bytes, shared (a snapshot: later writes replace the buffer).
  [[nodiscard]] Payload snapshot(int chunk) const;
  // Applies an incoming transfer: Copy takes the buffer over, Reduce adds this rank's
  // current values into it and keeps it. Throws InternalError when a Reduce meets a chunk
  // this rank does not hold.
  void apply(int chunk, TransferKind kind, Payload incoming);
  // Elements (floats plus tail bytes) of the chunks this rank must hold at the end that
  // differ from the exact expected result; a chunk never received counts all its elements.
  [[nodiscard]] std::int64_t count_wrong() const;

 private:
  const Schedule& s_;
  int rank_;
  std::vector<Payload> buffers_;
};

}  // namespace collsim::exec
