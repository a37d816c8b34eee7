#include "sim/train/stream_program.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <optional>

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace collsim {

namespace {

class StreamPlayer {
 public:
  StreamPlayer(const StreamProgram& p, const StreamOptions& o) : p_(p), o_(o) {
    tl_.host = host_launch_times(p);
    tl_.compute.resize(p.compute.size());
    tl_.comm.resize(p.comm.size());
    tl_.comm_issued.resize(p.comm.size());
    issued_.assign(p.comm.size(), false);
    done_.assign(p.comm.size(), false);
    if (o.comm_concurrency < 1) throw InternalError("comm_concurrency must be >= 1");
  }

  StreamTimeline run() {
    for (std::size_t c = 0; c < p_.comm.size(); ++c) {
      if (p_.comm[c].issued_at_start) issue(c);
    }
    while (true) {
      start_ready();
      const double k = static_cast<double>(active_.size());
      double slowdown = o_.compute_slowdown;
      for (const auto& a : active_) slowdown = std::max(slowdown, p_.comm[a.id].compute_slowdown);
      const double compute_rate = k > 0 ? 1.0 / (1.0 + slowdown) : 1.0;
      std::optional<std::int64_t> next;
      if (running_) next = later(std::ceil(compute_left_ / compute_rate));
      for (const auto& a : active_) {
        const auto f = later(std::ceil(a.left * k));
        if (!next || f < *next) next = f;
      }
      // A task ready on its stream but not yet launched by the host starts at its launch.
      if (const auto h = host_wait(); h && (!next || *h < *next)) next = h;
      if (!next) break;
      advance(*next, compute_rate, k);
    }
    if (ci_ != p_.compute.size()) {
      throw InternalError(fmt::format("compute task \"{}\" waits on communication that never runs", p_.compute[ci_].name));
    }
    for (const auto& iv : tl_.compute) tl_.end = std::max(tl_.end, iv.end);
    for (const auto& iv : tl_.comm) tl_.end = std::max(tl_.end, iv.end);
    return std::move(tl_);
  }

 private:
  struct Active {
    std::size_t id;
    double left;  // ps of work left (when running alone)
  };

  // now + dt, for a delay in ps: a step whose tasks add up past the clock's range throws
  // OverflowError instead of wrapping into negative times.
  [[nodiscard]] std::int64_t later(double dt) const {
    std::int64_t t = 0;
    if (!(dt < units_detail::kTwoTo63) || __builtin_add_overflow(now_, static_cast<std::int64_t>(dt), &t) || t == INT64_MAX) {
      units_detail::time_overflow();
    }
    return t;
  }

  void issue(std::size_t c) {
    if (issued_[c]) throw InternalError(fmt::format("communication task \"{}\" issued twice", p_.comm[c].name));
    issued_[c] = true;
    tl_.comm_issued[c] = std::max(Time{now_}, host_.comm[c]);
    fifo_.push_back(c);
  }

  // Starts whatever can start now: collectives in issue order, then the next compute task.
  void start_ready() {
    bool progress = true;
    while (progress) {
      progress = false;
      while (!fifo_.empty() && static_cast<int>(active_.size()) < o_.comm_concurrency) {
        const std::size_t c = fifo_.front();
        if (host_.comm[c].ps > now_) break;
        const auto& after = p_.comm[c].after;
        if (!std::all_of(after.begin(), after.end(), [&](std::size_t d) { return done_[d]; })) break;
        const auto& after_compute = p_.comm[c].after_compute;
        if (!std::all_of(after_compute.begin(), after_compute.end(), [&](std::size_t t) { return t < ci_; })) break;
        fifo_.pop_front();
        tl_.comm[c].start = Time{now_};
        if (p_.comm[c].work.ps == 0) {
          finish_comm(c);
        } else {
          active_.push_back(Active{c, static_cast<double>(p_.comm[c].work.ps)});
        }
        progress = true;
      }
      if (!running_ && ci_ < p_.compute.size() && host_.compute[ci_].ps <= now_) {
        const auto& wait = p_.compute[ci_].wait;
        if (std::all_of(wait.begin(), wait.end(), [&](std::size_t d) { return done_[d]; })) {
          tl_.compute[ci_].start = Time{now_};
          running_ = true;
          compute_left_ = static_cast<double>(p_.compute[ci_].work.ps);
          if (p_.compute[ci_].work.ps == 0) finish_compute();
          progress = true;
        }
      }
    }
  }

  // The earliest host launch still ahead of the clock that holds back a stream's next task.
  [[nodiscard]] std::optional<std::int64_t> host_wait() const {
    std::optional<std::int64_t> t;
    if (!fifo_.empty() && host_.comm[fifo_.front()].ps > now_) t = host_.comm[fifo_.front()].ps;
    if (!running_ && ci_ < p_.compute.size() && host_.compute[ci_].ps > now_ && (!t || host_.compute[ci_].ps < *t)) {
      t = host_.compute[ci_].ps;
    }
    return t;
  }

  void advance(std::int64_t t, double compute_rate, double k) {
    const double dt = static_cast<double>(t - now_);
    now_ = t;
    std::vector<std::size_t> finished;
    for (auto& a : active_) {
      if (std::ceil(a.left * k) <= dt) {
        a.left = 0;
        finished.push_back(a.id);
      } else {
        a.left = std::max(a.left - dt / k, 0.5);  // not finished: keep a positive remainder
      }
    }
    bool compute_done = false;
    if (running_) {
      if (std::ceil(compute_left_ / compute_rate) <= dt) {
        compute_done = true;
      } else {
        compute_left_ = std::max(compute_left_ - dt * compute_rate, 0.5);
      }
    }
    std::erase_if(active_, [](const Active& a) { return a.left == 0; });
    for (std::size_t c : finished) finish_comm(c);
    if (compute_done) finish_compute();
  }

  void finish_comm(std::size_t c) {
    tl_.comm[c].end = Time{now_};
    done_[c] = true;
  }

  void finish_compute() {
    tl_.compute[ci_].end = Time{now_};
    running_ = false;
    for (std::size_t c : p_.compute[ci_].issue) issue(c);
    ++ci_;
  }

  const StreamProgram& p_;
  StreamOptions o_;
  StreamTimeline tl_;
  const HostLaunches& host_ = tl_.host;
  std::int64_t now_ = 0;
  std::vector<bool> issued_, done_;
  std::deque<std::size_t> fifo_;
  std::vector<Active> active_;
  std::size_t ci_ = 0;
  bool running_ = false;
  double compute_left_ = 0;
};

}  // namespace

StreamTimeline play_streams(const StreamProgram& p, const StreamOptions& o) { return StreamPlayer(p, o).run(); }

HostLaunches host_launch_times(const StreamProgram& p) {
  HostLaunches h;
  h.compute.resize(p.compute.size());
  h.comm.resize(p.comm.size());
  Time clock{};
  const auto launch_comm = [&](std::size_t c) {
    clock += p.comm[c].launch;
    h.comm[c] = clock;
  };
  for (std::size_t c = 0; c < p.comm.size(); ++c) {
    if (p.comm[c].issued_at_start) launch_comm(c);
  }
  for (std::size_t i = 0; i < p.compute.size(); ++i) {
    clock += p.compute[i].launch;
    h.compute[i] = clock;
    for (std::size_t c : p.compute[i].issue) launch_comm(c);
  }
  h.total = clock;
  return h;
}

namespace {

// Length of the union of intervals.
Time union_length(std::vector<Interval> v) {
  std::sort(v.begin(), v.end(), [](const Interval& a, const Interval& b) { return a.start < b.start; });
  Time total{};
  std::optional<Interval> cur;
  for (const auto& iv : v) {
    if (cur && iv.start <= cur->end) {
      cur->end = std::max(cur->end, iv.end);
      continue;
    }
    if (cur) total += cur->end - cur->start;
    cur = iv;
  }
  if (cur) total += cur->end - cur->start;
  return total;
}

}  // namespace

Time StreamTotals::compute(const std::string& category) const {
  const auto it = compute_by_category.find(category);
  return it == compute_by_category.end() ? Time{} : it->second;
}

StreamTotals stream_totals(const StreamProgram& p, const StreamTimeline& t) {
  StreamTotals r;
  for (std::size_t i = 0; i < p.compute.size(); ++i) {
    const Time d = t.compute[i].end - t.compute[i].start;
    r.compute_busy += d;
    r.compute_by_category[p.compute[i].category] += d;
  }
  for (const auto& iv : t.comm) r.comm_total += iv.end - iv.start;
  r.comm_busy = union_length(t.comm);
  r.end = t.end;
  // Idle before a task until the host launched it counts as waiting for the host; idle
  // after that (its communication not done) and after the last task, as communication.
  const HostLaunches& host = t.host;
  Time prev{};
  for (std::size_t i = 0; i < p.compute.size(); ++i) {
    const Time bound = std::min(t.compute[i].start, host.compute[i]);
    if (bound > prev) r.host_wait += bound - prev;
    prev = t.compute[i].end;
  }
  r.exposed_comm = r.end - r.compute_busy - r.host_wait;
  if (r.comm_busy.ps > 0) {
    r.overlap_percent = 100.0 * static_cast<double>((r.comm_busy - r.exposed_comm).ps) / static_cast<double>(r.comm_busy.ps);
  }
  return r;
}

}  // namespace collsim
