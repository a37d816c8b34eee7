#include "sim/exec/exec_session.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <cstring>
#include <set>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/exec/chunk_data.hpp"
#include "sim/exec/exec_error.hpp"

namespace collsim::exec {

namespace {
constexpr std::uint32_t kFinal = 0xFFFFFFFFu;  // the "go" id that ends a session
using Clock = std::chrono::steady_clock;
}  // namespace

// One rank's share of one schedule: what it sends, receives and must tell others.
class ExecSession::Iteration {
 public:
  Iteration(const Schedule& s, Connections& conn, int rank) : s_(s), conn_(conn), rank_(rank), data_(s, rank) {
    const std::size_t n = s.size();
    dependents_.resize(n);
    notify_.resize(n);
    dep_total_.assign(n, 0);
    // Joins move nothing: a transfer that depends on a join depends on the join's own
    // (expanded) dependencies, which is what the symbolic executor assumes too.
    std::vector<std::vector<TransferId>> deps(n);
    for (TransferId t = 0; t < n; ++t) {
      for (TransferId d : s.deps(t)) {
        if (s.transfer(d).kind == TransferKind::Join) {
          deps[t].insert(deps[t].end(), deps[d].begin(), deps[d].end());
        } else {
          deps[t].push_back(d);
        }
      }
      std::sort(deps[t].begin(), deps[t].end());
      deps[t].erase(std::unique(deps[t].begin(), deps[t].end()), deps[t].end());
    }
    for (TransferId t = 0; t < n; ++t) {
      const Transfer tr = s.transfer(t);
      if (tr.kind == TransferKind::Join) continue;
      if (tr.src == tr.dst) throw InternalError(fmt::format("{}: transfer {} sends rank {} to itself", s.algorithm(), t, tr.src));
      if (tr.leg != TransferLeg::EndToEnd) {
        throw InternalError(fmt::format("{}: transfer {} is an in-network (switch) reduction, which TCP cannot run",
                                        s.algorithm(), t));
      }
      if (tr.src == rank_) {
        my_sends_.push_back(t);
        dep_total_[t] = static_cast<std::uint32_t>(deps[t].size());
        for (TransferId d : deps[t]) dependents_[d].push_back(t);
      }
      if (tr.dst == rank_) ++receives_;
      // Rank q = tr.src learns that dependency d finished from d's receiver, unless q
      // sent d itself or received it.
      for (TransferId d : deps[t]) {
        const Transfer dt = s.transfer(d);
        if (dt.dst == rank_ && tr.src != rank_ && tr.src != dt.src) notify_[d].push_back(tr.src);
      }
    }
    for (auto& v : notify_) {
      std::sort(v.begin(), v.end());
      v.erase(std::unique(v.begin(), v.end()), v.end());
      notices_ += static_cast<int>(v.size());
    }
    order_chunk_access(deps);
  }

  // Orders this rank's reads and writes of each chunk as the symbolic executor assumes
  // (symbolic_executor.hpp): a send reads a chunk as the transfers before it in id order
  // left it, except that a send that does not depend on the chunk's last write reads the
  // value before that write (an exchange: rd swaps a chunk in one step). The DAG states
  // only the last write a send reads, and data arrives whenever its sender sends it, so
  // (1) a write is held (not folded in) until every send that reads the value before it
  // has taken its snapshot, and (2) a send also waits for every earlier write it reads
  // (rhd: rank 0's all-gather send of a block must wait for both reduce-scatter writes
  // into it, though it depends on the second only).
  void order_chunk_access(const std::vector<std::vector<TransferId>>& deps) {
    holds_.assign(s_.size(), {});
    std::vector<std::vector<TransferId>> writes(s_.chunks().size());  // writes into each chunk here, id order
    std::vector<std::vector<TransferId>> sends(s_.chunks().size());   // my sends of each chunk so far
    for (TransferId t = 0; t < s_.size(); ++t) {
      const Transfer tr = s_.transfer(t);
      if (tr.kind == TransferKind::Join) continue;
      const auto c = static_cast<std::size_t>(tr.chunk);
      if (tr.src == rank_) {
        const auto& w = writes[c];
        auto depends = [&](TransferId d) { return std::binary_search(deps[t].begin(), deps[t].end(), d); };
        const bool exchange = !w.empty() && !depends(w.back());
        if (exchange) holds_[w.back()].push_back(t);  // reads the value before the last write
        for (std::size_t i = 0; i + (exchange ? 1 : 0) < w.size(); ++i) {
          if (depends(w[i])) continue;
          ++dep_total_[t];
          dependents_[w[i]].push_back(t);
        }
        sends[c].push_back(t);
      }
      if (tr.dst == rank_) {
        // Every send earlier in id order reads a value before this write. (Writes are not
        // folded in in id order, so the earlier writes' holds do not cover them.)
        holds_[t].insert(holds_[t].end(), sends[c].begin(), sends[c].end());
        writes[c].push_back(t);
      }
    }
  }

  // Prepares a fresh iteration (before this rank reports ready).
  void reset() {
    snapped_.assign(s_.size(), 0);
    pending_.clear();
    data_.reset();
    remaining_ = dep_total_;
    sends_left_ = static_cast<int>(my_sends_.size());
    receives_left_ = receives_;
    notices_left_ = notices_;
    started_ = false;
    reduced_.assign(s_.size(), 0);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    timing_.assign(2 * s_.size(), nan);
  }

  void start() {
    started_ = true;
    t0_ = Clock::now();
    // Dependencies may already have been met by data that arrived before this rank's go.
    // (Collected first: a send can fold in a held write, whose dependents then go at once.)
    std::vector<TransferId> ready;
    for (TransferId t : my_sends_) {
      if (remaining_[t] == 0) ready.push_back(t);
    }
    for (TransferId t : ready) send(t);
  }

  // Per transfer: [2t] when this rank (its sender) started it, [2t+1] when this rank (its
  // receiver) had applied it; seconds since this rank's go (0 for data that arrived before
  // it: another rank's go came first), NaN where this rank is neither.
  [[nodiscard]] std::vector<double> timing() const {
    std::vector<double> rel(timing_.size());
    const double go = seconds(t0_);
    for (std::size_t i = 0; i < timing_.size(); ++i) rel[i] = std::isnan(timing_[i]) ? timing_[i] : std::max(0.0, timing_[i] - go);
    return rel;
  }

  [[nodiscard]] bool done() const { return sends_left_ == 0 && receives_left_ == 0 && notices_left_ == 0; }
  [[nodiscard]] std::int64_t wrong() const { return data_.count_wrong(); }
  [[nodiscard]] std::string waiting() const {
    return fmt::format("running {} {} ({} sends, {} receives, {} notices left)", s_.algorithm(),
                       to_string(s_.collective().op), sends_left_, receives_left_, notices_left_);
  }

  // Why a data message cannot be for this rank ("" when it can), from its header alone.
  [[nodiscard]] std::string check_data(int peer, TransferId t, std::uint64_t length) const {
    if (t >= s_.size()) return fmt::format("data for transfer {}, the schedule has {}", t, s_.size());
    const Transfer& tr = s_.transfer(t);
    if (tr.kind == TransferKind::Join || tr.dst != rank_ || tr.src != peer) {
      return fmt::format("data for transfer {}, which is not from rank {} to rank {}", t, peer, rank_);
    }
    if (length != static_cast<std::uint64_t>(tr.bytes.count)) {
      return fmt::format("{} bytes for transfer {}, the schedule says {}", length, t, tr.bytes.count);
    }
    return "";
  }

  void on_data(int peer, TransferId t, Payload p, std::uint64_t length) {
    if (const std::string why = check_data(peer, t, length); !why.empty()) {
      throw ExecError(fmt::format("rank {}: unexpected {} (peers run different schedules?)", rank_, why));
    }
    if (held(t)) {
      pending_.emplace_back(t, std::move(p));  // folded in once the exchange's send has its snapshot
      return;
    }
    fold_in(t, std::move(p));
  }

  // Reduces the floats of an incoming Reduce that have arrived so far, so that the
  // reduction overlaps the transfer instead of following it.
  void on_progress(int peer, TransferId t, const std::byte* payload, std::uint64_t received) {
    if (t >= s_.size() || s_.transfer(t).dst != rank_ || s_.transfer(t).src != peer) return;  // on_data reports it
    const Transfer& tr = s_.transfer(t);
    if (tr.kind != TransferKind::Reduce || held(t)) return;
    const auto upto = std::min(static_cast<std::int64_t>(received / 4), data_.floats(tr.chunk));
    if (upto - reduced_[t] < kMinFloats && upto < data_.floats(tr.chunk)) return;  // batch small arrivals
    data_.accumulate(tr.chunk, payload, reduced_[t], upto);
    reduced_[t] = upto;
  }

  void on_done(TransferId d) {
    if (d >= s_.size()) throw ExecError(fmt::format("rank {}: notice for unknown transfer {}", rank_, d));
    satisfied(d);
  }

 private:
  void satisfied(TransferId d) {
    for (TransferId t : dependents_[d]) {
      if (--remaining_[t] == 0 && started_) send(t);
    }
  }

  void send(TransferId t) {
    const Transfer& tr = s_.transfer(t);
    timing_[2 * t] = now_seconds();
    conn_.send(tr.dst, MsgHeader{MsgType::Data, t, static_cast<std::uint64_t>(tr.bytes.count)}, data_.snapshot(tr.chunk),
               [this, t] {
                 --sends_left_;
                 satisfied(t);
               });
    snapped_[t] = 1;
    // Writes that waited for this snapshot (an exchange) can be folded in now.
    std::vector<std::pair<TransferId, Payload>> ready;
    for (auto it = pending_.begin(); it != pending_.end();) {
      if (!held(it->first)) {
        ready.push_back(std::move(*it));
        it = pending_.erase(it);
      } else {
        ++it;
      }
    }
    for (auto& [w, p] : ready) fold_in(w, std::move(p));
  }

  // True while an exchange send of this rank has yet to snapshot the value write t replaces.
  [[nodiscard]] bool held(TransferId t) const {
    return std::any_of(holds_[t].begin(), holds_[t].end(), [this](TransferId s) { return snapped_[s] == 0; });
  }

  void fold_in(TransferId t, Payload p) {
    const Transfer& tr = s_.transfer(t);
    if (tr.kind == TransferKind::Reduce) {
      data_.finish_accumulate(tr.chunk, p.get(), reduced_[t]);
    } else {
      data_.apply(tr.chunk, tr.kind, std::move(p));
    }
    timing_[2 * t + 1] = now_seconds();
    --receives_left_;
    for (int q : notify_[t]) conn_.send(q, MsgHeader{MsgType::Done, t, 0}, {}, [this] { --notices_left_; });
    satisfied(t);
  }

  const Schedule& s_;
  Connections& conn_;
  int rank_;
  ChunkData data_;
  std::vector<TransferId> my_sends_;
  std::vector<std::vector<TransferId>> dependents_;  // d -> my sends that wait for d
  std::vector<std::vector<int>> notify_;             // d received here -> ranks to tell
  std::vector<std::uint32_t> dep_total_;
  std::vector<std::uint32_t> remaining_;
  int receives_ = 0, notices_ = 0;
  int sends_left_ = 0, receives_left_ = 0, notices_left_ = 0;
  bool started_ = false;
  Clock::time_point t0_;
  std::vector<double> timing_;
  std::vector<std::int64_t> reduced_;              // floats of each incoming Reduce added so far
  std::vector<std::vector<TransferId>> holds_;     // write t -> my sends that must snapshot before it
  std::vector<char> snapped_;                      // my sends that have taken their snapshot
  std::vector<std::pair<TransferId, Payload>> pending_;  // held writes, in arrival order
  static constexpr std::int64_t kMinFloats = 4096;  // reduce in steps of at least 16 KiB

  [[nodiscard]] static double seconds(Clock::time_point t) { return std::chrono::duration<double>(t.time_since_epoch()).count(); }
  [[nodiscard]] static double now_seconds() { return seconds(Clock::now()); }
};

ExecSession::ExecSession(Connections& conn) : conn_(conn), rank_(conn.self()), world_(conn.world()) {
  conn_.set_progress([this](int peer, const MsgHeader& h, const std::byte* payload, std::uint64_t received) {
    if (h.type == MsgType::Data && current_) current_->on_progress(peer, h.id, payload, received);
  });
  conn_.set_check([this](int peer, const MsgHeader& h) { return check(peer, h); });
}

std::string ExecSession::check(int peer, const MsgHeader& h) const {
  switch (h.type) {
    case MsgType::Data:
      return current_ ? current_->check_data(peer, h.id, h.length) : "data outside a collective";
    case MsgType::Result:
      if (rank_ != 0) return "results sent to a rank other than 0";
      if (h.length != result_bytes_) return fmt::format("results of {} bytes, expected {}", h.length, result_bytes_);
      return "";
    case MsgType::Done:
    case MsgType::Barrier:
    case MsgType::Go:
      break;
  }
  return h.length == 0 ? "" : fmt::format("a control message with {} payload bytes", h.length);
}

void ExecSession::on_message(int peer, const MsgHeader& h, Payload p) {
  switch (h.type) {
    case MsgType::Data:
      if (!current_) throw ExecError(fmt::format("rank {}: data from rank {} outside a collective", rank_, peer));
      current_->on_data(peer, h.id, std::move(p), h.length);
      break;
    case MsgType::Done:
      if (!current_) throw ExecError(fmt::format("rank {}: notice from rank {} outside a collective", rank_, peer));
      current_->on_done(h.id);
      break;
    case MsgType::Barrier:
      if (rank_ != 0) throw ExecError(fmt::format("rank {}: barrier message from rank {}", rank_, peer));
      ++barrier_count_[h.id];
      break;
    case MsgType::Go:
      if (h.id == kFinal) {
        finished_ = true;
      } else {
        go_seen_ = std::max(go_seen_, h.id + 1);
      }
      break;
    case MsgType::Result: {
      std::vector<double> v(h.length / sizeof(double));
      if (!v.empty()) std::memcpy(v.data(), p.get(), v.size() * sizeof(double));
      results_[peer] = std::move(v);
      break;
    }
  }
}

void ExecSession::barrier() {
  const std::uint32_t seq = seq_++;
  auto handler = [this](int peer, const MsgHeader& h, Payload p) { on_message(peer, h, std::move(p)); };
  if (rank_ == 0) {
    conn_.run_until([&] { return barrier_count_[seq] == world_ - 1; }, handler,
                    fmt::format("waiting for every rank to be ready for iteration {}", seq));
    barrier_count_.erase(seq);
    for (int r = 1; r < world_; ++r) conn_.send(r, MsgHeader{MsgType::Go, seq, 0}, {});
  } else {
    conn_.send(0, MsgHeader{MsgType::Barrier, seq, 0}, {});
    conn_.run_until([&] { return go_seen_ > seq; }, handler, fmt::format("waiting for rank 0's go for iteration {}", seq));
  }
}

RunResult ExecSession::run(const Schedule& s, int warmup, int iters) {
  if (s.ranks() != world_) {
    throw ExecError(fmt::format("rank {}: schedule for {} ranks, but {} ranks are connected", rank_, s.ranks(), world_));
  }
  auto handler = [this](int peer, const MsgHeader& h, Payload p) { on_message(peer, h, std::move(p)); };
  Iteration it(s, conn_, rank_);
  // What each other rank sends rank 0 at the end: [wrong, durations..., transfer times...].
  result_bytes_ = (1 + static_cast<std::uint64_t>(iters) + 2 * static_cast<std::uint64_t>(s.size())) * sizeof(double);
  std::vector<double> mine;
  std::int64_t wrong = 0;
  for (int i = 0; i < warmup + iters; ++i) {
    it.reset();
    current_ = &it;
    barrier();
    const auto t0 = Clock::now();
    it.start();
    conn_.run_until([&] { return it.done(); }, handler, it.waiting());
    const auto t1 = Clock::now();
    if (i >= warmup) mine.push_back(std::chrono::duration<double>(t1 - t0).count());
    wrong += it.wrong();
  }
  current_ = nullptr;

  RunResult out;
  if (rank_ != 0) {
    std::vector<double> msg{static_cast<double>(wrong)};
    msg.insert(msg.end(), mine.begin(), mine.end());
    const std::vector<double> timing = it.timing();
    msg.insert(msg.end(), timing.begin(), timing.end());
    Payload p(new std::byte[msg.size() * sizeof(double)]);
    std::memcpy(p.get(), msg.data(), msg.size() * sizeof(double));
    bool sent = false;
    conn_.send(0, MsgHeader{MsgType::Result, 0, msg.size() * sizeof(double)}, p, [&] { sent = true; });
    conn_.run_until([&] { return sent; }, handler, "sending results to rank 0");
    out.wrong = wrong;
    return out;
  }
  conn_.run_until([&] { return static_cast<int>(results_.size()) == world_ - 1; }, handler,
                  "gathering the other ranks' timings");
  out.iteration_s = mine;
  out.wrong = wrong;
  out.transfer_s = it.timing();
  const std::size_t expect = 1 + mine.size() + out.transfer_s.size();
  for (const auto& [peer, v] : results_) {
    if (v.size() != expect) throw ExecError(fmt::format("rank 0: rank {} reported {} values, expected {}", peer, v.size(), expect));
    out.wrong += static_cast<std::int64_t>(v[0]);
    for (std::size_t k = 0; k < mine.size(); ++k) out.iteration_s[k] = std::max(out.iteration_s[k], v[k + 1]);
    for (std::size_t k = 0; k < out.transfer_s.size(); ++k) {
      if (!std::isnan(v[1 + mine.size() + k])) out.transfer_s[k] = v[1 + mine.size() + k];
    }
  }
  results_.clear();
  return out;
}

void ExecSession::finish() {
  auto handler = [this](int peer, const MsgHeader& h, Payload p) { on_message(peer, h, std::move(p)); };
  if (rank_ == 0) {
    conn_.accept_close();
    int left = world_ - 1;
    for (int r = 1; r < world_; ++r) conn_.send(r, MsgHeader{MsgType::Go, kFinal, 0}, {}, [&] { --left; });
    conn_.run_until([&] { return left == 0; }, handler, "telling the ranks to finish");
  } else {
    conn_.accept_close();
    conn_.run_until([&] { return finished_ || !conn_.is_open(0); }, handler, "waiting for rank 0 to finish");
    if (!finished_) throw ExecError(fmt::format("rank {}: rank 0 closed its connection before the end", rank_));
  }
}

}  // namespace collsim::exec
