#include "sim/report/llm_trace.hpp"

#include <fmt/format.h>

#include "sim/report/chrome_trace.hpp"

namespace collsim {

void write_llm_trace(std::ostream& out, const LlmStep& step, const LlmTraining& training, const std::string& title) {
  const PipelineCosts& c = step.pipeline_costs;
  const int pp = c.pp, stages = c.pp * c.virtual_stages;
  const Time optimizer_end = step.last_reduce_end + step.optimizer;
  ChromeTrace trace;
  for (int r = 0; r < pp; ++r) {
    const auto ru = static_cast<std::size_t>(r);
    const LlmStageCost& sc = step.stages[ru];
    const int pid = trace.add_process(fmt::format("{}: pipeline stage {}", title, r));
    const int compute = trace.add_track(pid, "compute stream");
    const int sends = trace.add_track(pid, "pipeline sends");
    const int dp = trace.add_track(pid, "data-parallel stream");
    // The per-micro-batch shares of one operation (all of the rank's chunks together in
    // sc; split evenly over its chunks).
    const double chunks = c.virtual_stages;
    for (const PipelineOp& o : step.run.ops[ru]) {
      const int vs = o.chunk * pp + r;
      nlohmann::ordered_json args{{"micro_batch", o.micro_batch}, {"chunk", o.chunk}, {"virtual_stage", vs}};
      const Time tp = o.forward ? sc.tp_forward : sc.tp_backward;
      const Time ep = o.forward ? sc.ep_forward : sc.ep_backward;
      args["tp_comm_us"] = tp.us() / chunks;
      args["ep_comm_us"] = ep.us() / chunks;
      if (!o.forward) args["recompute_us"] = sc.recompute.us() / chunks;
      trace.add_slice(compute, fmt::format("{} mb{} c{}", o.forward ? "F" : "B", o.micro_batch, o.chunk),
                      o.forward ? "forward" : "backward", o.start, o.end, std::move(args));
      if (!c.blocking_sends) continue;
      if (o.forward && vs + 1 < stages) {
        trace.add_slice(sends, fmt::format("send activation mb{}", o.micro_batch), "p2p", o.end, o.end + c.hop(vs + 1));
      }
      if (!o.forward && vs > 0) {
        trace.add_slice(sends, fmt::format("send gradient mb{}", o.micro_batch), "p2p", o.end, o.end + c.hop(vs));
      }
    }
    if (sc.dp_reduce.ps > 0) {
      trace.add_slice(dp, training.distributed_optimizer ? "gradient reduce-scatter" : "gradient all-reduce", "dp",
                      sc.dp_start, sc.dp_start + sc.dp_reduce, {{"exposed_us", sc.dp_exposed.us()}});
    }
    if (step.optimizer.ps > 0) trace.add_slice(compute, "optimizer", "optimizer", step.last_reduce_end, optimizer_end);
    if (step.offload.ps > 0 && training.overlap_offload) {
      trace.add_slice(dp, "offload (gradients down, CPU Adam, weights up, pipelined)", "offload", step.last_reduce_end,
                      step.last_reduce_end + step.offload);
    } else if (step.offload.ps > 0) {
      const Time cpu_start = step.last_reduce_end + step.offload_down, up_start = cpu_start + step.offload_cpu;
      trace.add_slice(dp, "gradients to host (PCIe)", "offload", step.last_reduce_end, cpu_start);
      trace.add_slice(dp, "Adam on the CPU", "offload", cpu_start, up_start);
      trace.add_slice(dp, "weights to GPU (PCIe)", "offload", up_start, up_start + step.offload_up);
    }
    const Time gather_start = optimizer_end + step.offload;
    if (step.param_gather.ps > 0) {
      trace.add_slice(dp, "parameter all-gather", "dp", gather_start, gather_start + step.param_gather);
    }
  }
  trace.write(out);
}

}  // namespace collsim
