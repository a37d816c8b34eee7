// Parameters unused in some steps (Parameter::unused_in_steps) with find_unused_parameters,
// derived by hand on the hand model (ddp_hand_model.hpp) with p1 (layer L1's) unused in
// step 3: find_unused_parameters keeps the construction buckets b0 = {p3},
// b1 = {p1, p2}, b2 = {p0}.
#include <catch2/catch.hpp>

#include "sim/core/error.hpp"
#include "sim/train/ddp_timeline.hpp"
#include "tests/unit/ddp_hand_model.hpp"
#include "tests/unit/test_time.hpp"

namespace collsim {
namespace {

using test::us;

Workload p1_unused_in_step_3() {
  Workload w = hand::model();
  w.parameters[1].unused_in_steps = {3};
  return w;
}

DdpOptions find_unused(std::int64_t step) {
  DdpOptions o = hand::options();
  o.buckets.find_unused_parameters = true;
  o.step = step;
  return o;
}

}  // namespace

TEST_CASE("a layer whose parameters are unused in a step does not run", "[train][unused]") {
  const DdpResult r = simulate_ddp(p1_unused_in_step_3(), hand::device(), hand::one_ns_per_byte, find_unused(3));
  // Forward L0, L2, L3: 3 ms. Backward L3 3-5 ms; at its gradient's hook p1 is zeroed
  // (1e6 B: 1 us) 5.000-5.001, then p3's copy 5.001-5.003: b0 launches, 5.003-6.003.
  // L2 5.003-7.003, copy 7.003-7.005: b1 (p1 already in) 7.005-9.005. L1 is skipped.
  // L0 7.005-9.005, copy -> 9.007: b2 9.007-10.007, the used-map all-reduce (16 B) after.
  CHECK(r.forward == us(3000));
  CHECK(r.backward == us(6000));
  CHECK(r.buckets[0].start == us(5003));
  CHECK(r.buckets[1].ready == us(7005));
  CHECK(r.buckets[1].end == us(9005));
  CHECK(r.buckets[2].start == us(9007));
  CHECK(r.buckets[2].end == us(10007));
  // Copy-outs 9.007-9.009, 9.009-9.013, b2's 10.007-10.009; optimizer -> 11.009 ms.
  CHECK(r.iteration == us(11009));
  bool zeroed = false;
  for (const auto& t : r.program.compute) zeroed = zeroed || t.name == "zero unused p1";
  CHECK(zeroed);
}

TEST_CASE("in other steps every layer runs", "[train][unused]") {
  const DdpResult r = simulate_ddp(p1_unused_in_step_3(), hand::device(), hand::one_ns_per_byte, find_unused(2));
  CHECK(r.forward == us(4000));
  CHECK(r.backward == us(8000));
}

TEST_CASE("unused parameters need find_unused_parameters, and a static graph needs them in every step", "[train][unused]") {
  const Workload w = p1_unused_in_step_3();
  DdpOptions o = hand::options();
  o.step = 3;
  try {
    (void)unused_parameters(w, o);
    FAIL("accepted");
  } catch (const ConfigError& e) {
    CHECK(e.field() == "find_unused_parameters");
    CHECK_THAT(e.expected(), Catch::Contains("p1 is unused in step 3"));
  }
  o.buckets.find_unused_parameters = true;
  o.buckets.static_graph = true;
  try {
    (void)unused_parameters(w, o);
    FAIL("accepted");
  } catch (const ConfigError& e) {
    CHECK(e.field() == "static_graph");
  }
  Workload every = hand::model();
  every.parameters[1].unused_in_every_step = true;
  CHECK(unused_parameters(every, o) == std::vector<bool>{false, true, false, false});
  for (auto& p : every.parameters) p.unused_in_every_step = true;
  CHECK_THROWS_AS(unused_parameters(every, o), ConfigError);
}

}  // namespace collsim
