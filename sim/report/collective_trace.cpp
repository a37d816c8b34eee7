#include "sim/report/collective_trace.hpp"

#include <map>
#include <set>

#include <fmt/format.h>

#include "sim/report/chrome_trace.hpp"

namespace collsim {

void write_collective_trace(std::ostream& out, const CollectivePrediction& p, const CollectiveReplay& r,
                            const std::string& topology) {
  const Schedule& s = r.schedule;
  const std::vector<Transfer> transfers = s.transfers();
  ChromeTrace trace;
  const std::string what = fmt::format("{} {} B {}/{}", to_string(p.collective.op), p.collective.size.count, p.algorithm,
                                       to_string(p.protocol));
  const int top = trace.add_process(fmt::format("collective on {} ({} ranks)", topology, s.ranks()));
  const int whole = trace.add_track(top, "collective");
  const Time base = r.base_latency;
  trace.add_slice(whole, what, "collective", Time{}, base + r.duration,
                  {{"channels", p.channels}, {"predicted_us", p.time.us()}});
  if (base.ps > 0) trace.add_slice(trace.add_track(top, "base latency"), "base latency", "latency", Time{}, base);

  // Tracks: per rank, per channel it uses (ascending), send then receive.
  std::vector<std::set<int>> channels(static_cast<std::size_t>(s.ranks()));
  for (const Transfer& t : transfers) {
    if (t.kind == TransferKind::Join) continue;
    channels[static_cast<std::size_t>(t.src)].insert(t.channel);
    channels[static_cast<std::size_t>(t.dst)].insert(t.channel);
  }
  std::map<std::pair<int, int>, std::pair<int, int>> track;  // (rank, channel) -> (send, recv)
  for (int rank = 0; rank < s.ranks(); ++rank) {
    const int pid = trace.add_process(fmt::format("rank {}", rank));
    for (int ch : channels[static_cast<std::size_t>(rank)]) {
      const int send = trace.add_track(pid, fmt::format("channel {} send", ch));
      track[{rank, ch}] = {send, trace.add_track(pid, fmt::format("channel {} recv", ch))};
    }
  }
  for (std::size_t id = 0; id < transfers.size(); ++id) {
    const Transfer& t = transfers[id];
    if (t.kind == TransferKind::Join) continue;
    const TransferTiming& tm = r.timings[id];
    nlohmann::ordered_json args = {{"transfer", id},
                                   {"bytes", t.bytes.count},
                                   {"chunk", t.chunk},
                                   {"kind", t.kind == TransferKind::Reduce ? "reduce" : "copy"}};
    if (t.leg == TransferLeg::ToSwitch) args["leg"] = "to switch";
    if (t.leg == TransferLeg::FromSwitch) args["leg"] = "from switch";
    if (t.leg == TransferLeg::Span) args["leg"] = fmt::format("route links {} to {}", t.span_begin, t.span_end - 1);
    trace.add_slice(track[{t.src, t.channel}].first, fmt::format("send to {}", t.dst), "send", base + tm.start,
                    base + tm.end, args);
    trace.add_slice(track[{t.dst, t.channel}].second, fmt::format("recv from {}", t.src), "recv", base + tm.start,
                    base + tm.end, std::move(args));
  }
  trace.write(out);
}

}  // namespace collsim
