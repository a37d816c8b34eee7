#include "sim/train/ddp_timeline.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace collsim {

namespace {

// One step of a bucket's communication on the communication stream: a collective of
// `bytes` (nccl-tests size), or, without `op`, a hook kernel of `work` run in sequence
// with the collectives (the 1-bit hook's server stage).
struct HookStep {
  std::optional<CollectiveOp> op;
  Bytes bytes;
  Time work;
};

// Wire traffic of one bucket under the hook: its steps, one after another, and the hook's
// own compute before launch (casts, PowerSGD matmuls, 1-bit compression) and after the
// result.
struct HookPlan {
  std::vector<HookStep> steps;
  Time before;
  Time after;

  void allreduce(Bytes b) { steps.push_back(HookStep{CollectiveOp::AllReduce, b, Time{}}); }
};

// DeepSpeed's compressed all-reduce (1-bit Adam and 1-bit LAMB, runtime/comm/nccl.py
// compressed_allreduce), on a bucket of `numel` elements of `elem` bytes over n ranks:
//  - worker: sign bits of (gradient + worker error), one scale (the norm) per worker, the
//    error updated: reads the gradient twice (scale, signs) and the error, writes the error
//    and the packed bits: numel (2 elem + 8) + numel / 8 bytes through HBM;
//  - an all-to-all of the packed bits (each rank gets its chunk from every rank) and an
//    all-gather of the n worker scales (4 B each);
//  - server, on its chunk c = numel / n: unpacks n chunks of bits (numel / 8 B read),
//    averages into fp32, adds and updates the server error, packs its signs: c x 16 +
//    numel / 8 + c / 8 bytes;
//  - all-gathers of the server bits (numel / 8 B gathered) and of the n server scales;
//  - decompress into the bucket: numel / 8 read, numel x elem written.
void onebit_plan(HookPlan& h, std::int64_t numel, std::int64_t elem, int n, const ComputeModel& cm) {
  const std::int64_t bits = (numel + 7) / 8;
  const std::int64_t chunk = (numel + n - 1) / n;
  const Bytes scales{4LL * n};
  h.before = cm.memory(Bytes{numel * (2 * elem + 8) + bits});
  h.steps = {{CollectiveOp::AllToAll, Bytes{bits}, Time{}},
             {CollectiveOp::AllGather, scales, Time{}},
             {std::nullopt, Bytes{}, cm.memory(Bytes{chunk * 16 + bits + (chunk + 7) / 8})},
             {CollectiveOp::AllGather, Bytes{bits}, Time{}},
             {CollectiveOp::AllGather, scales, Time{}}};
  h.after = cm.memory(Bytes{bits + numel * elem});
}

HookPlan plan_hook(const Workload& w, const Bucket& b, const ComputeModel& cm, const DdpOptions& o) {
  HookPlan h;
  const std::int64_t elem = element_size(b.dtype);
  switch (o.hook) {
    case CommHook::None:
      h.allreduce(b.bytes);
      break;
    case CommHook::OneBit:
      onebit_plan(h, b.numel, elem, std::max(1, o.world_size), cm);
      break;
    case CommHook::Fp16:
    case CommHook::Bf16: {
      // fp16_compress_hook: cast to 16 bits (read elem, write 2 B), divide in place (read
      // + write 2 B), all-reduce 2 B/elem, cast back into the bucket (read 2 B, write elem).
      h.allreduce(Bytes{b.numel * 2});
      h.before = cm.memory(Bytes{b.numel * (elem + 2 + 4)});
      h.after = cm.memory(Bytes{b.numel * (2 + elem)});
      break;
    }
    case CommHook::PowerSgd: {
      // powerSGD_hook (reference/pytorch-ddp.md 2.8): matrices n x m with
      // (n + m) r * 2 < n m are compressed to P (n x r) and Q (m x r), everything else is
      // all-reduced uncompressed in one batched buffer; each compressed matrix costs two
      // matmuls of 2 n m r FLOPs (P = M Q, Q = M^T P).
      std::int64_t uncompressed = 0, p = 0, q = 0;
      double flops = 0;
      for (std::size_t i : b.params) {
        const Parameter& par = w.parameters[i];
        if (par.shape.empty()) {
          throw ConfigError("", "hook", "powersgd", fmt::format("a workload whose parameters have shapes ({} has none)", par.name));
        }
        if (par.shape.size() == 1) {
          uncompressed += par.numel;
          continue;
        }
        const std::int64_t n = par.shape[0], m = par.numel / n;
        const std::int64_t r = std::min({n, m, static_cast<std::int64_t>(o.powersgd_rank)});
        if ((n + m) * r * 2 >= n * m) {
          uncompressed += par.numel;
        } else {
          p += n * r;
          q += m * r;
          flops += 4.0 * static_cast<double>(n * m * r);
        }
      }
      if (uncompressed > 0) h.allreduce(Bytes{uncompressed * elem});
      if (p > 0) h.allreduce(Bytes{p * elem});
      if (q > 0) h.allreduce(Bytes{q * elem});
      h.before = cm.flops(flops);
      break;
    }
  }
  return h;
}

class ProgramBuilder {
 public:
  ProgramBuilder(const Workload& w, const ComputeModel& cm, const CollectiveCostFn& cost, const DdpOptions& o,
                 const BucketPlan& plan)
      : w_(w), cm_(cm), cost_(cost), o_(o), plan_(plan), unused_(unused_parameters(w, o)) {}

  StreamProgram build(std::vector<BucketTiming>& buckets, std::vector<std::vector<std::size_t>>& bucket_comms,
                      std::vector<std::size_t>& ready_task) {
    buckets.resize(plan_.buckets.size());
    bucket_comms.resize(plan_.buckets.size());
    ready_task.assign(plan_.buckets.size(), 0);
    for (int m = 0; m < o_.accumulate; ++m) micro_step(m, m == o_.accumulate - 1, buckets, bucket_comms, ready_task);
    return std::move(p_);
  }

 private:
  std::size_t compute(std::string name, std::string category, Time work, std::vector<std::size_t> wait = {}) {
    p_.compute.push_back(ComputeTask{std::move(name), std::move(category), work, std::move(wait), {}, Time{}});
    return p_.compute.size() - 1;
  }

  std::size_t comm(std::string name, std::string category, CollectiveOp op, Bytes bytes, std::vector<std::size_t> after) {
    const Time work = cost_(op, bytes);  // before the slowdown: it reads this collective's prediction
    const double slowdown = o_.comm_interference ? o_.comm_interference(op, bytes) : 0.0;
    p_.comm.push_back(CommTask{std::move(name), std::move(category), work, std::move(after), {}, bytes, false, {}, Time{}, slowdown});
    return p_.comm.size() - 1;
  }

  // A hook kernel on the communication stream, in sequence with the bucket's collectives.
  std::size_t comm_kernel(std::string name, Time work, std::vector<std::size_t> after) {
    p_.comm.push_back(CommTask{std::move(name), "hook", work, std::move(after), {}, Bytes{}, false, {}, Time{}, 0.0});
    return p_.comm.size() - 1;
  }

  // Issues `c` when the last compute task so far finishes (or at time 0 if none yet).
  void issue_now(std::size_t c) {
    if (p_.compute.empty()) {
      p_.comm[c].issued_at_start = true;
    } else {
      p_.compute.back().issue.push_back(c);
    }
  }

  void micro_step(int m, bool sync, std::vector<BucketTiming>& bt, std::vector<std::vector<std::size_t>>& bc,
                  std::vector<std::size_t>& ready_task) {
    const std::string step = o_.accumulate > 1 ? fmt::format("[{}] ", m) : "";
    // Join.notify_join_context in DDP's _pre_forward: an int32 all-reduce of the ranks
    // still training, issued before anything else of the forward.
    std::optional<std::size_t> join;
    if (o_.join) {
      join = comm(step + "allreduce join signal", "allreduce", CollectiveOp::AllReduce, Bytes{4}, {});
      issue_now(*join);
    }
    // Buffers are broadcast before a forward whose previous forward synced (no_sync
    // clears require_forward_param_sync): every step when K = 1, else the first of K.
    std::vector<std::size_t> broadcasts;
    if (o_.broadcast_buffers && !w_.buffers.empty() && (o_.accumulate == 1 || m == 0)) {
      std::map<DType, std::int64_t> by_dtype;
      for (const auto& b : w_.buffers) by_dtype[b.dtype] += b.numel * element_size(b.dtype);
      for (const auto& [dtype, bytes] : by_dtype) {
        for (std::int64_t off = 0; off < bytes; off += kBroadcastCoalescedBytes) {
          const Bytes chunk{std::min(kBroadcastCoalescedBytes, bytes - off)};
          const auto c = comm(fmt::format("{}broadcast buffers {}", step, to_string(dtype)), "broadcast",
                              CollectiveOp::Broadcast, chunk, {});
          issue_now(c);
          broadcasts.push_back(c);
        }
      }
    }
    bool first_forward = true;
    for (const Layer& l : w_.layers) {
      if (skipped(l)) continue;
      compute(step + "fwd " + l.name, "forward", cm_.forward(l), first_forward ? broadcasts : std::vector<std::size_t>{});
      first_forward = false;
    }
    if (!sync) {
      for (auto l = w_.layers.rbegin(); l != w_.layers.rend(); ++l) {
        if (!skipped(*l)) compute(step + "bwd " + l->name, "backward", cm_.backward(*l));
      }
      return;
    }
    if (o_.buckets.find_unused_parameters && o_.graph_walk.ps > 0) compute(step + "find unused parameters", "graph_walk", o_.graph_walk);

    const auto& buckets = plan_.buckets;
    std::vector<std::size_t> bucket_of(w_.parameters.size(), 0), pending(buckets.size(), 0);
    for (std::size_t b = 0; b < buckets.size(); ++b) {
      for (std::size_t i : buckets[b].params) bucket_of[i] = b;
      pending[b] = buckets[b].params.size();
    }
    std::size_t next_bucket = 0;
    bool waited_join = false;
    // Copy-in: no hook multiplies by 1/world into the bucket (read grad + write bucket);
    // gradient_as_bucket_view makes that an in-place divide (same traffic); with a hook
    // the reducer only copies (no copy at all once the grad is a bucket view).
    const bool copy_in = !(o_.gradient_as_bucket_view && o_.hook != CommHook::None);
    bool marked_unused = false;
    const auto ready = [&](std::size_t i) {
      const std::size_t b = bucket_of[i];
      if (--pending[b] == 0) ready_task[b] = p_.compute.size() - 1;
    };
    for (auto l = w_.layers.rbegin(); l != w_.layers.rend(); ++l) {
      if (skipped(*l)) continue;
      compute(step + "bwd " + l->name, "backward", cm_.backward(*l));
      for (std::size_t i : l->params) {
        if (unused_[i]) continue;
        // The first gradient's hook marks every unused parameter ready before its own,
        // zero-filling its slot of the bucket (a write of its bytes; reducer.cpp
        // autograd_hook, has_marked_unused_parameters_).
        if (!marked_unused) {
          marked_unused = true;
          for (std::size_t u = 0; u < unused_.size(); ++u) {
            if (!unused_[u]) continue;
            compute(step + "zero unused " + w_.parameters[u].name, "copy_in", cm_.memory(w_.parameters[u].bytes()));
            ready(u);
          }
        }
        const Parameter& par = w_.parameters[i];
        if (copy_in) {
          std::vector<std::size_t> wait;
          if (join && !waited_join) wait.push_back(*join);  // the first gradient waits for the join signal
          waited_join = waited_join || join.has_value();
          compute(step + "copy_in " + par.name, "copy_in", cm_.memory(par.bytes() * 2), wait);
        }
        ready(i);
        // In-order launch: bucket k goes only when 0..k-1 have gone.
        while (o_.overlap && next_bucket < buckets.size() && pending[next_bucket] == 0) launch(next_bucket++, step, bt, bc);
      }
    }
    while (next_bucket < buckets.size()) launch(next_bucket++, step, bt, bc);
    if (o_.buckets.find_unused_parameters && !o_.buckets.static_graph) {
      // The int32 local_used_map all-reduce after the last bucket (waited only lazily).
      issue_now(comm(step + "allreduce local_used_map", "allreduce", CollectiveOp::AllReduce,
                     Bytes{static_cast<std::int64_t>(w_.parameters.size()) * 4}, {}));
    }
    // finalize_backward: wait each bucket in order, decompress, copy back into .grad.
    for (std::size_t b = 0; b < buckets.size(); ++b) {
      const HookPlan h = plan_hook(w_, buckets[b], cm_, o_);
      std::vector<std::size_t> wait = {bc[b].back()};
      if (h.after.ps > 0) {
        compute(fmt::format("{}hook decompress bucket {}", step, b), "hook", h.after, wait);
        wait.clear();
      }
      const Time out = o_.gradient_as_bucket_view ? Time{} : cm_.memory(buckets[b].bytes * 2);
      compute(fmt::format("{}copy_out bucket {}", step, b), "copy_out", out, wait);
    }
    compute(step + "optimizer", "optimizer", cm_.optimizer(w_));
  }

  void launch(std::size_t b, const std::string& step, std::vector<BucketTiming>& bt, std::vector<std::vector<std::size_t>>& bc) {
    const Bucket& bucket = plan_.buckets[b];
    const HookPlan h = plan_hook(w_, bucket, cm_, o_);
    if (h.before.ps > 0) compute(fmt::format("{}hook compress bucket {}", step, b), "hook", h.before);
    bt[b].index = b;
    bt[b].params = bucket.params.size();
    bt[b].bytes = bucket.bytes;
    int collectives = 0;
    for (std::size_t k = 0; k < h.steps.size(); ++k) {
      const HookStep& st = h.steps[k];
      std::string name;
      if (!st.op) {
        name = fmt::format("{}hook server bucket {}", step, b);
      } else if (h.steps.size() == 1) {
        name = fmt::format("{}{} bucket {}", step, to_string(*st.op), b);
      } else {
        name = fmt::format("{}{} bucket {} part {}", step, to_string(*st.op), b, k);
      }
      // A hook's steps run one after another (each needs the previous result).
      std::vector<std::size_t> after;
      if (k > 0) after.push_back(bc[b].back());
      std::size_t c = 0;
      if (st.op) {
        c = comm(name, std::string(to_string(*st.op)), *st.op, st.bytes, after);
        bt[b].wire_bytes += st.bytes;
        ++collectives;
      } else {
        c = comm_kernel(name, st.work, after);
      }
      p_.comm[c].bucket = b;
      issue_now(c);
      bc[b].push_back(c);
    }
    bt[b].collectives = collectives;
  }

  const Workload& w_;
  const ComputeModel& cm_;
  const CollectiveCostFn& cost_;
  const DdpOptions& o_;
  const BucketPlan& plan_;
  std::vector<bool> unused_;  // per parameter, in this step
  StreamProgram p_;

  // A layer none of whose parameters gets a gradient this step did not run.
  [[nodiscard]] bool skipped(const Layer& l) const {
    return !l.params.empty() && std::all_of(l.params.begin(), l.params.end(), [&](std::size_t i) { return unused_[i]; });
  }
};

}  // namespace

std::vector<bool> unused_parameters(const Workload& w, const DdpOptions& o) {
  const std::int64_t step = o.first_iteration ? 0 : o.step;
  std::vector<bool> unused(w.parameters.size(), false);
  std::size_t count = 0;
  for (std::size_t i = 0; i < w.parameters.size(); ++i) {
    const Parameter& p = w.parameters[i];
    if (!p.unused_in(step)) continue;
    unused[i] = true;
    ++count;
    if (!o.buckets.find_unused_parameters) {
      throw ConfigError("", "find_unused_parameters", "false",
                        fmt::format("true: {} is unused in step {} (PyTorch's reducer stops with \"Expected to have finished "
                                    "reduction in the prior iteration\")",
                                    p.name, step));
    }
    if (o.buckets.static_graph && !p.unused_in_every_step) {
      throw ConfigError("", "static_graph", "true",
                        fmt::format("the same unused parameters every step (\"unused_in_steps\": \"all\"); {} is unused "
                                    "in some steps only",
                                    p.name));
    }
  }
  if (count > 0 && count == w.parameters.size()) {
    throw ConfigError("", "unused_in_steps", std::to_string(step), "a step that uses at least one parameter");
  }
  return unused;
}

OneBitRun onebit_run(int warmup_steps, int steps, Time warmup_iteration, Time compressed_iteration) {
  OneBitRun r{warmup_steps, warmup_iteration, compressed_iteration, steps, Time{}};
  if (steps > 0) {
    const std::int64_t warm = std::min(warmup_steps, steps);
    const std::int64_t compressed = steps - warm;
    // In doubles first: the clock's range holds one step, not always K of them.
    const double total = static_cast<double>(warm) * static_cast<double>(warmup_iteration.ps) +
                         static_cast<double>(compressed) * static_cast<double>(compressed_iteration.ps);
    r.mean_iteration = Time{static_cast<std::int64_t>(total / steps)};
  }
  return r;
}

void check_cuda_graph(const DdpOptions& o) {
  if (!o.host.cuda_graph) return;
  const auto refuse = [](const char* expected) { throw ConfigError("", "cuda_graph", "true", expected); };
  if (o.first_iteration) refuse("a steady-state step (graph capture follows eager warm-up iterations, never iteration 0)");
  if (o.backend != DdpBackend::Nccl) refuse("the nccl backend (Gloo's collectives run on CPU threads, outside a CUDA graph)");
  if (o.buckets.find_unused_parameters && !o.buckets.static_graph) {
    refuse("a static graph: find_unused_parameters walks the autograd graph on the CPU every step unless static_graph");
  }
}

BucketPlan ddp_bucket_plan(const Workload& w, const DdpOptions& o) {
  return o.first_iteration ? construction_buckets(w, o.buckets) : rebuilt_buckets(w, w.grad_ready_order(), o.buckets);
}

DdpResult simulate_ddp(const Workload& w, const ComputeModel& cm, const CollectiveCostFn& cost, const DdpOptions& o) {
  return simulate_ddp(w, cm, cost, o, ddp_bucket_plan(w, o));
}

DdpResult simulate_ddp(const Workload& w, const ComputeModel& cm, const CollectiveCostFn& cost, const DdpOptions& o,
                       const BucketPlan& plan) {
  if (o.accumulate < 1) throw ConfigError("", "accumulate", std::to_string(o.accumulate), "a step count >= 1");
  check_cuda_graph(o);
  DdpResult r;
  r.accumulate = o.accumulate;
  r.plan = plan;
  DdpOptions eff = o;
  // static_graph's iteration 0 delays every all-reduce to the end of backward.
  if (o.first_iteration && o.buckets.static_graph) eff.overlap = false;
  std::vector<std::vector<std::size_t>> bucket_comms;
  std::vector<std::size_t> ready_task;
  r.program = ProgramBuilder(w, cm, cost, eff, r.plan).build(r.buckets, bucket_comms, ready_task);
  assign_launch_costs(r.program, o.host);
  StreamOptions so;
  so.comm_concurrency = o.backend == DdpBackend::Gloo ? 2 : 1;
  so.compute_slowdown = o.compute_slowdown;
  r.timeline = play_streams(r.program, so);
  r.host_launch = r.timeline.host.total;
  for (std::size_t b = 0; b < r.buckets.size(); ++b) {
    auto& bt = r.buckets[b];
    bt.ready = r.timeline.compute[ready_task[b]].end;
    bt.launched = r.timeline.comm_issued[bucket_comms[b].front()];
    bt.start = r.timeline.comm[bucket_comms[b].front()].start;
    bt.end = r.timeline.comm[bucket_comms[b].back()].end;
  }
  const StreamTotals totals = stream_totals(r.program, r.timeline);
  r.forward = totals.compute("forward");
  r.backward = totals.compute("backward");
  r.copies = totals.compute("copy_in") + totals.compute("copy_out");
  r.hook_compute = totals.compute("hook");
  r.optimizer = totals.compute("optimizer");
  r.other_compute = totals.compute_busy - r.forward - r.backward - r.copies - r.hook_compute - r.optimizer;
  r.comm_total = totals.comm_total;
  r.comm_busy = totals.comm_busy;
  r.iteration = totals.end;
  r.exposed_comm = totals.exposed_comm;
  r.host_wait = totals.host_wait;
  r.overlap_percent = totals.overlap_percent;
  return r;
}

}  // namespace collsim
