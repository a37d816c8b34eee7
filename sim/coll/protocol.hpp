// The wire protocols a collective can run with: ideal (no overheads: pure bandwidth and
// link latency) and NCCL's LL, LL128 and Simple; and the GPU generations and NCCL table
// rows (Tree, Ring, CollNet, NVLS) that NCCL's tuning model is indexed by.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/name_table.hpp"

namespace collsim {

enum class Protocol : std::uint8_t { Ideal, LL, LL128, Simple };
template <>
inline constexpr auto kEnumNames<Protocol> = names_in_order<Protocol>({"ideal", "ll", "ll128", "simple"});
// Index of an NCCL protocol in NCCL's tables (LL 0, LL128 1, Simple 2); Ideal has none.
[[nodiscard]] int nccl_index(Protocol p);
[[nodiscard]] std::optional<Protocol> protocol_from(std::string_view s);  // case-insensitive

// NCCL's compute-capability index of its tuning tables (tuning.cc): SM70-79 Volta,
// SM80-89 Ampere, SM90-99 Hopper, SM100 and newer Blackwell (older SMs use the Volta row).
enum class GpuArch : std::uint8_t { Volta = 0, Ampere = 1, Hopper = 2, Blackwell = 3 };
template <>
inline constexpr auto kEnumNames<GpuArch> = names_in_order<GpuArch>({"volta", "ampere", "hopper", "blackwell"});
// The row for a compute capability as NCCL's cudaCompCap (major x 10 + minor: 86, 100).
[[nodiscard]] GpuArch gpu_arch_from_sm(int sm);
// The row of a GPU catalogue model (any accepted spelling: "H100", "rtx4090"), from its
// compute capability; nullopt when the catalogue does not know the model.
[[nodiscard]] std::optional<GpuArch> gpu_arch_from_model(std::string_view model);

// Which row of NCCL's latency/bandwidth tables prices an algorithm: its AlgorithmInfo's
// NCCL counterpart (sim/algo/algorithm_info.hpp) maps to its row; the others (NCCL's
// point-to-point sends, collsim's what-ifs such as ps, rhd, rd, bintree, hier_ring) are
// point-to-point step algorithms and are priced like Ring.
enum class NcclRow : std::uint8_t { Tree = 0, Ring = 1, CollNet = 2, Nvls = 3, Pat = 4, NvlsTree = 5, CollNetChain = 6 };
template <>
inline constexpr auto kEnumNames<NcclRow> = names_in_order<NcclRow>({"tree", "ring", "collnet", "nvls", "pat", "nvls_tree", "collnet_chain"});
// Whether NCCL runs this algorithm (its AlgorithmInfo names an NCCL counterpart: ring,
// tree, nvls, sharp = CollNet, direct = its point-to-point all-to-all): NCCL's protocols
// apply to it. collsim's other algorithms (ps, bintree, hier_ring, ...) are what-ifs.
[[nodiscard]] bool nccl_algorithm(std::string_view algorithm);
[[nodiscard]] NcclRow nccl_row(std::string_view algorithm);

}  // namespace collsim
