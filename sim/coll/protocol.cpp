#include "sim/coll/protocol.hpp"

#include <algorithm>
#include <cctype>
#include <string>

#include "sim/algo/registry.hpp"
#include "sim/core/name_table.hpp"
#include "sim/core/text.hpp"
#include "sim/topo/gpu_catalogue.hpp"

namespace collsim {

int nccl_index(Protocol p) {
  switch (p) {
    case Protocol::LL: return 0;
    case Protocol::LL128: return 1;
    case Protocol::Simple: return 2;
    case Protocol::Ideal: break;
  }
  return -1;
}

std::optional<Protocol> protocol_from(std::string_view s) {
  return enum_from<Protocol>(to_lower(s));
}

GpuArch gpu_arch_from_sm(int sm) {
  if (sm >= 100) return GpuArch::Blackwell;
  if (sm >= 90) return GpuArch::Hopper;
  if (sm >= 80) return GpuArch::Ampere;
  return GpuArch::Volta;
}

std::optional<GpuArch> gpu_arch_from_model(std::string_view model) {
  const GpuSpec* gpu = find_gpu(model);
  if (gpu == nullptr) return std::nullopt;
  return gpu_arch_from_sm(gpu->compute_capability.sm());
}

bool nccl_algorithm(std::string_view algorithm) {
  // PointToPoint: NCCL runs all-to-all as point-to-point sends over its protocols.
  return nccl_counterpart(algorithm) != NcclAlgorithm::None;
}

NcclRow nccl_row(std::string_view algorithm) {
  switch (nccl_counterpart(algorithm)) {
    case NcclAlgorithm::Tree: return NcclRow::Tree;
    case NcclAlgorithm::Nvls: return NcclRow::Nvls;
    case NcclAlgorithm::NvlsTree: return NcclRow::NvlsTree;
    case NcclAlgorithm::CollNet: return NcclRow::CollNet;
    case NcclAlgorithm::CollNetChain: return NcclRow::CollNetChain;
    case NcclAlgorithm::Pat: return NcclRow::Pat;
    case NcclAlgorithm::None:
    case NcclAlgorithm::Ring:
    case NcclAlgorithm::PointToPoint: return NcclRow::Ring;
  }
  return NcclRow::Ring;
}

}  // namespace collsim
