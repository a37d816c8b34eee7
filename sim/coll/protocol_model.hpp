// The protocol cost model: per-collective base latency and per-step latency (us, by link
// class, NCCL row and protocol), wire efficiency, pipeline slice sizes, per-channel and
// total bandwidth caps (GB/s, by GPU generation and node count). Defaults are NCCL
// 2.30.7's published tuning model (src/graph/tuning.cc, summarised with the file names in
// shared/reference/nccl-model.md); a JSON calibration file may override any of them.
#pragma once

#include <array>
#include <optional>
#include <string>

#include "sim/coll/link_class.hpp"
#include "sim/coll/nccl/transport.hpp"
#include "sim/coll/protocol.hpp"
#include "sim/core/units.hpp"

namespace collsim {

inline constexpr int kNcclRows = 7;       // Tree, Ring, CollNet (Direct), Nvls, Pat, NvlsTree, CollNetChain
inline constexpr int kNcclProtocols = 3;  // LL, LL128, Simple
inline constexpr int kArchs = 4;          // Volta, Ampere, Hopper, Blackwell
inline constexpr int kNodeColumns = 3;    // 1 node, 2 nodes, >= 3 nodes

template <typename T>
using PerProtocol = std::array<T, kNcclProtocols>;
using PerArchNodes = std::array<std::array<double, kNodeColumns>, kArchs>;  // GB/s

struct ProtocolModel {
  std::string source = "NCCL 2.30.7 tuning model";
  std::array<PerProtocol<Time>, kNcclRows> base_latency{};                     // baseLat
  std::array<std::array<PerProtocol<Time>, kNcclRows>, kLinkClasses> step_latency{};  // hwLat
  PerProtocol<double> efficiency{};  // ring-like payload share of link bandwidth
  double tree_efficiency = 0;        // extra factor of Tree all-reduce (every protocol)
  double tree_ll_factor = 0;         // Tree + LL
  double tree_ll128_one_node = 0;    // Tree + LL128 on one node
  double tree_ll128_multi_node = 0;  // Tree + LL128 across nodes
  PerProtocol<Bytes> slice{};        // payload of one pipeline step (buffer / NCCL_STEPS)
  PerProtocol<int> threads{};        // threads per channel
  PerProtocol<int> bytes_per_thread{};  // channel-count threshold per thread
  PerArchNodes ll_max_bw{};          // llMaxBws (total)
  PerArchNodes ring_ll128_per_channel{};
  PerArchNodes tree_ll128_per_channel{};
  PerArchNodes tree_per_channel{};
  PerArchNodes nvls_tree_per_channel{};  // perChMaxNVLSTreeBws: per NVLS-graph channel (head)
  std::array<double, kArchs> nvls_efficiency{};
  std::array<int, kArchs> nvls_channels{};
  int max_channels = 64;  // MAXCHANNELS
  // CPU time to enqueue and launch one NCCL collective on one GPU (ncclEnqueue + the CUDA
  // kernel launch). A thread that drives several GPUs (nccl-tests -g G) launches G kernels
  // per operation one after the other, so back-to-back operations cannot run faster than
  // G x this; see nccl_default_model for the figure's source.
  Time launch_overhead;
  // Calibration overrides of the channel search.
  std::optional<int> channels;
  std::optional<Bandwidth> channel_bandwidth;
  std::optional<Bandwidth> ll_max_bandwidth;
  // NCCL's environment knobs (nccl_env.hpp): NCCL_MIN_NCHANNELS / NCCL_MAX_NCHANNELS
  // (channels run, not the tuning model's busBw), NCCL_NVLS_ENABLE, NCCL_CROSS_NIC, and
  // the transport levels.
  std::optional<int> min_nchannels;
  std::optional<int> max_nchannels;
  bool nvls_enabled = true;
  int cross_nic = 2;
  NcclTransportLevels transports;  // NCCL_P2P_LEVEL (NCCL_P2P_DISABLE), NCCL_NET_GDR_LEVEL
};

[[nodiscard]] ProtocolModel nccl_default_model();

// Reads a calibration file over `base`; unknown keys and bad values are ConfigErrors that
// name the file and JSON pointer.
[[nodiscard]] ProtocolModel load_calibration(const std::string& path, ProtocolModel base);

}  // namespace collsim
