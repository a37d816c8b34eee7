#include "sim/coll/cost_model.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <span>
#include <vector>

#include <fmt/format.h>

#include "sim/algo/collnet.hpp"
#include "sim/algo/host_groups.hpp"
#include "sim/algo/pat.hpp"
#include "sim/algo/registry.hpp"
#include "sim/coll/collnet_cost.hpp"
#include "sim/coll/nccl/path_type.hpp"
#include "sim/coll/nccl/speed_lists.hpp"
#include "sim/coll/nccl_env.hpp"

namespace collsim {

LinkClass nccl_intra_class(const TopologyFacts& facts, const NcclGraph* graph) {
  const bool nvlink = graph ? graph->type_intra == PathType::Nvl : facts.nvlink.bytes_per_s > 0;
  return nvlink ? LinkClass::NvLink : LinkClass::Pci;
}

namespace {

std::size_t node_column(int hosts) { return hosts <= 1 ? 0 : hosts == 2 ? 1 : 2; }

// NCCL's PAT in tuning.cc: its busBw x 0.75; latency baseLat + log2(nNodes) x interLat /
// 3.5 + 2.8 us x nRanks.
constexpr double kPatEfficiency = 0.75;
constexpr double kPatStepDivisor = 3.5;
constexpr double kPatPerRankUs = 2.8;

}  // namespace

std::int64_t nccl_halve_chunk(std::int64_t chunk, Bytes size, int channels, double want, std::int64_t floor) {
  while (static_cast<double>(size.count / (static_cast<std::int64_t>(channels) * chunk)) < want && chunk > floor) {
    chunk /= 2;
  }
  return chunk;
}

GpuArch model_arch(const TopologyFacts& facts) { return facts.arch.value_or(GpuArch::Hopper); }

std::optional<std::string> ll128_off_by_default(const TopologyFacts& facts, const NcclGraph* graph) {
  if (facts.gpu == nullptr) return std::nullopt;
  const int sm = facts.gpu->compute_capability.sm();
  // Called for every LL128 candidate of every prediction: the message is built only when
  // the rule turns LL128 off.
  auto off = [](std::string_view reason) {
    return fmt::format("ll128 is off by default here (NCCL enables it only between GPUs of one compute "
                       "capability, SM 7.0, 8.0, 9.0, 10.0 or 12.0, over NVLink inside hosts; NCCL_PROTO "
                       "naming LL128 forces it): {}",
                       reason);
  };
  if (facts.mixed_compute) return off("the ranks' GPUs differ in compute capability");
  if (sm != 70 && sm != 80 && sm != 90 && sm != 100 && sm != 120) {
    return off(fmt::format("{} is SM {}.{}", facts.gpu->name, sm / 10, sm % 10));
  }
  if (graph == nullptr) {  // no channel graph: the ranks' own NVLink stands for the intra path
    if (facts.nvlink.bytes_per_s > 0) return std::nullopt;
    return off("no NVLink between the ranks");
  }
  if (graph->type_intra > PathType::Nvb) {
    return off(fmt::format("paths inside a host are {}", to_string(graph->type_intra)));
  }
  const PathType most = sm >= 90 ? PathType::Pxn : PathType::Pxb;
  if (graph->hosts > 1 && graph->type_inter > most) {
    return off(fmt::format("GPU-to-NIC paths are {}", to_string(graph->type_inter)));
  }
  return std::nullopt;
}

ChannelPlan search_channels(const TopologyFacts& facts, const ProtocolModel& model) {
  const GpuArch arch = model_arch(facts);
  const double bw = facts.injection.gb_per_s();
  const auto speeds = nccl_speed_list(arch, facts.hosts <= 1);
  // The largest listed speed that fits; below the list, the link itself.
  double speed = bw;
  for (double s : speeds) {
    if (s <= bw) {
      speed = s;
      break;
    }
  }
  const int half_max = model.max_channels / 2;
  ChannelPlan plan;
  plan.channels = std::clamp(speed > 0 ? static_cast<int>(std::floor(bw / speed + 1e-9)) : 1, 1, half_max);
  // ncclTopoDupChannels: double the channels at half speed unless speed < 25 GB/s, or
  // (newer than Ampere) speed < 50 GB/s with more than 4 channels.
  const bool dup = speed >= 25 && !(arch > GpuArch::Ampere && speed < 50 && plan.channels > 4);
  if (dup) {
    plan.channels = std::min(plan.channels * 2, model.max_channels);
    speed /= 2;
  }
  plan.per_channel = Bandwidth::gb_per_s(speed);
  if (model.channels) plan.channels = *model.channels;
  if (model.channel_bandwidth) plan.per_channel = *model.channel_bandwidth;
  return plan;
}

std::size_t nccl_ll_cpu_row(const CommCpu& cpu) {
  return cpu.known && (cpu.mixed_vendor || cpu.vendor == CpuVendor::Amd) ? 1 : 0;
}

int channels_for_size(int channels, Bytes size, Protocol p, NcclRow row, int ranks, const ProtocolModel& model) {
  const int pi = nccl_index(p);
  if (pi < 0) return channels;
  const auto i = static_cast<std::size_t>(pi);
  std::int64_t threshold = model.bytes_per_thread[i];
  if (p == Protocol::LL && row == NcclRow::Ring) threshold *= ranks;
  int nc = channels;
  while (nc > 1 && size.count < static_cast<std::int64_t>(nc) * model.threads[i] * threshold) --nc;
  return nc;
}

namespace {

// NCCL's ring latency for all-reduce, all-gather and reduce-scatter (tuning.cc), without
// baseLat: (steps - netSteps) x intraLat + netSteps x interLat, with steps = 2 (n - 1)
// (n - 1 for the gathers), netSteps = 2 (nodes - 1) (nodes - 1), intraLat of intra_class.
// Across hosts intraLat is at least the network's per-step post overhead ("inter-node
// rings still have to launch nsteps x net overhead"): getNetOverhead's 2 us on AMD x86
// hosts, 1 us on every other (and where the topology names no CPU), x 3 for Simple.
struct RingLatency {
  double total_us = 0;
  int steps = 0;
};
std::optional<RingLatency> nccl_ring_latency(const TopologyFacts& facts, const Collective& c, const StepCost& step,
                                             bool simple, const NcclGraph* graph) {
  if (c.op != CollectiveOp::AllReduce && c.op != CollectiveOp::AllGather && c.op != CollectiveOp::ReduceScatter) {
    return std::nullopt;
  }
  const int nodes = std::max(1, facts.hosts);
  double intra = step.step_latency[static_cast<std::size_t>(nccl_intra_class(facts, graph))].us();
  if (nodes > 1) intra = std::max(intra, (facts.cpu.amd() ? 2.0 : 1.0) * (simple ? 3 : 1));
  const double inter = step.step_latency[static_cast<std::size_t>(LinkClass::Net)].us();
  const int factor = c.op == CollectiveOp::AllReduce ? 2 : 1;
  const int steps = factor * (c.ranks - 1), net_steps = factor * (nodes - 1);
  return RingLatency{(steps - net_steps) * intra + net_steps * inter, steps};
}

}  // namespace

CollectiveCost collective_cost(const TopologyFacts& facts, const Collective& c, std::string_view algo, Protocol p,
                               const ProtocolModel& model, const CostOverrides& user, const NcclGraph* graph) {
  CollectiveCost cost;
  cost.options.host_of_rank = facts.host_of_rank;
  const NcclRow row = nccl_row(algo);
  const GpuArch arch = model_arch(facts);
  if (!supports(algo, c.op)) {
    cost.unusable = fmt::format("{} does not implement {}", algo, to_string(c.op));
    return cost;
  }
  if (needs_even_hosts(algo) && !group_by_host(c.ranks, facts.host_of_rank).even()) {
    cost.unusable = fmt::format("{} needs the same number of ranks on every host", algo);
    return cost;
  }
  const bool nvls_row = row == NcclRow::Nvls || row == NcclRow::NvlsTree;
  if (nvls_row && !model.nvls_enabled) {
    cost.unusable = fmt::format("{} is off (NCCL_NVLS_ENABLE=0)", algo);
    return cost;
  }
  const NcclAlgorithm counterpart = nccl_counterpart(algo);
  const bool nvls_tree = counterpart == NcclAlgorithm::NvlsTree;
  // NCCL's NVLS channels (NCCL_NVLS_NCHANNELS): NVLSTree's chunking and its per-channel caps.
  const int nvls_channels = model.nvls_channels[static_cast<std::size_t>(arch)];
  if (nvls_tree && (facts.hosts < 2 || !facts.nvswitch || arch < GpuArch::Hopper)) {
    cost.unusable = "nvls_tree needs several hosts of NVSwitch GPUs, Hopper or newer (one host: nvls)";
    return cost;
  }
  const bool pat = counterpart == NcclAlgorithm::Pat;
  if (pat && c.ranks > 1 && !facts.one_rank_per_host) {
    cost.unusable = "pat needs one rank per host (NCCL's PAT runs only with one GPU per node)";
    return cost;
  }
  if (pat && !pat_schedule_fits(c.ranks)) {
    cost.unusable = fmt::format("pat's schedule on {} ranks ({} transfers) passes the schedule memory limit", c.ranks,
                                pat_transfers(c.ranks));
    return cost;
  }
  // nvls.cc (ncclNvlsInit): no NVLS with two GPUs or fewer on a node.
  if (nvls_row && facts.max_ranks_per_host <= 2) {
    cost.unusable = fmt::format("{} needs more than 2 GPUs per host (NCCL enables NVLS only above 2)", algo);
    return cost;
  }
  // `sharp` is a flat in-network reduction: each rank's contribution up to the switch, the
  // sum multicast down. It models SHARP where the ranks are hosts on one switch; NCCL's
  // CollNet over GPU hosts and fabrics of several switches is collnet_direct / collnet_chain.
  const bool collnet = row == NcclRow::CollNet || row == NcclRow::CollNetChain;
  const bool sharp_trees = lays_sharp_trees(algo);
  if (collnet && !sharp_trees && c.ranks > 1 && !facts.one_switch_star) {
    cost.unusable = fmt::format(
        "sharp models SHARP only where every rank is a host on one network switch (a star of hosts); these ranks "
        "reach the switch through other nodes (GPUs, PCIe, NICs) or through several switches: NCCL's CollNet "
        "through GPU hosts' NICs is {} / {}",
        kCollNetDirectAlgorithm.name, kCollNetChainAlgorithm.name);
    return cost;
  }
  if (sharp_trees) {
    if (auto why = collnet_unusable(facts, algo, row == NcclRow::CollNet, p, graph)) {
      cost.unusable = std::move(why);
      return cost;
    }
  }
  if ((nvls_row || collnet || pat) && p != Protocol::Simple && p != Protocol::Ideal) {
    cost.unusable = fmt::format("{} runs only with the simple protocol", algo);
    return cost;
  }
  if (row == NcclRow::Nvls && (facts.hosts > 1 || !facts.nvswitch || arch < GpuArch::Hopper)) {
    cost.unusable = "nvls needs every rank on one host's NVSwitch and Hopper or newer GPUs";
    return cost;
  }
  if (p == Protocol::LL128 && !facts.arch) {
    // NCCL enables LL128 only between GPUs whose paths keep 128-byte stores in order.
    cost.unusable = "ll128 needs GPU ranks (the topology names no GPU model)";
    return cost;
  }
  const bool nccl_protocol = p != Protocol::Ideal;
  const bool nccl_algo = counterpart == NcclAlgorithm::Ring || counterpart == NcclAlgorithm::Tree;
  // NCCL's channel graph decides ring and tree channels; a calibration's channels /
  // channel_bandwidth still replace its figures.
  const bool use_graph = graph != nullptr && nccl_protocol && (nccl_algo || pat);
  ChannelPlan plan = search_channels(facts, model);
  if (use_graph) {
    plan.channels = model.channels.value_or(graph->channels);
    // Trees on two hosts run at the tree graph's raised bwIntra (tuning.cc: bwIntra when
    // nNodes <= 2, else bwInter); their NIC legs stay limited by the links themselves.
    // PAT prices its channels by the tree graph as well (tuning.cc: graphs[PAT] = treeGraph).
    const double speed = (row == NcclRow::Tree || pat) && facts.hosts == 2 ? graph->tree_speed_gbps : graph->speed_gbps;
    plan.per_channel = model.channel_bandwidth.value_or(Bandwidth::gb_per_s(speed));
  }
  // NCCL_MAX_NCHANNELS / NCCL_MIN_NCHANNELS change the channels run, not the busBw the
  // tuning model computes from the search (connect.cc vs tuning.cc).
  int channels = user.channels > 0 ? user.channels : nccl_protocol ? nccl_run_channels(plan.channels, model) : 1;
  if (nccl_protocol && user.channels == 0) channels = channels_for_size(channels, c.size, p, row, c.ranks, model);
  cost.channels = channels;
  cost.options.channels = channels;
  if (use_graph && nccl_algo) {
    // Duplicated channels repeat the searched ones, so the searched orders suffice (and
    // let the tree put both of its trees on every searched channel).
    const int distinct = std::min(channels, graph->searched_channels);
    for (int ch = 0; ch < distinct; ++ch) cost.options.channel_orders.push_back(graph->rank_order(ch));
  }
  // `ideal` is the pure alpha-beta model: whole chunks, no pipeline slices (unless
  // --slice asks for them), so its predictions match the textbook formulas and SimGrid.
  cost.options.slice_bytes = user.slice.count > 0 ? user.slice
                             : nccl_protocol      ? model.slice[static_cast<std::size_t>(nccl_index(p))]
                                                  : Bytes{0};
  if (p == Protocol::LL && (row == NcclRow::Tree || row == NcclRow::Ring) && user.slice.count == 0) {
    // LL forwards line by line: each of the block's threads waits for its 16-byte line's
    // flag, then reduces it and stores it to the next peer (prims_ll.h), so a hop passes
    // data on after one sweep of nthreads x 8 B (4 KiB at 512 threads), not after a whole
    // 32 KiB step: the replay's pipeline slice is that sweep (NCCL's own minChunkSize for
    // LL, all_reduce.h), coarsened to at most 256 slices per channel's chunk to bound the
    // replay's work (the pipeline's fill then errs by at most depth / 256 of the chunk).
    const std::int64_t grain = std::int64_t{model.threads[static_cast<std::size_t>(nccl_index(p))]} * 8;
    const std::int64_t per_channel = c.size.count / std::max(1, channels) / (row == NcclRow::Ring ? std::max(1, c.ranks) : 1);
    const std::int64_t step = cost.options.slice_bytes.count;
    cost.options.slice_bytes = Bytes{std::clamp((per_channel + 255) / 256, std::min(grain, step), step)};
  }
  if (row == NcclRow::Tree && p == Protocol::Simple && user.slice.count == 0) {
    // NCCL (enqueue.cc, tree up/down pattern) halves the tree chunk until every channel
    // has about 8 x depth of them, so the pipeline fills quickly.
    const int depth = facts.max_ranks_per_host - 1 +
                      (facts.hosts > 1 ? static_cast<int>(std::floor(std::log2(facts.hosts))) + 1 : 0);
    std::int64_t chunk = cost.options.slice_bytes.count;
    chunk = nccl_halve_chunk(chunk, c.size, channels, depth * 8, 131072);
    chunk = nccl_halve_chunk(chunk, c.size, channels, depth * 4, 65536);
    chunk = nccl_halve_chunk(chunk, c.size, channels, depth, 32768);
    cost.options.slice_bytes = Bytes{chunk};
  }
  if (row == NcclRow::Tree && p == Protocol::LL128 && user.slice.count == 0) {
    // NCCL since 2.7 (enqueue.cc, tree with LL128): halve the chunk while a channel has fewer
    // than nsteps x 64 / ppn of them (down to 128 KiB), then nsteps x 16 / ppn (down to
    // 32 KiB), nsteps = 1 + log2(nodes) + 0.1 x ppn: a deep chain fills its pipeline.
    const double ppn = static_cast<double>(c.ranks) / std::max(1, facts.hosts);
    const double nsteps = 1 + std::floor(std::log2(std::max(1, facts.hosts))) + 0.1 * ppn;
    std::int64_t chunk = cost.options.slice_bytes.count;
    chunk = nccl_halve_chunk(chunk, c.size, channels, nsteps * 64 / ppn, 131072);
    chunk = nccl_halve_chunk(chunk, c.size, channels, nsteps * 16 / ppn, 32768);
    cost.options.slice_bytes = Bytes{chunk};
  }
  if (nvls_tree && user.slice.count == 0) {
    // NCCL (enqueue.cc calcCollChunking, NVLSTree): NCCL_NVLS_CHUNKSIZE (128 KiB), capped by
    // NCCL_NVLSTREE_MAX_CHUNKSIZE, whose default (-2) means 64 KiB on 4 nodes or more; then
    // 64 KiB below 4 x and 32 KiB below 1 x (channels x heads) x the chunk, so small buffers
    // still pipeline.
    const int channels_used = std::max(1, nvls_channels);
    const int ops = channels_used * std::max(1, facts.max_ranks_per_host);
    std::int64_t chunk = facts.hosts >= 4 ? 65536 : 131072;
    chunk = nccl_halve_chunk(chunk, c.size, ops, 4, 65536);
    chunk = nccl_halve_chunk(chunk, c.size, ops, 1, 32768);
    // The schedule's stream for (block, tree) stands for all the channels on that tree
    // (connect.cc connectNvls: channel c climbs tree c % 2), each moving its own chunk of
    // the block through scatter, reduce, network and multicast as one step (the kernel's
    // ProtoSimple<1, 1>, all_reduce.h): side by side, in step. So the stream's slice is
    // the chunk times the tree's channels, and the pipeline fills and drains at a chunk
    // per channel's share of the bandwidth, not per the whole stream's.
    cost.options.slice_bytes = Bytes{chunk * ((channels_used + 1) / 2)};
  }
  if (sharp_trees) set_collnet_channels(facts, c, row == NcclRow::CollNet, model, user, *graph, cost);
  if (!nccl_protocol) return cost;  // ideal: route latency, payload bytes, no cap

  const auto pi = static_cast<std::size_t>(nccl_index(p));
  const auto ri = static_cast<std::size_t>(row);
  const auto ai = static_cast<std::size_t>(arch);
  const std::size_t col = node_column(facts.hosts);
  cost.base_latency = model.base_latency[ri][pi];
  cost.step.protocol_latency = true;
  for (std::size_t k = 0; k < kLinkClasses; ++k) cost.step.step_latency[k] = model.step_latency[k][ri][pi];
  // tuning.cc: on POWER hosts Tree/Simple's PCI step is priced as Ring/Simple's ("to favor
  // Tree than Ring").
  if (facts.cpu.power() && row == NcclRow::Tree && p == Protocol::Simple) {
    const auto pci = static_cast<std::size_t>(LinkClass::Pci);
    cost.step.step_latency[pci] = model.step_latency[pci][static_cast<std::size_t>(NcclRow::Ring)][pi];
  }
  // One rank per node: "latencies fully exposed", NCCL prices network steps with Tree's.
  if (facts.one_rank_per_host && facts.hosts > 1) {
    const auto net = static_cast<std::size_t>(LinkClass::Net);
    cost.step.step_latency[net] = model.step_latency[net][static_cast<std::size_t>(NcclRow::Tree)][pi];
  }
  // The NICs' plugin latency (NCCL's graph->latencyInter) on every network step, and once
  // more for Simple, "the flush extra latency" (tuning.cc).
  if (facts.hosts > 1 && facts.net_latency > Time{}) {
    const auto net = static_cast<std::size_t>(LinkClass::Net);
    cost.step.step_latency[net] += facts.net_latency;
    if (p == Protocol::Simple) cost.step.step_latency[net] += facts.net_latency;
  }
  // A ring across hosts: NCCL prices its latency as the sum over its steps above, each
  // hop at its own class. The replay orders a rank's sends on one connection (step k after
  // step k - 1), so a step priced by its route would make the rank before a network hop
  // pay interLat on every one of its steps, where NCCL's sender keeps up to NCCL_STEPS in
  // flight and overlaps them. Each step pays the sum's average instead: every path of
  // `steps` steps through the ring, that rank's included, then adds up to NCCL's sum.
  if (counterpart == NcclAlgorithm::Ring && facts.hosts > 1 && c.ranks > 1) {
    if (const auto ring = nccl_ring_latency(facts, c, cost.step, p == Protocol::Simple, graph)) {
      cost.step.uniform_step_latency = Time::from_seconds(ring->total_us / ring->steps * 1e-6);
    }
  }
  if (row == NcclRow::CollNet && sharp_trees) cost.base_latency += collnet_direct_arity_latency(facts);
  if (pat) {
    // tuning.cc: PAT's latency is baseLat + log2(nNodes) x interLat / 3.5 + 2.8 us x nRanks
    // ("still a linear part"): the per-rank term once, each dimension's step at 1/3.5.
    cost.base_latency += Time::from_seconds(kPatPerRankUs * 1e-6 * c.ranks);
    for (Time& l : cost.step.step_latency) l = Time::from_seconds(l.seconds() / kPatStepDivisor);
  }
  // Payload share of the wire, and payload caps per flow (one flow = one channel's step).
  double eff = model.efficiency[pi];
  if (pat) eff *= kPatEfficiency;
  std::optional<double> payload_cap;  // GB/s
  std::optional<double> nvls_wire_cap;  // GB/s per flow
  double nvls_volume = 1.0;             // bytes on the wire per byte the schedule's legs carry
  const double ll_max = model.ll_max_bandwidth ? model.ll_max_bandwidth->gb_per_s()
                        : facts.hosts <= 1     ? model.ll_max_bw[ai][0]
                                               : model.ll_max_bw[nccl_ll_cpu_row(facts.cpu)][col];
  if (row == NcclRow::Tree) {
    eff = model.tree_efficiency;
    if (p == Protocol::LL) eff *= model.tree_ll_factor;
    if (p == Protocol::LL128) eff *= facts.hosts <= 1 ? model.tree_ll128_one_node : model.tree_ll128_multi_node;
    payload_cap = model.tree_per_channel[ai][col];
    if (p == Protocol::LL128) payload_cap = std::min(*payload_cap, model.tree_ll128_per_channel[ai][col]);
  } else if (row == NcclRow::NvlsTree) {
    // NCCL's NVLS graph (search.cc, ncclTopoSearchTryNvls): one channel per head, each local
    // GPU heading one, at one speed s for its NVLink and network legs alike. A channel
    // loads its head's NVSwitch port twice (the head reduces and multicasts) and every
    // other GPU's once, so a GPU's port carries (ppn + 1) x s: s is the largest network
    // speed listed with (ppn + 1) s within the NVLink bandwidth as NCCL counts it (H100:
    // 9 x 40 <= 370.8 GB/s) and within the head's share of the host's network bandwidth
    // (the ring graph's searched channels x speed over the heads).
    const int heads = std::max(1, facts.max_ranks_per_host);
    const double nvl = facts.nvlink.gb_per_s() * nccl_nvlink_scale(model_gpu(facts));
    const double net_share = graph != nullptr && graph->searched_channels > 0
                                 ? graph->searched_speed_gbps * graph->searched_channels / heads
                                 : std::numeric_limits<double>::infinity();
    double speed = 0;
    for (double v : nccl_speed_list(arch, false)) {
      if ((heads + 1) * v <= nvl + 1e-9 && v <= net_share + 1e-9) {
        speed = v;
        break;
      }
    }
    // No listed speed fits: NCCL's NVLS graph search finds no channel, and NCCL runs
    // neither NVLS nor NVLSTree on this system (its busBw would be 0, unpriced).
    if (speed <= 0) {
      cost.unusable = fmt::format(
          "nvls_tree finds no NVLS channel speed: none of NCCL's listed speeds s has {} x s within a GPU's NVLink "
          "bandwidth ({:.1f} GB/s as NCCL counts it) and s within a head's network share ({:.2f} GB/s)",
          heads + 1, nvl, net_share);
      return cost;
    }
    // tuning.cc: intraBw = s x nvlsEfficiency x (heads - 1) / heads x 2 (reduce and
    // multicast pipelined), interBw = s (x 2 on two nodes), per channel at most
    // perChMaxNVLSTreeBw; busBw = heads x the least of the three.
    eff = model.nvls_efficiency[ai] * (heads > 1 ? static_cast<double>(heads - 1) / heads : 1.0);
    const double intra_bw = speed * eff * 2;
    const double inter_bw = speed * (facts.hosts <= 2 ? 2 : 1);
    const double per_channel = model.nvls_tree_per_channel[ai][col];
    cost.nccl_busbw_gbps = heads * std::min({intra_bw, inter_bw, per_channel});
    // The schedule's legs: a GPU's port carries its contributions to the other heads'
    // blocks, two streams each (a block's halves, one per tree): 2 (heads - 1) legs share
    // the heads x s of the port that the graph's channels load besides its own head's
    // second pass.
    nvls_wire_cap = heads * speed / (2.0 * std::max(1, heads - 1));
    // NCCL's per-channel cap, as the replay applies the ring's and tree's to their flows: a
    // channel (head) moves its block at most at the rate that makes busbw heads x the cap,
    // algbw = busbw x n / (2 (n - 1)), each of the block's two streams half of it; a
    // stream's NVLS legs each carry all its bytes, so each is capped at that. Its network
    // legs are not: the figure is the steady state of every stage at once, which the NVLS
    // legs bound, while a chunk's network step alone runs at what its NIC gives (on 2 x
    // HGX H100, 8 MiB in one chunk per channel took 133 us measured: the NVLS steps at
    // NVLink speed, the network steps at 400 Gb/s, plus NCCL's latencies).
    if (per_channel > 0 && c.ranks > 1) payload_cap = per_channel * c.ranks / (4.0 * (c.ranks - 1));
  } else if (row == NcclRow::Nvls) {
    // One host's NVLS, as the data moves: for its block GPU j's multimem.ld_reduce makes the
    // switch read the block from all n GPUs, j included, and returns the sum to j; j's
    // multimem.st sends the sum up and the switch writes it to all n GPUs, j included.
    // Each GPU's NVLink port so carries S + S/n each way, (n+1)/(n-1) times what the
    // schedule's legs (the other GPUs' contributions and multicasts, in_network.hpp) carry.
    // The port runs at its NVLink bandwidth as NCCL counts it (H100: 18 x 20.6 = 370.8
    // GB/s), shared by a GPU's n-1 concurrent legs each way, at NCCL's NVLS efficiency.
    // Hence busbw = 2(n-1)/(n+1) x that: 490 GB/s for 8 H100, 210 for 2; NCCL's own
    // model, which counts (n-1)/n S, is flat in n.
    eff = model.nvls_efficiency[ai];
    const int n = std::max(2, c.ranks);
    nvls_volume = (n + 1.0) / (n - 1.0);
    nvls_wire_cap = facts.nvlink.gb_per_s() * nccl_nvlink_scale(model_gpu(facts)) / (n - 1);
  } else if (row == NcclRow::Ring && p == Protocol::LL128 && nccl_algo) {
    payload_cap = model.ring_ll128_per_channel[ai][col];
  }
  if (p == Protocol::LL && nccl_algo) {
    const double share = ll_max / channels;
    payload_cap = payload_cap ? std::min(*payload_cap, share) : share;
  }
  if (nccl_algo || pat) {
    // NCCL's busBw: its channel count (not reduced for the size) at the channel speed,
    // times the protocol's efficiency, within the per-channel and LL caps.
    const int ch = user.channels > 0 ? user.channels : plan.channels;
    const double raw = ch * plan.per_channel.gb_per_s();
    double bus = raw;
    if (row == NcclRow::Tree) {
      bus = std::min(raw * model.tree_efficiency, ch * model.tree_per_channel[ai][col]);
      if (p == Protocol::LL) bus = std::min(bus * model.tree_ll_factor, ll_max);
      if (p == Protocol::LL128) {
        const double f = facts.hosts <= 1 ? model.tree_ll128_one_node : model.tree_ll128_multi_node;
        bus = std::min(bus * f, ch * model.tree_ll128_per_channel[ai][col]);
      }
    } else if (p == Protocol::LL) {
      bus = std::min(ll_max, raw * model.efficiency[pi]);
    } else if (p == Protocol::LL128) {
      bus = std::min(raw * model.efficiency[pi], ch * model.ring_ll128_per_channel[ai][col]);
    } else {
      bus = raw * eff;  // the ring's Simple; PAT's with its 0.75
    }
    cost.nccl_busbw_gbps = bus;
  }
  cost.step.wire_inflation = nvls_volume / eff;
  // A wire cap kept within the payload cap at this efficiency (either may be absent).
  auto within_payload = [&](std::optional<double> wire) -> std::optional<double> {
    if (!payload_cap) return wire;
    const double most = *payload_cap / eff;
    return wire ? std::min(*wire, most) : most;
  };
  if (row == NcclRow::NvlsTree) {
    // The NVLS legs at most at the channel's share, its network legs at what the links give
    // (nothing else caps them).
    if (const auto leg = within_payload(nvls_wire_cap)) cost.step.switch_leg_cap = Bandwidth::gb_per_s(*leg);
  } else if (nvls_wire_cap) {
    cost.step.flow_cap = Bandwidth::gb_per_s(*nvls_wire_cap);
  }
  if (nccl_algo) {
    cost.step.flow_cap = Bandwidth::gb_per_s(*within_payload(plan.per_channel.gb_per_s()));
  } else if (pat) {
    // PAT's schedule is built once for all channels, which run it in lockstep on their
    // shares: its flows may use every channel's speed.
    cost.step.flow_cap = Bandwidth::gb_per_s(channels * plan.per_channel.gb_per_s());
  }
  return cost;
}

CollectiveCost candidate_cost(const TopologyFacts& facts, const Collective& c, std::string_view algo, Protocol p,
                              const ProtocolModel& model, const CostOverrides& user, const NcclGraph* graph,
                              bool protocols_auto) {
  CollectiveCost cost = collective_cost(facts, c, algo, p, model, user, graph);
  if (!cost.unusable && p == Protocol::LL128 && protocols_auto) cost.unusable = ll128_off_by_default(facts, graph);
  return cost;
}

namespace {

// treeCorrectionFactor (tuning.cc): tree all-reduce bandwidth by log2(bytes / 64), 64 B .. 256 MiB.
constexpr std::array<std::array<double, 24>, 3> kTreeCorrection{{
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9},
}};

}  // namespace

std::optional<Time> nccl_model_time(const TopologyFacts& facts, const Collective& c, std::string_view algo, Protocol p,
                                    const CollectiveCost& cost, const NcclGraph* graph) {
  if (p == Protocol::Ideal || cost.unusable || cost.nccl_busbw_gbps <= 0) return std::nullopt;
  const NcclAlgorithm counterpart = nccl_counterpart(algo);
  const bool ring = counterpart == NcclAlgorithm::Ring;
  const bool pat = counterpart == NcclAlgorithm::Pat;
  const bool nvls_tree = counterpart == NcclAlgorithm::NvlsTree;
  if (!ring && !pat && !nvls_tree && !(counterpart == NcclAlgorithm::Tree && c.op == CollectiveOp::AllReduce)) {
    return std::nullopt;
  }
  const int n = c.ranks;
  const int nodes = std::max(1, facts.hosts);
  if (nvls_tree) {
    // baseLat + intraLat + 2 x log2(nNodes) x interLat; algBw = busBw x n / (2 (n - 1)).
    const double intra = cost.step.step_latency[static_cast<std::size_t>(LinkClass::NvLink)].us();
    const double inter = cost.step.step_latency[static_cast<std::size_t>(LinkClass::Net)].us();
    const double lat = cost.base_latency.us() + intra + 2 * std::floor(std::log2(nodes)) * inter;
    const double alg = cost.nccl_busbw_gbps * n / (2.0 * std::max(1, n - 1));
    return Time::from_seconds((lat + static_cast<double>(c.size.count) / (1000 * alg)) * 1e-6);
  }
  if (pat) {
    // baseLat + 2.8 us x nRanks (in base_latency) + log2(nNodes) x interLat / 3.5 (the step
    // latency, already divided); bytes at busBw as they are (no algBw conversion).
    const double inter = cost.step.step_latency[static_cast<std::size_t>(LinkClass::Net)].us();
    const double lat = cost.base_latency.us() + std::floor(std::log2(nodes)) * inter;
    return Time::from_seconds((lat + static_cast<double>(c.size.count) / (1000 * cost.nccl_busbw_gbps)) * 1e-6);
  }
  const int ppn = std::max(1, n / nodes);
  auto lat_us = [&](LinkClass k) { return cost.step.step_latency[static_cast<std::size_t>(k)].us(); };
  const double intra = lat_us(nccl_intra_class(facts, graph));
  const double inter = lat_us(LinkClass::Net);
  const double base = cost.base_latency.us();
  const auto bytes = static_cast<double>(c.size.count);
  double lat = base;
  double alg = cost.nccl_busbw_gbps;
  if (ring) {
    if (const auto r = nccl_ring_latency(facts, c, cost.step, p == Protocol::Simple, graph)) {
      lat += r->total_us;
      alg *= static_cast<double>(n) / r->steps;
    } else {
      lat += nodes > 1 ? inter : intra;  // broadcast, reduce: sameChannels, one step's latency
    }
    // The ring's plateau: Simple all-reduce across nodes once a channel's share is >= 64 B.
    if (p == Protocol::Simple && nodes > 1 && c.op == CollectiveOp::AllReduce &&
        bytes / (static_cast<double>(cost.channels) * n) >= 64) {
      lat *= model_arch(facts) >= GpuArch::Ampere ? 1.4 : 1.9;
    }
  } else {
    lat += 2 * ((ppn - 1) * intra + std::floor(std::log2(nodes)) * inter);
    alg *= 0.5;
    const double chunks = std::max(1.0, bytes / 64);
    const auto i = static_cast<std::size_t>(std::min(23.0, std::floor(std::log2(chunks))));
    alg *= kTreeCorrection[static_cast<std::size_t>(nccl_index(p))][i];
  }
  return Time::from_seconds((lat + bytes / (1000 * alg)) * 1e-6);
}

}  // namespace collsim
