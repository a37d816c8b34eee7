#include "sim/algo/schedule_stats.hpp"

#include <algorithm>

namespace collsim {

ScheduleStats schedule_stats(const Schedule& s) {
  ScheduleStats st;
  st.level.assign(s.size(), 0);
  st.sent.assign(static_cast<std::size_t>(s.ranks()), Bytes{});
  st.received = st.sent;
  for (TransferId id = 0; id < s.size(); ++id) {
    std::uint32_t deepest = 0;
    for (TransferId d : s.deps(id)) deepest = std::max(deepest, st.level[d]);
    const Transfer& t = s.transfer(id);
    if (t.kind == TransferKind::Join) {
      st.level[id] = deepest;
      continue;
    }
    st.level[id] = deepest + 1;
    if (st.steps.size() < st.level[id]) st.steps.resize(st.level[id]);
    StepStats& step = st.steps[st.level[id] - 1];
    ++step.transfers;
    step.bytes += t.bytes;
    st.sent[static_cast<std::size_t>(t.src)] += t.bytes;
    st.received[static_cast<std::size_t>(t.dst)] += t.bytes;
    ++st.transfers;
    st.total += t.bytes;
  }
  return st;
}

}  // namespace collsim
