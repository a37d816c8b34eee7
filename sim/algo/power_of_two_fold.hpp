// The standard way recursive algorithms handle a rank count that is not a power of two
// (Thakur, Rabenseifner & Gropp 2005): with p the largest power of two <= N and r = N - p,
// ranks 2i and 2i+1 (i < r) first fold: 2i sends its whole buffer to 2i+1, which takes
// part as one of p "participants"; at the end 2i+1 sends the result back to 2i.
#pragma once

#include "sim/algo/schedule_builder.hpp"

namespace collsim {

struct PowerOfTwoFold {
  explicit PowerOfTwoFold(int ranks);

  int ranks;
  int p;  // participants: largest power of two <= ranks
  int r;  // folded pairs: ranks - p

  // Rank of participant q.
  [[nodiscard]] int rank(int q) const { return q < r ? 2 * q + 1 : q + r; }
  // Rank 2i reduces every chunk in [0, chunks) into 2i+1 (one step); no-op when r = 0.
  void fold_in(StepBuilder& b, int chunks) const;
  // Rank 2i+1 copies every chunk back to 2i (one step).
  void fold_out(StepBuilder& b, int chunks) const;
};

}  // namespace collsim
