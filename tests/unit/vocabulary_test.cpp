// One parser per vocabulary, shared by the command line and plan files, and the two maps
// from a library error's options field to the user's words: the flag (sim/cli) and the
// plan file's JSON pointer (sim/plan).
#include <catch2/catch.hpp>

#include "sim/cli/option_fields.hpp"
#include "sim/cli/validators.hpp"
#include "sim/plan/plan_fields.hpp"
#include "sim/train/bucket_assignment.hpp"
#include "sim/train/ddp_names.hpp"
#include "sim/train/dtype.hpp"
#include "sim/train/sharding.hpp"

namespace collsim {
namespace {

TEST_CASE("precision presets: one canonical spelling, the command line's old one as alias", "[vocabulary]") {
  CHECK(enum_names<PrecisionPreset>() == std::vector<std::string>{"adam_mixed", "adam_fp32", "sgd_momentum_fp32"});
  CHECK(precision_preset_from("adam_mixed") == PrecisionPreset::AdamMixed);
  CHECK(precision_preset_from("adam-mixed") == PrecisionPreset::AdamMixed);
  CHECK(precision_preset_from("adam-fp32") == PrecisionPreset::AdamFp32);
  CHECK(precision_preset_from("sgd-fp32") == PrecisionPreset::SgdMomentumFp32);
  CHECK(precision_preset_from("sgd_momentum_fp32") == PrecisionPreset::SgdMomentumFp32);
  CHECK_FALSE(precision_preset_from("fp8"));
  CHECK_FALSE(precision_preset_from("Adam_Mixed"));
  // ZeRO paper: 2 + 2 + K bytes with K = 12 for mixed-precision Adam.
  const StatePrecision p = state_precision(PrecisionPreset::AdamMixed);
  CHECK(p.param_bytes + p.grad_bytes + p.optimizer_bytes == 16);
  for (const auto& n : enum_names<PrecisionPreset>()) CHECK(to_string(*precision_preset_from(n)) == n);
}

TEST_CASE("sharding, FSDP strategy and prefetch names round-trip", "[vocabulary]") {
  for (const auto& n : enum_names<Sharding>()) CHECK(to_string(*enum_from<Sharding>(n)) == n);
  CHECK(enum_names<Sharding>().size() == 7);
  CHECK(fsdp_sharding_names() == std::vector<std::string>{"full_shard", "shard_grad_op", "hybrid_shard"});
  CHECK(fsdp_sharding_from("hybrid_shard") == Sharding::FsdpHybridShard);
  CHECK_FALSE(fsdp_sharding_from("zero3"));  // a Sharding name, not one of FSDP's
  CHECK(enum_names<BackwardPrefetch>() == std::vector<std::string>{"pre", "post", "none"});
  for (const auto& n : enum_names<BackwardPrefetch>()) CHECK(to_string(*enum_from<BackwardPrefetch>(n)) == n);
  CHECK_FALSE(enum_from<BackwardPrefetch>("early"));
  for (const auto& n : enum_names<DType>()) CHECK(to_string(*enum_from<DType>(n)) == n);
  CHECK(element_size(DType::BFloat16) == 2);
  CHECK(element_size(DType::Float64) == 8);
}

TEST_CASE("communication hooks and backends", "[vocabulary]") {
  CHECK(comm_hook_from("none")->hook == CommHook::None);
  CHECK(comm_hook_from("bf16")->hook == CommHook::Bf16);
  const auto p = comm_hook_from("powersgd:4");
  REQUIRE(p);
  CHECK(p->hook == CommHook::PowerSgd);
  CHECK(p->powersgd_rank == 4);
  CHECK_FALSE(comm_hook_from("powersgd"));  // PowerSGD needs its rank
  CHECK_FALSE(comm_hook_from("powersgd:0"));
  CHECK_FALSE(comm_hook_from("powersgd:x"));
  CHECK_FALSE(comm_hook_from("powersgd:1234567"));  // at most 6 digits
  CHECK_FALSE(comm_hook_from("zip"));
  CHECK(enum_from<DdpBackend>("gloo") == DdpBackend::Gloo);
  CHECK_FALSE(enum_from<DdpBackend>("mpi"));
  CHECK(to_string(DdpBackend::Nccl) == "nccl");
}

TEST_CASE("bucket_cap_mb to bytes and back prints as written", "[vocabulary][buckets]") {
  // int(25 * 1024 * 1024) = 26,214,400; int(0.1 * 1,048,576) = int(104,857.6) = 104,857.
  CHECK(bucket_cap_from_mb(25) == Bytes{26'214'400});
  CHECK(bucket_cap_mb_of(Bytes{26'214'400}) == 25.0);
  CHECK(bucket_cap_from_mb(0.1) == Bytes{104'857});
  CHECK(bucket_cap_mb_of(Bytes{104'857}) == 0.1);
  for (double mb : {1.0, 2.0, 5.0, 10.0, 50.0, 200.0, 0.5, 1.5, 0.3, 7.25, 25.3, 0.001, 12345.678}) {
    INFO(mb);
    CHECK(bucket_cap_mb_of(bucket_cap_from_mb(mb)) == mb);
  }
}

TEST_CASE("a library error's field becomes the flag on the command line", "[vocabulary][cli]") {
  CHECK(cli::flag_for_field("accumulate") == "--accumulate");
  CHECK(cli::flag_for_field("reduce_bucket_bytes") == "--reduce-bucket-mb");
  CHECK(cli::flag_for_field("algorithms") == "--algo");
  CHECK_FALSE(cli::flag_for_field("topology"));
  const ConfigError lib("", "accumulate", "0", "a step count >= 1");
  CHECK(std::string(lib.what()) == "accumulate: got 0, expected a step count >= 1");
  CHECK(std::string(cli::with_flag(lib).what()) == "--accumulate: got 0, expected a step count >= 1");
  // An error that already names its file, or a field no flag sets, is left as it is.
  const ConfigError file("x.json", "/links/0/latency", "\"-1us\"", "a non-negative time");
  CHECK(std::string(cli::with_flag(file).what()) == file.what());
  const ConfigError unknown("", "colour", "red", "blue");
  CHECK(std::string(cli::with_flag(unknown).what()) == unknown.what());
}

TEST_CASE("a library error's field becomes the plan file's JSON pointer", "[vocabulary][plan]") {
  CHECK(plan_field_pointer("accumulate", 1, 2) == "/strategies/2/accumulate");
  CHECK(plan_field_pointer("reduce_bucket_bytes", 0, 3) == "/strategies/3/reduce_bucket_mb");
  CHECK(plan_field_pointer("all_gather_limit", 0, 0) == "/strategies/0/limit_all_gathers");
  CHECK(plan_field_pointer("world_size", 4, 0) == "/candidates/4/world_sizes");
  CHECK(plan_field_pointer("algorithms", 1, 0) == "/candidates/1/algorithm");
  CHECK_FALSE(plan_field_pointer("hook", 0, 0));  // plans have no hooks
  const ConfigError e = in_plan(ConfigError("", "min_unit_params", "0", "a parameter count >= 1"), "p.json", 0, 1);
  CHECK(e.source() == "p.json");
  CHECK(e.field() == "/strategies/1/min_unit_params");
  CHECK(std::string(e.what()) == "p.json: /strategies/1/min_unit_params: got 0, expected a parameter count >= 1");
}

TEST_CASE("percentages on the command line", "[vocabulary][cli]") {
  CHECK(cli::percent_fraction("10%") == 0.1);
  CHECK(cli::percent_fraction("0.5") == 0.005);
  CHECK_FALSE(cli::percent_fraction("lots"));
  CHECK_FALSE(cli::percent_fraction("%"));
  CHECK_FALSE(cli::percent_fraction("-1%"));
  CHECK_FALSE(cli::percent_fraction("1001"));
}

}  // namespace
}  // namespace collsim
