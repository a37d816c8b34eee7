#include "sim/algo/parameter_server.hpp"

#include <vector>

namespace collsim {

Schedule parameter_server_allreduce(const Collective& c) {
  Schedule s(c, "ps");
  const int n = c.ranks;
  const int server = c.root;
  const std::int32_t chunk = s.add_chunk(ChunkSpec{c.size});
  if (n == 1) return s;
  s.reserve(2 * static_cast<std::size_t>(n), static_cast<std::size_t>(n) * static_cast<std::size_t>(n));
  std::vector<TransferId> pushes;
  pushes.reserve(static_cast<std::size_t>(n - 1));
  for (int w = 0; w < n; ++w) {
    if (w == server) continue;
    pushes.push_back(s.add(Transfer{w, server, c.size, chunk, TransferKind::Reduce}, {}));
  }
  for (int w = 0; w < n; ++w) {
    if (w == server) continue;
    s.add(Transfer{server, w, c.size, chunk, TransferKind::Copy}, pushes);
  }
  return s;
}

}  // namespace collsim
