#include "sim/algo/schedule.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace collsim {

Schedule::Schedule(Collective collective, std::string algorithm)
    : collective_(collective), algorithm_(std::move(algorithm)), dep_begin_{0} {}

std::int32_t Schedule::add_chunk(ChunkSpec spec) {
  chunks_.push_back(spec);
  return static_cast<std::int32_t>(chunks_.size() - 1);
}

void Schedule::reserve(std::size_t transfers, std::size_t deps) {
  transfers_.reserve(transfers);
  dep_begin_.reserve(transfers + 1);
  dep_list_.reserve(deps);
}

TransferId Schedule::add(const Transfer& t, std::span<const TransferId> deps) {
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
  transfers_.push_back(Packed{t.src, t.dst, t.chunk, static_cast<std::uint8_t>(t.kind), static_cast<std::uint8_t>(t.leg),
                              t.pipelined, t.channel});
  dep_list_.insert(dep_list_.end(), deps.begin(), deps.end());
  dep_begin_.push_back(dep_list_.size());
  return id;
}

TransferId Schedule::add_join(std::span<const TransferId> deps) {
  return add(Transfer{0, 0, Bytes{0}, 0, TransferKind::Join}, deps);
}

Transfer Schedule::transfer(TransferId id) const {
  const Packed& p = transfers_[id];
  const auto kind = static_cast<TransferKind>(p.kind);
  const Bytes bytes = kind == TransferKind::Join ? Bytes{0} : chunks_[static_cast<std::size_t>(p.chunk)].bytes;
  return Transfer{p.src, p.dst, bytes, p.chunk, kind, static_cast<TransferLeg>(p.leg), p.pipelined, p.channel};
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
