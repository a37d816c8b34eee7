#include "sim/exec/chunk_data.hpp"

#include <cstring>

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace collsim::exec {

namespace {

constexpr std::int64_t kBlock = 1024;  // floats per memcpy block (keeps the adds vectorised)
constexpr std::int64_t kPeriod = 61;   // contribution() is periodic in the element index

std::int64_t float_count(Bytes b) { return b.count / 4; }
int tail_count(Bytes b) { return static_cast<int>(b.count % 4); }

void fill(std::byte* dst, Bytes bytes, int rank, int chunk) {
  float block[kBlock];
  const std::int64_t n = float_count(bytes);
  for (std::int64_t i = 0; i < n; i += kBlock) {
    const std::int64_t m = std::min(kBlock, n - i);
    for (std::int64_t k = 0; k < m; ++k) block[k] = contribution(rank, chunk, i + k);
    std::memcpy(dst + i * 4, block, static_cast<std::size_t>(m) * 4);
  }
  for (int j = 0; j < tail_count(bytes); ++j) dst[n * 4 + j] = static_cast<std::byte>(tail_contribution(rank, chunk, j));
}

}  // namespace

float contribution(int rank, int chunk, std::int64_t i) {
  return static_cast<float>((static_cast<std::int64_t>(rank + 1) * 31 + chunk * 7 + i) % kPeriod);
}

std::uint8_t tail_contribution(int rank, int chunk, int j) {
  return static_cast<std::uint8_t>((rank + 1) * 13 + chunk * 5 + j);
}

ChunkData::ChunkData(const Schedule& s, int rank) : s_(s), rank_(rank), buffers_(s.chunks().size()) {}

void ChunkData::reset() {
  for (std::size_t c = 0; c < buffers_.size(); ++c) {
    const ChunkSpec& spec = s_.chunks()[c];
    if (spec.origin == ChunkSpec::kEveryRank || spec.origin == rank_) {
      buffers_[c] = Payload(new std::byte[static_cast<std::size_t>(spec.bytes.count)]);
      fill(buffers_[c].get(), spec.bytes, rank_, static_cast<int>(c));
    } else {
      buffers_[c].reset();
    }
  }
}

Payload ChunkData::snapshot(int chunk) const {
  const Payload& p = buffers_.at(static_cast<std::size_t>(chunk));
  if (!p && s_.chunks()[static_cast<std::size_t>(chunk)].bytes.count > 0) {
    throw InternalError(fmt::format("rank {} must send chunk {} it does not hold", rank_, chunk));
  }
  return p;
}

void ChunkData::apply(int chunk, TransferKind kind, Payload incoming) {
  Payload& mine = buffers_.at(static_cast<std::size_t>(chunk));
  const Bytes bytes = s_.chunks()[static_cast<std::size_t>(chunk)].bytes;
  if (kind == TransferKind::Reduce) {
    if (!mine) throw InternalError(fmt::format("rank {} reduces into chunk {} it does not hold", rank_, chunk));
    float a[kBlock], b[kBlock];
    const std::int64_t n = float_count(bytes);
    for (std::int64_t i = 0; i < n; i += kBlock) {
      const std::int64_t m = std::min(kBlock, n - i);
      std::memcpy(a, incoming.get() + i * 4, static_cast<std::size_t>(m) * 4);
      std::memcpy(b, mine.get() + i * 4, static_cast<std::size_t>(m) * 4);
      for (std::int64_t k = 0; k < m; ++k) a[k] += b[k];
      std::memcpy(incoming.get() + i * 4, a, static_cast<std::size_t>(m) * 4);
    }
    for (int j = 0; j < tail_count(bytes); ++j) {
      const auto sum = static_cast<std::uint8_t>(static_cast<std::uint8_t>(incoming[n * 4 + j]) +
                                                 static_cast<std::uint8_t>(mine[n * 4 + j]));
      incoming[n * 4 + j] = static_cast<std::byte>(sum);
    }
  }
  mine = std::move(incoming);  // a sender's snapshot of the old buffer stays valid
}

std::int64_t ChunkData::floats(int chunk) const {
  return float_count(s_.chunks().at(static_cast<std::size_t>(chunk)).bytes);
}

std::byte* ChunkData::writable(int chunk) {
  Payload& mine = buffers_.at(static_cast<std::size_t>(chunk));
  if (!mine) throw InternalError(fmt::format("rank {} reduces into chunk {} it does not hold", rank_, chunk));
  if (mine.use_count() > 1) {  // a send of the previous value is still in flight: copy on write
    const auto n = static_cast<std::size_t>(s_.chunks()[static_cast<std::size_t>(chunk)].bytes.count);
    Payload copy(new std::byte[n]);
    std::memcpy(copy.get(), mine.get(), n);
    mine = std::move(copy);
  }
  return mine.get();
}

void ChunkData::accumulate(int chunk, const std::byte* incoming, std::int64_t from, std::int64_t to) {
  if (from >= to) return;
  std::byte* mine = writable(chunk);
  float a[kBlock], b[kBlock];
  for (std::int64_t i = from; i < to; i += kBlock) {
    const std::int64_t m = std::min(kBlock, to - i);
    std::memcpy(a, mine + i * 4, static_cast<std::size_t>(m) * 4);
    std::memcpy(b, incoming + i * 4, static_cast<std::size_t>(m) * 4);
    for (std::int64_t k = 0; k < m; ++k) a[k] += b[k];
    std::memcpy(mine + i * 4, a, static_cast<std::size_t>(m) * 4);
  }
}

void ChunkData::finish_accumulate(int chunk, const std::byte* incoming, std::int64_t from) {
  const Bytes bytes = s_.chunks().at(static_cast<std::size_t>(chunk)).bytes;
  const std::int64_t n = float_count(bytes);
  accumulate(chunk, incoming, from, n);
  std::byte* mine = writable(chunk);
  for (int j = 0; j < tail_count(bytes); ++j) {
    mine[n * 4 + j] = static_cast<std::byte>(static_cast<std::uint8_t>(static_cast<std::uint8_t>(mine[n * 4 + j]) +
                                                                      static_cast<std::uint8_t>(incoming[n * 4 + j])));
  }
}

std::int64_t ChunkData::count_wrong() const {
  std::int64_t wrong = 0;
  const int world = s_.ranks();
  for (std::size_t c = 0; c < buffers_.size(); ++c) {
    const ChunkSpec& spec = s_.chunks()[c];
    if (spec.destination != ChunkSpec::kEveryRank && spec.destination != rank_) continue;
    const std::int64_t n = float_count(spec.bytes);
    const int tails = tail_count(spec.bytes);
    const Payload& p = buffers_[c];
    if (!p) {
      wrong += n + tails;
      continue;
    }
    const bool reduced = spec.origin == ChunkSpec::kEveryRank;
    const int ci = static_cast<int>(c);
    // contribution() depends on the element index only modulo kPeriod, so the expected
    // value of element i is want[i % kPeriod].
    float want[kPeriod];
    for (std::int64_t i = 0; i < kPeriod; ++i) {
      want[i] = 0;
      if (reduced) {
        for (int r = 0; r < world; ++r) want[i] += contribution(r, ci, i);
      } else {
        want[i] = contribution(spec.origin, ci, i);
      }
    }
    float got[kBlock];
    for (std::int64_t i = 0; i < n; i += kBlock) {
      const std::int64_t m = std::min(kBlock, n - i);
      std::memcpy(got, p.get() + i * 4, static_cast<std::size_t>(m) * 4);
      for (std::int64_t k = 0; k < m; ++k) {
        if (got[k] != want[(i + k) % kPeriod]) ++wrong;
      }
    }
    for (int j = 0; j < tails; ++j) {
      std::uint8_t want = 0;
      if (reduced) {
        for (int r = 0; r < world; ++r) want = static_cast<std::uint8_t>(want + tail_contribution(r, ci, j));
      } else {
        want = tail_contribution(spec.origin, ci, j);
      }
      if (static_cast<std::uint8_t>(p[n * 4 + j]) != want) ++wrong;
    }
  }
  return wrong;
}

}  // namespace collsim::exec
