// Subnormal floats flushed to zero on this thread while the object lives
// (x86's FTZ and DAZ bits; elsewhere nothing). Momentum decays the velocity of
// weights that seldom get a gradient (pixels that are nearly always black)
// into the subnormal range, where every multiply and add takes a microcode
// assist: a rank then spends most of its step in the optimizer. Threads
// started while it lives inherit the mode.
#pragma once

namespace dlp::fmnist {

class ScopedFlushDenormals {
 public:
  ScopedFlushDenormals();
  ~ScopedFlushDenormals();
  ScopedFlushDenormals(const ScopedFlushDenormals&) = delete;
  ScopedFlushDenormals& operator=(const ScopedFlushDenormals&) = delete;

 private:
  unsigned saved_ = 0;
};

}  // namespace dlp::fmnist
