// Acceptance: on the star (per-host link bandwidth B each direction, latency L per link,
// so a message pays 2L), ring and parameter-server all-reduce match their alpha-beta
// formulas within 0.1 %.
#include <catch2/catch.hpp>

#include "sim/coll/predict.hpp"
#include "sim/topo/generators.hpp"

using namespace collsim;

namespace {

constexpr double kB = 12.5e9;  // 100 Gb/s in bytes/s
constexpr double kL = 1e-6;    // 1 us per link

double predicted_seconds(int n, std::int64_t bytes, const std::string& algo) {
  const Topology t = make_star(StarSpec{n, Bandwidth{kB}, Time::from_us(1)});
  LinkGraph g(t);
  return predict_collective(g, Collective{CollectiveOp::AllReduce, n, 0, Bytes{bytes}}, algo).time.seconds();
}

// Ring: 2(N-1) steps; each moves S/N bytes over 2 links (2L latency) at B, and every
// host's uplink and downlink carry exactly one flow per step, so nothing is shared.
double ring_formula(int n, double s) { return 2.0 * (n - 1) * (2 * kL + s / (n * kB)); }

// PS: N-1 workers push S at once into the server's downlink (shared: (N-1)S/B), then
// the server pushes S to each through its uplink (again (N-1)S/B); each phase pays 2L.
double ps_formula(int n, double s) { return 2.0 * (2 * kL + (n - 1) * s / kB); }

}  // namespace

TEST_CASE("ring and PS all-reduce match the alpha-beta formulas on the star", "[coll][star]") {
  for (int n : {2, 3, 4, 8, 16, 64}) {
    for (std::int64_t s : {std::int64_t{1} << 10, std::int64_t{1} << 20, std::int64_t{1} << 30}) {
      INFO("N = " << n << ", S = " << s);
      CHECK(predicted_seconds(n, s, "ring") == Approx(ring_formula(n, static_cast<double>(s))).epsilon(1e-3));
      CHECK(predicted_seconds(n, s, "ps") == Approx(ps_formula(n, static_cast<double>(s))).epsilon(1e-3));
    }
  }
}

TEST_CASE("ring and PS all-reduce match the formulas on a 1000-host star", "[coll][star][large]") {
  // 2M ring transfers per size; still exact to the formula within 0.1 %.
  const int n = 1000;
  for (std::int64_t s : {std::int64_t{1} << 10, std::int64_t{1} << 20, std::int64_t{1} << 30}) {
    INFO("S = " << s);
    CHECK(predicted_seconds(n, s, "ring") == Approx(ring_formula(n, static_cast<double>(s))).epsilon(1e-3));
    CHECK(predicted_seconds(n, s, "ps") == Approx(ps_formula(n, static_cast<double>(s))).epsilon(1e-3));
  }
}

TEST_CASE("one rank needs no communication", "[coll][star]") {
  CHECK(predicted_seconds(1, 1 << 20, "ring") == 0.0);
  CHECK(predicted_seconds(1, 1 << 20, "ps") == 0.0);
}

TEST_CASE("busbw = algbw x 2(N-1)/N for all-reduce", "[coll]") {
  const Topology t = make_star(StarSpec{8, Bandwidth{kB}, Time::from_us(1)});
  LinkGraph g(t);
  const auto p = predict_collective(g, Collective{CollectiveOp::AllReduce, 8, 0, Bytes{1 << 30}}, "ring");
  CHECK(p.algbw_gbps == Approx((1 << 30) / p.time.seconds() / 1e9));
  CHECK(p.busbw_gbps == Approx(p.algbw_gbps * 2.0 * 7 / 8));
  // Large messages approach the link rate: busbw -> B = 12.5 GB/s.
  CHECK(p.busbw_gbps == Approx(12.5).epsilon(0.01));
}
