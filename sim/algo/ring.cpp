#include "sim/algo/ring.hpp"

#include <numeric>
#include <vector>

#include "sim/core/error.hpp"

namespace collsim {

Schedule ring_allreduce(const Collective& c, std::span<const int> order) {
  Schedule s(c, "ring");
  const int n = c.ranks;
  std::vector<int> ring(order.begin(), order.end());
  if (ring.empty()) {
    ring.resize(static_cast<std::size_t>(n));
    std::iota(ring.begin(), ring.end(), 0);
  }
  if (static_cast<int>(ring.size()) != n) throw InternalError("ring order does not list every rank");
  for (Bytes b : split_evenly(c.size, n)) s.add_chunk(ChunkSpec{b});
  if (n == 1) return s;
  const int steps = 2 * (n - 1);
  s.reserve(static_cast<std::size_t>(steps) * static_cast<std::size_t>(n),
            static_cast<std::size_t>(steps) * static_cast<std::size_t>(n) * 2);
  // Transfer (step k, ring position p) has id k*n + p. Position p sends to p+1:
  //   reduce-scatter step k < n-1 : chunk (p - k) mod n, reduced into the receiver;
  //   all-gather step k >= n-1    : chunk (p + 1 - (k - (n-1))) mod n, copied.
  // After the reduce-scatter position q holds chunk q+1 complete, which the all-gather
  // forwards around the ring.
  auto id = [n](int step, int pos) { return static_cast<TransferId>(step * n + pos); };
  for (int k = 0; k < steps; ++k) {
    const bool reduce = k < n - 1;
    for (int p = 0; p < n; ++p) {
      const int chunk = reduce ? ((p - k) % n + n) % n : ((p + 1 - (k - (n - 1))) % n + n) % n;
      const Transfer t{ring[static_cast<std::size_t>(p)], ring[static_cast<std::size_t>((p + 1) % n)],
                       s.chunks()[static_cast<std::size_t>(chunk)].bytes, chunk,
                       reduce ? TransferKind::Reduce : TransferKind::Copy};
      if (k == 0) {
        s.add(t, {});
      } else {
        s.add(t, {id(k - 1, (p + n - 1) % n), id(k - 1, p)});
      }
    }
  }
  return s;
}

}  // namespace collsim
