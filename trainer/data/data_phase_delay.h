// Fault injection for tests of `dlp profile` (a straggler in the data phase):
// DLP_TEST_SLOW_RANK=R and DLP_TEST_SLOW_MS=N make rank R sleep N ms in every
// step's data phase. Without them it does nothing.
#pragma once

namespace dlp::fmnist {

class DataPhaseDelay {
 public:
  explicit DataPhaseDelay(int rank);
  // Sleeps the delay set for this rank, if any.
  void Apply() const;

 private:
  int ms_ = 0;
};

}  // namespace dlp::fmnist
