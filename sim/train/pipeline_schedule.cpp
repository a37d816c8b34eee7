#include "sim/train/pipeline_schedule.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace collsim {

namespace {

PipelineOp op(bool forward, int chunk, int micro_batch) { return PipelineOp{forward, chunk, micro_batch, {}, {}}; }

// Megatron-LM's interleaved order (schedules.py, forward_backward_pipelining_with_interleaving):
// the k-th forward of a rank runs chunk (k mod pp v) / pp on micro-batch
// (k / (pp v)) pp + k mod pp; backwards walk the chunks from the last. Warm-up forwards:
// 2 (pp - r - 1) + (v - 1) pp, all of them when m = pp.
std::vector<PipelineOp> interleaved(int pp, int v, int m, int r) {
  const int total = m * v;
  auto forward_at = [&](int k) { return op(true, (k % (pp * v)) / pp, (k / (pp * v)) * pp + k % pp); };
  auto backward_at = [&](int k) { return op(false, v - 1 - (k % (pp * v)) / pp, (k / (pp * v)) * pp + k % pp); };
  const int warmup = m == pp ? total : std::min(total, 2 * (pp - r - 1) + (v - 1) * pp);
  std::vector<PipelineOp> out;
  int f = 0, b = 0;
  for (; f < warmup; ++f) out.push_back(forward_at(f));
  while (f < total) {
    out.push_back(forward_at(f++));
    out.push_back(backward_at(b++));
  }
  while (b < total) out.push_back(backward_at(b++));
  return out;
}

}  // namespace

std::vector<std::vector<PipelineOp>> pipeline_order(PipelineKind kind, int pp, int v, int m) {
  if (pp < 1 || v < 1 || m < 1) throw std::invalid_argument("pipeline: pp, v and m must be at least 1");
  if (kind != PipelineKind::Interleaved && v != 1) {
    throw std::invalid_argument(fmt::format("{} runs one model chunk per rank, not {}", to_string(kind), v));
  }
  if (kind == PipelineKind::Interleaved && m % pp != 0) {
    throw std::invalid_argument(fmt::format("interleaved 1F1B needs micro-batches ({}) a multiple of pp ({})", m, pp));
  }
  std::vector<std::vector<PipelineOp>> ranks(static_cast<std::size_t>(pp));
  for (int r = 0; r < pp; ++r) {
    auto& ops = ranks[static_cast<std::size_t>(r)];
    switch (kind) {
      case PipelineKind::GPipe:
        for (int i = 0; i < m; ++i) ops.push_back(op(true, 0, i));
        for (int i = 0; i < m; ++i) ops.push_back(op(false, 0, i));
        break;
      case PipelineKind::OneFOneB: {
        const int warmup = std::min(pp - r - 1, m);
        for (int i = 0; i < warmup; ++i) ops.push_back(op(true, 0, i));
        for (int i = 0; i + warmup < m; ++i) {
          ops.push_back(op(true, 0, i + warmup));
          ops.push_back(op(false, 0, i));
        }
        for (int i = std::max(0, m - warmup); i < m; ++i) ops.push_back(op(false, 0, i));
        break;
      }
      case PipelineKind::Interleaved:
        ops = interleaved(pp, v, m, r);
        break;
    }
  }
  return ranks;
}

double PipelineRun::bubble_fraction() const {
  if (makespan.ps <= 0 || busy.empty()) return 0.0;
  const Time most = *std::max_element(busy.begin(), busy.end());
  return 1.0 - static_cast<double>(most.ps) / static_cast<double>(makespan.ps);
}

PipelineRun play_pipeline(PipelineKind kind, const PipelineCosts& c) {
  const int pp = c.pp, v = c.virtual_stages, m = c.micro_batches;
  const int stages = pp * v;
  if (static_cast<int>(c.forward.size()) != stages || static_cast<int>(c.backward.size()) != stages ||
      static_cast<int>(c.p2p.size()) != pp - 1) {
    throw std::invalid_argument("pipeline costs: one forward and backward per virtual stage, pp - 1 p2p times");
  }
  PipelineRun run;
  run.ops = pipeline_order(kind, pp, v, m);
  // End times of every (direction, virtual stage, micro-batch); -1: not run yet.
  const auto idx = [&](bool fwd, int vs, int mb) {
    return (static_cast<std::size_t>(fwd ? 0 : 1) * static_cast<std::size_t>(stages) + static_cast<std::size_t>(vs)) *
               static_cast<std::size_t>(m) + static_cast<std::size_t>(mb);
  };
  std::vector<std::int64_t> done(2 * static_cast<std::size_t>(stages) * static_cast<std::size_t>(m), -1);
  // When the input of `o` on rank r is there, or -1 if not yet.
  const auto ready = [&](int r, const PipelineOp& o) -> std::int64_t {
    const int vs = o.chunk * pp + r;
    if (o.forward) {
      if (vs == 0) return 0;
      const std::int64_t t = done[idx(true, vs - 1, o.micro_batch)];
      return t < 0 ? -1 : t + c.hop(vs).ps;
    }
    if (vs == stages - 1) return done[idx(true, vs, o.micro_batch)];
    const std::int64_t t = done[idx(false, vs + 1, o.micro_batch)];
    return t < 0 ? -1 : t + c.hop(vs + 1).ps;
  };
  run.busy.assign(static_cast<std::size_t>(pp), Time{});
  run.last_backward_end.assign(static_cast<std::size_t>(pp), Time{});
  run.peak_in_flight.assign(static_cast<std::size_t>(pp), 0);
  std::vector<std::size_t> next(static_cast<std::size_t>(pp), 0);
  std::vector<std::int64_t> free_at(static_cast<std::size_t>(pp), 0);
  std::vector<int> in_flight(static_cast<std::size_t>(pp), 0);
  std::size_t remaining = 2 * static_cast<std::size_t>(stages) * static_cast<std::size_t>(m);
  while (remaining > 0) {
    bool progress = false;
    for (int r = 0; r < pp; ++r) {
      const auto ru = static_cast<std::size_t>(r);
      auto& ops = run.ops[ru];
      while (next[ru] < ops.size()) {
        PipelineOp& o = ops[next[ru]];
        const std::int64_t in = ready(r, o);
        if (in < 0) break;
        const int vs = o.chunk * pp + r;
        const Time cost = o.forward ? c.forward[static_cast<std::size_t>(vs)] : c.backward[static_cast<std::size_t>(vs)];
        o.start = Time{std::max(in, free_at[ru])};
        o.end = o.start + cost;
        free_at[ru] = o.end.ps;
        if (c.blocking_sends) {
          // The send that follows: forward to virtual stage vs + 1, backward to vs - 1.
          if (o.forward && vs + 1 < stages) free_at[ru] += c.hop(vs + 1).ps;
          if (!o.forward && vs > 0) free_at[ru] += c.hop(vs).ps;
        }
        done[idx(o.forward, vs, o.micro_batch)] = o.end.ps;
        run.busy[ru] = run.busy[ru] + cost;
        in_flight[ru] += o.forward ? 1 : -1;
        run.peak_in_flight[ru] = std::max(run.peak_in_flight[ru], in_flight[ru]);
        if (!o.forward) run.last_backward_end[ru] = o.end;
        run.makespan = std::max(run.makespan, o.end);
        ++next[ru];
        --remaining;
        progress = true;
      }
    }
    if (!progress) throw std::logic_error("pipeline schedule deadlocked (an operation waits on one never run)");
  }
  return run;
}

}  // namespace collsim
