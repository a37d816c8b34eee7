#include "sim/train/dtype.hpp"

#include <array>

namespace collsim {

namespace {
struct DTypeInfo {
  DType type;
  std::string_view name;
  std::int64_t size;
};
constexpr std::array<DTypeInfo, 7> kTypes{{{DType::Float32, "float32", 4},
                                           {DType::Float16, "float16", 2},
                                           {DType::BFloat16, "bfloat16", 2},
                                           {DType::Float64, "float64", 8},
                                           {DType::Int64, "int64", 8},
                                           {DType::Int32, "int32", 4},
                                           {DType::UInt8, "uint8", 1}}};
}  // namespace

std::int64_t element_size(DType t) { return kTypes[static_cast<std::size_t>(t)].size; }
std::string_view to_string(DType t) { return kTypes[static_cast<std::size_t>(t)].name; }

std::optional<DType> dtype_from(std::string_view s) {
  for (const auto& t : kTypes) {
    if (t.name == s) return t.type;
  }
  return std::nullopt;
}

std::vector<std::string> dtype_names() {
  std::vector<std::string> out;
  for (const auto& t : kTypes) out.emplace_back(t.name);
  return out;
}

}  // namespace collsim
