// Benchmarks of topology loading and route building on the shipped 16384-GPU H100 fat
// tree: the routes a ring (rank r -> r+1) and a hierarchical algorithm (a ring inside each
// host, and a ring per local GPU index across hosts, 4 ECMP channels) need. Peak resident
// memory of the process is reported as the counter peak_rss_MiB.
#include <benchmark/benchmark.h>

#include <sys/resource.h>

#include <string>

#include "sim/topo/link_graph.hpp"
#include "sim/topo/loader.hpp"

namespace {

const std::string kFile = std::string(COLLSIM_SOURCE_DIR) + "/topologies/h100-fat-tree-16384.json";

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

void BM_LoadFatTree16384(benchmark::State& state) {
  for (auto _ : state) {
    collsim::Topology t = collsim::load_topology_file(kFile);
    benchmark::DoNotOptimize(t.links.data());
  }
  state.counters["peak_rss_MiB"] = peak_rss_mib();
}
BENCHMARK(BM_LoadFatTree16384)->Unit(benchmark::kMillisecond)->Iterations(3);

// Builds a LinkGraph and every route of a flat ring plus a hierarchical (intra-host ring,
// inter-host rail rings with 4 channels) algorithm: 16384 + 16384 + 4 x 16384 routes.
void BM_RoutesFatTree16384(benchmark::State& state) {
  const collsim::Topology t = collsim::load_topology_file(kFile);
  const int n = t.rank_count();
  constexpr int kLocal = 8;
  const int hosts = n / kLocal;
  std::size_t routes = 0;
  std::size_t hops = 0;
  for (auto _ : state) {
    collsim::LinkGraph g(t);
    for (int r = 0; r < n; ++r) hops += g.route(r, (r + 1) % n).links.size();
    for (int h = 0; h < hosts; ++h) {
      for (int i = 0; i < kLocal; ++i) {
        hops += g.route(h * kLocal + i, h * kLocal + (i + 1) % kLocal).links.size();
        for (std::uint32_t ch = 0; ch < 4; ++ch) {
          hops += g.route(h * kLocal + i, ((h + 1) % hosts) * kLocal + i, ch).links.size();
        }
      }
    }
    routes = g.cached_routes();
    benchmark::DoNotOptimize(hops);
  }
  state.counters["routes"] = static_cast<double>(routes);
  state.counters["peak_rss_MiB"] = peak_rss_mib();
}
BENCHMARK(BM_RoutesFatTree16384)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
