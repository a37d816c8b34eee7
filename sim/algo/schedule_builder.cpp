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
  // Pacing: a join over each source's sends of the previous step (direct when one).
  std::unordered_map<int, TransferId> paced;
  if (pace_senders_) {
    for (auto& [src, sent] : last_sends_) {
      if (sent.size() == 1) {
        paced.emplace(src, sent.front());
      } else if (!sent.empty()) {
        paced.emplace(src, s_.add_join(sent));
      }
    }
  }
  std::map<int, std::vector<TransferId>> sends;
  for (std::size_t i = 0; i < queued_.size(); ++i) {
    deps = reads[i];
    deps.insert(deps.end(), extra_.begin(), extra_.end());
    if (const auto it = paced.find(queued_[i].src); it != paced.end()) deps.push_back(it->second);
    const TransferId id = s_.add(queued_[i], deps);
    ids.push_back(id);
    Writers& w = writers_[key(queued_[i].dst, queued_[i].chunk)];
    if (w.step != step_) {
      w.step = step_;
      w.ids.clear();
      w.join = -1;
    }
    w.ids.push_back(id);
    if (pace_senders_) sends[queued_[i].src].push_back(id);
  }
  if (pace_senders_) last_sends_ = std::move(sends);
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
