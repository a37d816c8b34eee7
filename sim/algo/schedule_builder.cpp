#include "sim/algo/schedule_builder.hpp"

namespace collsim {

void StepBuilder::send(int src, int dst, int chunk, TransferKind kind, TransferLeg leg, bool pipelined) {
  const Bytes bytes = s_.chunks()[static_cast<std::size_t>(chunk)].bytes;
  queued_.push_back(Transfer{src, dst, bytes, chunk, kind, leg, pipelined});
}

std::vector<TransferId> StepBuilder::end_step() {
  std::vector<TransferId> ids;
  ids.reserve(queued_.size());
  std::vector<TransferId> deps;
  // Reads first, against the writers of earlier steps only.
  std::vector<std::vector<TransferId>> reads(queued_.size());
  for (std::size_t i = 0; i < queued_.size(); ++i) {
    const Transfer& t = queued_[i];
    const auto it = writers_.find(key(t.src, t.chunk));
    if (it == writers_.end()) continue;
    Writers& w = it->second;
    if (w.ids.size() <= 2) {
      reads[i] = w.ids;
    } else {
      if (w.join < 0) w.join = s_.add_join(w.ids);
      reads[i].assign(1, static_cast<TransferId>(w.join));
    }
  }
  for (std::size_t i = 0; i < queued_.size(); ++i) {
    deps = reads[i];
    deps.insert(deps.end(), extra_.begin(), extra_.end());
    const TransferId id = s_.add(queued_[i], deps);
    ids.push_back(id);
    Writers& w = writers_[key(queued_[i].dst, queued_[i].chunk)];
    if (w.step != step_) {
      w.step = step_;
      w.ids.clear();
      w.join = -1;
    }
    w.ids.push_back(id);
  }
  queued_.clear();
  extra_.clear();
  last_step_ = ids;
  ++step_;
  return ids;
}

}  // namespace collsim

namespace collsim {

void StepBuilder::barrier() {
  if (last_step_.empty()) return;
  extra_.push_back(s_.add_join(last_step_));
}

}  // namespace collsim
