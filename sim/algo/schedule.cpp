#include "sim/algo/schedule.hpp"

#include <cstdlib>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/text.hpp"

namespace collsim {

namespace {

// $name as a positive whole number, or `fallback` when unset.
std::uint64_t env_limit(const char* name, std::uint64_t fallback, const char* what) {
  if (const char* env = std::getenv(name); env && *env) {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(env, &end, 10);
    if (end && *end == '\0' && v > 0) return v;
    throw ConfigError(name, "", in_quotes(env), what);
  }
  return fallback;
}

}  // namespace

std::uint64_t max_schedule_bytes() {
  return env_limit("COLLSIM_MAX_SCHEDULE_BYTES", kDefaultMaxScheduleBytes, "a positive whole number of bytes");
}

std::uint64_t max_replay_work() {
  return env_limit("COLLSIM_MAX_REPLAY_WORK", kDefaultMaxReplayWork, "a positive whole number (transfers x ranks)");
}

std::uint64_t tree_replay_budget() {
  return env_limit("COLLSIM_TREE_REPLAY_BUDGET", kDefaultTreeReplayBudget, "a positive whole number (transfers x ranks)");
}

std::uint64_t schedule_bytes(std::uint64_t transfers, std::uint64_t deps) {
  // A packed transfer, its CSR offset, and a TransferId per dependency. Saturates rather
  // than wraps: the estimate is only compared with the limit.
  constexpr std::uint64_t kPerTransfer = 16 + sizeof(std::uint64_t);
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  if (transfers > kMax / 2 / kPerTransfer || deps > kMax / 2 / sizeof(TransferId)) return kMax;
  return transfers * kPerTransfer + deps * sizeof(TransferId);
}

Schedule::Schedule(Collective collective, std::string algorithm)
    : collective_(collective), algorithm_(std::move(algorithm)), dep_begin_{0}, max_bytes_(max_schedule_bytes()) {}

void Schedule::expect(std::uint64_t transfers, std::uint64_t deps) const {
  const std::uint64_t need = schedule_bytes(transfers, deps);
  // TransferId is 32 bits: past 2^32 - 2 transfers the ids would wrap.
  if (need <= max_bytes_ && transfers < std::numeric_limits<TransferId>::max()) return;
  refuse(fmt::format("{} transfers, about {:.3g} GiB", transfers, static_cast<double>(need) / (1 << 30)));
}

void Schedule::refuse(const std::string& need) const {
  throw LimitError(fmt::format(
      "{} {} on {} ranks needs {}, more than the {:.3g} GiB (and {} transfers) a schedule may take; use fewer ranks "
      "or a larger slice, or raise the limit with COLLSIM_MAX_SCHEDULE_BYTES",
      algorithm_, to_string(collective_.op), collective_.ranks, need, static_cast<double>(max_bytes_) / (1 << 30),
      std::numeric_limits<TransferId>::max() - 1));
}

std::int32_t Schedule::add_chunk(ChunkSpec spec) {
  chunks_.push_back(spec);
  return static_cast<std::int32_t>(chunks_.size() - 1);
}

void Schedule::reserve(std::size_t transfers, std::size_t deps) {
  expect(transfers, deps);  // refuse with the figure before asking for the memory
  transfers_.reserve(transfers);
  dep_begin_.reserve(transfers + 1);
  dep_list_.reserve(deps);
}

TransferId Schedule::add(const Transfer& t, std::span<const TransferId> deps) {
  if (schedule_bytes(transfers_.size() + 1, dep_list_.size() + deps.size()) > max_bytes_ ||
      transfers_.size() + 1 >= std::numeric_limits<TransferId>::max()) {
    refuse(fmt::format("more than {} transfers", transfers_.size()));
  }
  const auto id = static_cast<TransferId>(transfers_.size());
  if (t.src < 0 || t.src >= collective_.ranks || t.dst < 0 || t.dst >= collective_.ranks) {
    throw InternalError(fmt::format("{}: transfer {} names rank {}->{} outside 0..{}", algorithm_, id, t.src, t.dst,
                                    collective_.ranks - 1));
  }
  if (t.chunk < 0 || t.chunk >= static_cast<std::int32_t>(chunks_.size())) {
    throw InternalError(fmt::format("{}: transfer {} names unknown chunk {}", algorithm_, id, t.chunk));
  }
  if (t.kind == TransferKind::Join && t.bytes.count != 0) {
    throw InternalError(fmt::format("{}: join {} carries bytes", algorithm_, id));
  }
  if (t.kind != TransferKind::Join && t.bytes != chunks_[static_cast<std::size_t>(t.chunk)].bytes) {
    throw InternalError(fmt::format("{}: transfer {} carries {} B of chunk {}, which has {} B", algorithm_, id,
                                    t.bytes.count, t.chunk, chunks_[static_cast<std::size_t>(t.chunk)].bytes.count));
  }
  for (TransferId d : deps) {
    if (d >= id) throw InternalError(fmt::format("{}: transfer {} depends on later transfer {}", algorithm_, id, d));
  }
  if (t.leg == TransferLeg::Span && t.span_end <= t.span_begin) {
    throw InternalError(fmt::format("{}: transfer {} loads the empty span [{}, {}) of its route", algorithm_, id,
                                    t.span_begin, t.span_end));
  }
  const auto flags = static_cast<std::uint8_t>(static_cast<unsigned>(t.kind) | static_cast<unsigned>(t.leg) << 2 |
                                               (t.pipelined ? 1u : 0u) << 4);
  transfers_.push_back(Packed{t.src, t.dst, t.chunk, flags, t.channel, t.span_begin, t.span_end});
  dep_list_.insert(dep_list_.end(), deps.begin(), deps.end());
  dep_begin_.push_back(dep_list_.size());
  return id;
}

TransferId Schedule::add_join(std::span<const TransferId> deps) {
  return add(Transfer{0, 0, Bytes{0}, 0, TransferKind::Join}, deps);
}

Transfer Schedule::transfer(TransferId id) const {
  const Packed& p = transfers_[id];
  const auto kind = static_cast<TransferKind>(p.flags & 3u);
  const Bytes bytes = kind == TransferKind::Join ? Bytes{0} : chunks_[static_cast<std::size_t>(p.chunk)].bytes;
  return Transfer{p.src,     p.dst,     bytes, p.chunk, kind, static_cast<TransferLeg>(p.flags >> 2 & 3u), (p.flags & 16u) != 0,
                  p.channel, p.span_begin, p.span_end};
}

std::vector<Transfer> Schedule::transfers() const {
  std::vector<Transfer> out;
  out.reserve(transfers_.size());
  for (TransferId id = 0; id < transfers_.size(); ++id) out.push_back(transfer(id));
  return out;
}

std::span<const TransferId> Schedule::deps(TransferId id) const {
  return {dep_list_.data() + dep_begin_[id], static_cast<std::size_t>(dep_begin_[id + 1] - dep_begin_[id])};
}

std::vector<Bytes> Schedule::bytes_sent_per_rank() const {
  std::vector<Bytes> out(static_cast<std::size_t>(collective_.ranks));
  for (TransferId id = 0; id < transfers_.size(); ++id) {
    const Transfer t = transfer(id);
    out[static_cast<std::size_t>(t.src)] += t.bytes;
  }
  return out;
}

std::uint8_t channel_tag(int channel) {
  if (channel < 0 || channel > 255) throw std::invalid_argument(fmt::format("channel {} is outside 0..255", channel));
  return static_cast<std::uint8_t>(channel);
}

std::vector<Bytes> split_evenly(Bytes total, int parts) {
  std::vector<Bytes> out(static_cast<std::size_t>(parts), Bytes{total.count / parts});
  const std::int64_t extra = total.count % parts;
  for (std::int64_t i = 0; i < extra; ++i) out[static_cast<std::size_t>(i)].count += 1;
  return out;
}

}  // namespace collsim
