#include "sim/topo/gpu_model.hpp"

#include <array>
#include <utility>

namespace collsim {

namespace {
struct ModelInfo {
  GpuModel model;
  std::string_view name;
};
constexpr std::array<ModelInfo, 5> kModels{{
    {GpuModel::V100, "V100"},
    {GpuModel::A100, "A100"},
    {GpuModel::H100, "H100"},
    {GpuModel::H200, "H200"},
    {GpuModel::B200, "B200"},
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
