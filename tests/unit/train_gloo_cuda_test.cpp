// Gloo on CUDA tensors: the copies to and from host memory around the collective.
#include <catch2/catch.hpp>

#include "sim/train/device_catalogue.hpp"
#include "sim/train/gloo_cuda.hpp"
#include "tests/unit/ddp_hand_model.hpp"

namespace collsim {

TEST_CASE("Gloo on a GPU copies each collective's tensor over PCIe both ways", "[train][gloo]") {
  // 1e6 B: 1 ms on the network at 1 ns per byte, 1 ms each way at 1e9 B/s: 3 ms.
  const CollectiveCostFn cost = gloo_cuda_cost(hand::one_ns_per_byte, Bandwidth{1e9});
  CHECK(cost(CollectiveOp::AllReduce, Bytes{1'000'000}) == Time::from_ms(3));
  // V100: PCIe 3.0 x16, 8 GT/s x 16 lanes x 128/130 / 8 bits = 15.7538 GB/s.
  const auto v100 = gpu_pcie_rate(*find_device("V100"));
  REQUIRE(v100);
  CHECK(v100->bytes_per_s == Approx(8e9 * 16 * 128.0 / 130.0 / 8.0));
  CHECK(gpu_pcie_rate(*find_device("H100"))->bytes_per_s == Approx(32e9 * 16 * 128.0 / 130.0 / 8.0));
  // NCCL, or ranks that are not GPUs: the network time alone.
  DeviceSpec cpu;
  cpu.name = "test bed host";
  CHECK_FALSE(gpu_pcie_rate(cpu));
  const Bytes mb{1'000'000};
  CHECK(with_gloo_copies(hand::one_ns_per_byte, DdpBackend::Gloo, cpu)(CollectiveOp::AllReduce, mb) == Time::from_ms(1));
  CHECK(with_gloo_copies(hand::one_ns_per_byte, DdpBackend::Nccl, *find_device("V100"))(CollectiveOp::AllReduce, mb) ==
        Time::from_ms(1));
  CHECK(with_gloo_copies(hand::one_ns_per_byte, DdpBackend::Gloo, *find_device("V100"))(CollectiveOp::AllReduce, mb) >
        Time::from_ms(1));
}

}  // namespace collsim
