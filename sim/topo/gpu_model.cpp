#include "sim/topo/gpu_model.hpp"

#include <array>
#include <utility>

namespace collsim {

namespace {
struct ModelInfo {
  GpuModel model;
  std::string_view name;
  GpuArch arch;
};
// V100 is Volta (SM70); A100 Ampere (SM80); H100 and H200 Hopper (SM90); B200 Blackwell
// (SM100): NVIDIA's CUDA compute-capability table.
constexpr std::array<ModelInfo, 5> kModels{{
    {GpuModel::V100, "V100", GpuArch::Volta},
    {GpuModel::A100, "A100", GpuArch::Ampere},
    {GpuModel::H100, "H100", GpuArch::Hopper},
    {GpuModel::H200, "H200", GpuArch::Hopper},
    {GpuModel::B200, "B200", GpuArch::Blackwell},
}};
}  // namespace

std::optional<GpuModel> gpu_model_from(std::string_view name) {
  for (const auto& m : kModels) {
    if (m.name == name) return m.model;
  }
  return std::nullopt;
}

std::string_view to_string(GpuModel m) {
  for (const auto& i : kModels) {
    if (i.model == m) return i.name;
  }
  return "?";
}

std::string_view to_string(GpuArch a) {
  switch (a) {
    case GpuArch::Volta: return "Volta";
    case GpuArch::Ampere: return "Ampere";
    case GpuArch::Hopper: return "Hopper";
    case GpuArch::Blackwell: return "Blackwell";
  }
  return "?";
}

GpuArch architecture(GpuModel m) {
  for (const auto& i : kModels) {
    if (i.model == m) return i.arch;
  }
  return GpuArch::Volta;
}

std::vector<std::string> gpu_model_names() {
  std::vector<std::string> out;
  for (const auto& m : kModels) out.emplace_back(m.name);
  return out;
}

std::optional<GpuModel> gpu_model(const Node& n) {
  if (n.kind != NodeKind::Gpu) return std::nullopt;
  return gpu_model_from(n.model);
}

}  // namespace collsim
