// The GPU models a topology file may name (V100, A100, H100, H200, B200), so later layers
// can look up compute peaks and NCCL's per-architecture constants by them (the
// architecture of a model: gpu_arch_from_model in sim/coll/protocol.hpp). No units.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/topo/topology.hpp"

namespace collsim {

enum class GpuModel : std::uint8_t { V100, A100, H100, H200, B200 };

[[nodiscard]] std::optional<GpuModel> gpu_model_from(std::string_view name);
[[nodiscard]] std::string_view to_string(GpuModel m);
[[nodiscard]] std::vector<std::string> gpu_model_names();

// The model of a GPU node; nullopt for a non-GPU node or a GPU without a stated model.
[[nodiscard]] std::optional<GpuModel> gpu_model(const Node& n);

}  // namespace collsim
