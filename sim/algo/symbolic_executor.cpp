#include "sim/algo/symbolic_executor.hpp"

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

namespace collsim {

namespace {

// A set of ranks as sorted, disjoint, non-adjacent half-open intervals [lo, hi).
// Collective algorithms combine contiguous rank ranges, so sets stay a few intervals.
class RankSet {
 public:
  RankSet() = default;
  explicit RankSet(std::int32_t r) : iv_{{r, r + 1}} {}
  static RankSet range(std::int32_t lo, std::int32_t hi) {
    RankSet s;
    if (lo < hi) s.iv_.push_back({lo, hi});
    return s;
  }
  [[nodiscard]] bool empty() const { return iv_.empty(); }
  bool operator==(const RankSet&) const = default;

  // Adds `o`; returns false (and leaves *this unspecified) when they overlap.
  bool add_disjoint(const RankSet& o) {
    std::vector<std::pair<std::int32_t, std::int32_t>> merged;
    merged.reserve(iv_.size() + o.iv_.size());
    std::size_t i = 0, j = 0;
    while (i < iv_.size() || j < o.iv_.size()) {
      const auto& next = (j == o.iv_.size() || (i < iv_.size() && iv_[i].first < o.iv_[j].first)) ? iv_[i++] : o.iv_[j++];
      if (!merged.empty() && next.first < merged.back().second) return false;
      if (!merged.empty() && next.first == merged.back().second) {
        merged.back().second = next.second;
      } else {
        merged.push_back(next);
      }
    }
    iv_.swap(merged);
    return true;
  }
  [[nodiscard]] std::string describe() const {
    std::string out = "{";
    for (std::size_t k = 0; k < iv_.size() && k < 4; ++k) {
      if (k) out += ",";
      out += iv_[k].second - iv_[k].first == 1 ? fmt::format("{}", iv_[k].first)
                                               : fmt::format("{}..{}", iv_[k].first, iv_[k].second - 1);
    }
    if (iv_.size() > 4) out += ",...";
    return out + "}";
  }

 private:
  std::vector<std::pair<std::int32_t, std::int32_t>> iv_;
};

constexpr std::int64_t kInitial = -1;

// One (rank, chunk) buffer: its current contents and the contents before the last write,
// with the transfers that wrote them. The previous value serves exchanges: when ranks a
// and b swap a chunk in one step, b's send does not depend on a's incoming write, and
// reads what b held before it (a real rank sends from its buffer and receives into a
// scratch buffer that it folds in afterwards).
struct Cell {
  RankSet current;
  std::int64_t writer = kInitial;
  RankSet previous;
  std::int64_t previous_writer = kInitial;
};

}  // namespace

Verification verify_schedule(const Schedule& s) {
  Verification v;
  v.transfers = s.size();
  const std::int32_t n = s.ranks();
  const auto& chunks = s.chunks();
  const auto nc = static_cast<std::uint64_t>(chunks.size());
  // Cells are created on first write, so memory follows the transfers, not ranks x chunks
  // (an all-to-all on 1000 ranks has a million chunks but each lives on two ranks).
  std::unordered_map<std::uint64_t, Cell> cells;
  cells.reserve(s.size());
  auto key = [nc](std::int32_t rank, std::int32_t chunk) {
    return static_cast<std::uint64_t>(rank) * nc + static_cast<std::uint64_t>(chunk);
  };
  auto initial = [&](std::int32_t rank, std::int32_t chunk) {
    const std::int32_t origin = chunks[static_cast<std::size_t>(chunk)].origin;
    return origin == ChunkSpec::kEveryRank || origin == rank ? RankSet(rank) : RankSet();
  };
  auto fail = [&](std::string msg) {
    v.ok = false;
    v.error = fmt::format("{} ({} ranks): {}", s.algorithm(), n, msg);
    return v;
  };
  for (TransferId id = 0; id < s.size(); ++id) {
    const Transfer& t = s.transfer(id);
    if (t.kind == TransferKind::Join) continue;
    if (t.src == t.dst) return fail(fmt::format("transfer {} sends rank {} to itself", id, t.src));
    if (t.bytes != chunks[static_cast<std::size_t>(t.chunk)].bytes) {
      return fail(fmt::format("transfer {} carries {} B of chunk {}, which has {} B", id, t.bytes.count, t.chunk,
                              chunks[static_cast<std::size_t>(t.chunk)].bytes.count));
    }
    // What the sender holds, as this transfer sees it.
    RankSet sent;
    if (const auto it = cells.find(key(t.src, t.chunk)); it == cells.end()) {
      sent = initial(t.src, t.chunk);
    } else {
      const auto deps = s.deps(id);
      auto depends_on = [&](std::int64_t w) {
        for (TransferId d : deps) {
          if (d == static_cast<TransferId>(w)) return true;
          if (s.transfer(d).kind == TransferKind::Join) {
            const auto jd = s.deps(d);
            if (std::find(jd.begin(), jd.end(), static_cast<TransferId>(w)) != jd.end()) return true;
          }
        }
        return false;
      };
      const Cell& c = it->second;
      if (depends_on(c.writer)) {
        sent = c.current;
      } else if (c.previous_writer == kInitial || depends_on(c.previous_writer)) {
        sent = c.previous;  // concurrent with the last write: an exchange
      } else {
        return fail(fmt::format("transfer {} reads chunk {} on rank {} without depending on transfer {} that wrote it",
                                id, t.chunk, t.src, c.writer));
      }
    }
    if (sent.empty()) {
      return fail(fmt::format("transfer {} sends chunk {} from rank {}, which holds none of it", id, t.chunk, t.src));
    }
    auto [it, fresh] = cells.try_emplace(key(t.dst, t.chunk));
    Cell& d = it->second;
    if (fresh) d.current = initial(t.dst, t.chunk);
    RankSet next;
    if (t.kind == TransferKind::Copy) {
      next = std::move(sent);
    } else {
      next = d.current;
      if (!next.add_disjoint(sent)) {
        return fail(fmt::format("transfer {} reduces chunk {} {} into rank {} which already holds {}: a contribution "
                                "would count twice",
                                id, t.chunk, sent.describe(), t.dst, d.current.describe()));
      }
    }
    d.previous = std::move(d.current);
    d.previous_writer = d.writer;
    d.current = std::move(next);
    d.writer = id;
  }
  for (std::uint64_t c = 0; c < nc; ++c) {
    const auto ci = static_cast<std::int32_t>(c);
    const RankSet expected =
        chunks[c].origin == ChunkSpec::kEveryRank ? RankSet::range(0, n) : RankSet(chunks[c].origin);
    const std::int32_t lo = chunks[c].destination == ChunkSpec::kEveryRank ? 0 : chunks[c].destination;
    const std::int32_t hi = chunks[c].destination == ChunkSpec::kEveryRank ? n : chunks[c].destination + 1;
    for (std::int32_t r = lo; r < hi; ++r) {
      const auto it = cells.find(key(r, ci));
      const RankSet held = it == cells.end() ? initial(r, ci) : it->second.current;
      if (!(held == expected)) {
        return fail(fmt::format("at the end rank {} holds chunk {} as {}, expected {}", r, ci, held.describe(),
                                expected.describe()));
      }
    }
  }
  return v;
}

}  // namespace collsim
