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
  // Adds floats [from, to) of `incoming` into this rank's chunk in place (a Reduce whose
  // bytes are still arriving); the buffer is copied first if a pending send still shares it.
  void accumulate(int chunk, const std::byte* incoming, std::int64_t from, std::int64_t to);
  // Completes an in-place Reduce: floats from `from` on and the tail bytes.
  void finish_accumulate(int chunk, const std::byte* incoming, std::int64_t from);
  [[nodiscard]] std::int64_t floats(int chunk) const;

  // Elements (floats plus tail bytes) of the chunks this rank must hold at the end that
  // differ from the exact expected result; a chunk never received counts all its elements.
  [[nodiscard]] std::int64_t count_wrong() const;

 private:
  // This rank's chunk buffer, unshared (copied if a pending send holds it).
  std::byte* writable(int chunk);

  const Schedule& s_;
  int rank_;
  std::vector<Payload> buffers_;
};

}  // namespace collsim::exec
