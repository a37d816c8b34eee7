// Micro-benchmarks of the engine core: the event queue and the max-min sharing solver.
#include <benchmark/benchmark.h>

#include <array>
#include <vector>

#include "sim/core/event_queue.hpp"
#include "sim/net/flow_network.hpp"

namespace {

void BM_EventQueueScheduleRun(benchmark::State& state) {
  const auto n = static_cast<std::int64_t>(state.range(0));
  for (auto _ : state) {
    collsim::EventQueue q;
    std::int64_t sum = 0;
    for (std::int64_t i = 0; i < n; ++i) q.schedule(collsim::Time{(i * 7919) % n}, [&sum, i] { sum += i; });
    while (!q.empty()) q.run_next();
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_EventQueueScheduleRun)->Arg(1 << 10)->Arg(1 << 16)->Arg(1 << 20);

// N flows into one link (a parameter-server incast): one component of N flows.
void BM_MaxMinIncast(benchmark::State& state) {
  const auto n = static_cast<int>(state.range(0));
  for (auto _ : state) {
    collsim::FlowNetwork net;
    const auto sink = net.add_link(collsim::Bandwidth::gbps(100));
    std::vector<collsim::LinkId> ups;
    for (int i = 0; i < n; ++i) ups.push_back(net.add_link(collsim::Bandwidth::gbps(100)));
    // Routes must outlive their flows (FlowNetwork keeps a view of them).
    std::vector<std::array<collsim::LinkId, 2>> routes;
    routes.reserve(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
      routes.push_back({ups[static_cast<std::size_t>(i)], sink});
      net.start_flow(collsim::Time{0}, routes.back(), collsim::Bytes{1'000'000 + i});
    }
    std::vector<collsim::FlowId> done;
    while (auto t = net.next_completion()) net.complete_until(*t, done);
    benchmark::DoNotOptimize(done.size());
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_MaxMinIncast)->Arg(16)->Arg(256)->Arg(1024);

}  // namespace
