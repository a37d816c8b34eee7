#include "sim/coll/nccl/speed_lists.hpp"

#include <array>

namespace collsim {

namespace {

constexpr std::array<double, 13> kIntraPreSm90{40, 30, 20, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3};
constexpr std::array<double, 19> kInterPreSm90{48, 30, 28, 24, 20, 18, 15, 12, 10, 9,
                                                7,  6,  5,  4,  3,  2.4, 1.2, 0.24, 0.12};
constexpr std::array<double, 11> kIntraSm90{60, 50, 40, 30, 24, 20, 15, 12, 11, 6, 3};
constexpr std::array<double, 17> kInterSm90{48, 45, 42, 40, 30, 24, 22, 20, 17.5, 15, 12, 6, 3, 2.4, 1.2, 0.24, 0.12};
constexpr std::array<double, 12> kIntraSm100{90, 80, 70, 60, 50, 45, 40, 30, 24, 20, 19, 18};
constexpr std::array<double, 20> kInterSm100{96, 86, 80, 48, 45.1, 42, 40, 30, 24, 22,
                                              20, 17.5, 15, 12, 6, 3, 2.4, 1.2, 0.24, 0.12};

}  // namespace

std::span<const double> nccl_speed_list(GpuArch arch, bool intra) {
  if (arch == GpuArch::Blackwell) return intra ? std::span<const double>(kIntraSm100) : std::span<const double>(kInterSm100);
  if (arch == GpuArch::Hopper) return intra ? std::span<const double>(kIntraSm90) : std::span<const double>(kInterSm90);
  return intra ? std::span<const double>(kIntraPreSm90) : std::span<const double>(kInterPreSm90);
}

}  // namespace collsim
