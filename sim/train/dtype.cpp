#include "sim/train/dtype.hpp"

#include "sim/core/name_table.hpp"

namespace collsim {

namespace {
constexpr auto kNames = name_table<DType>({{DType::Float32, "float32"},
                                           {DType::Float16, "float16"},
                                           {DType::BFloat16, "bfloat16"},
                                           {DType::Float64, "float64"},
                                           {DType::Int64, "int64"},
                                           {DType::Int32, "int32"},
                                           {DType::UInt8, "uint8"}});
}  // namespace

std::int64_t element_size(DType t) {
  switch (t) {
    case DType::Float32: return 4;
    case DType::Float16: return 2;
    case DType::BFloat16: return 2;
    case DType::Float64: return 8;
    case DType::Int64: return 8;
    case DType::Int32: return 4;
    case DType::UInt8: return 1;
  }
  return 4;
}

std::string_view to_string(DType t) { return kNames.name(t); }
std::optional<DType> dtype_from(std::string_view s) { return kNames.parse(s); }
std::vector<std::string> dtype_names() { return kNames.names(); }

}  // namespace collsim
