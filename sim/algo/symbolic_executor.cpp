#include "sim/algo/symbolic_executor.hpp"

#include <algorithm>
#include <cstdint>
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

}  // namespace

Verification verify_schedule(const Schedule& s) {
  Verification v;
  v.transfers = s.size();
  const std::int32_t n = s.ranks();
  const auto& chunks = s.chunks();
  const std::size_t nc = chunks.size();
  auto at = [&](std::int32_t rank, std::int32_t chunk) {
    return static_cast<std::size_t>(rank) * nc + static_cast<std::size_t>(chunk);
  };
  std::vector<RankSet> holds(static_cast<std::size_t>(n) * nc);
  std::vector<std::int64_t> last_writer(holds.size(), kInitial);
  for (std::size_t c = 0; c < nc; ++c) {
    const auto ci = static_cast<std::int32_t>(c);
    if (chunks[c].origin == ChunkSpec::kEveryRank) {
      for (std::int32_t r = 0; r < n; ++r) holds[at(r, ci)] = RankSet(r);
    } else {
      holds[at(chunks[c].origin, ci)] = RankSet(chunks[c].origin);
    }
  }
  auto fail = [&](std::string msg) {
    v.ok = false;
    v.error = fmt::format("{} ({} ranks): {}", s.algorithm(), n, msg);
    return v;
  };
  for (TransferId id = 0; id < s.size(); ++id) {
    const Transfer& t = s.transfer(id);
    const std::size_t from = at(t.src, t.chunk);
    const std::size_t to = at(t.dst, t.chunk);
    if (t.src == t.dst) return fail(fmt::format("transfer {} sends rank {} to itself", id, t.src));
    if (t.bytes != chunks[static_cast<std::size_t>(t.chunk)].bytes) {
      return fail(fmt::format("transfer {} carries {} B of chunk {}, which has {} B", id, t.bytes.count, t.chunk,
                              chunks[static_cast<std::size_t>(t.chunk)].bytes.count));
    }
    if (holds[from].empty()) {
      return fail(fmt::format("transfer {} sends chunk {} from rank {}, which holds none of it", id, t.chunk, t.src));
    }
    if (const std::int64_t w = last_writer[from]; w != kInitial) {
      const auto deps = s.deps(id);
      if (std::find(deps.begin(), deps.end(), static_cast<TransferId>(w)) == deps.end()) {
        return fail(fmt::format("transfer {} reads chunk {} on rank {} without depending on transfer {} that wrote it",
                                id, t.chunk, t.src, w));
      }
    }
    if (t.kind == TransferKind::Copy) {
      holds[to] = holds[from];
    } else {
      RankSet merged = holds[to];
      if (!merged.add_disjoint(holds[from])) {
        return fail(fmt::format("transfer {} reduces chunk {} {} into rank {} which already holds {}: a contribution "
                                "would count twice",
                                id, t.chunk, holds[from].describe(), t.dst, holds[to].describe()));
      }
      holds[to] = std::move(merged);
    }
    last_writer[to] = id;
  }
  for (std::size_t c = 0; c < nc; ++c) {
    const auto ci = static_cast<std::int32_t>(c);
    const RankSet expected =
        chunks[c].origin == ChunkSpec::kEveryRank ? RankSet::range(0, n) : RankSet(chunks[c].origin);
    const std::int32_t lo = chunks[c].destination == ChunkSpec::kEveryRank ? 0 : chunks[c].destination;
    const std::int32_t hi = chunks[c].destination == ChunkSpec::kEveryRank ? n : chunks[c].destination + 1;
    for (std::int32_t r = lo; r < hi; ++r) {
      if (!(holds[at(r, ci)] == expected)) {
        return fail(fmt::format("at the end rank {} holds chunk {} as {}, expected {}", r, ci,
                                holds[at(r, ci)].describe(), expected.describe()));
      }
    }
  }
  return v;
}

}  // namespace collsim
