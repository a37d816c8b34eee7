#include "sim/algo/power_of_two_fold.hpp"

namespace collsim {

PowerOfTwoFold::PowerOfTwoFold(int n) : ranks(n), p(1), r(0) {
  while (p * 2 <= n) p *= 2;
  r = n - p;
}

void PowerOfTwoFold::fold_in(StepBuilder& b, int chunks) const {
  if (r == 0) return;
  for (int i = 0; i < r; ++i) {
    for (int c = 0; c < chunks; ++c) b.send(2 * i, 2 * i + 1, c, TransferKind::Reduce);
  }
  b.end_step();
  // The participants' first exchange starts once the fold is in (a rendezvous receiver
  // posts its receive only then).
  b.barrier();
}

void PowerOfTwoFold::fold_out(StepBuilder& b, int chunks) const {
  if (r == 0) return;
  for (int i = 0; i < r; ++i) {
    for (int c = 0; c < chunks; ++c) b.send(2 * i + 1, 2 * i, c, TransferKind::Copy);
  }
  b.end_step();
}

}  // namespace collsim
