#include "sim/train/dtype.hpp"

#include "sim/core/name_table.hpp"

namespace collsim {

namespace {
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

}  // namespace collsim
