#include "nn/flush_denormals.h"

#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

namespace dlp::fmnist {

#if defined(__SSE2__)
namespace {
constexpr unsigned kFlushToZero = 0x8000;       // MXCSR.FTZ: results
constexpr unsigned kDenormalsAreZero = 0x0040;  // MXCSR.DAZ: inputs
}  // namespace

ScopedFlushDenormals::ScopedFlushDenormals() : saved_(_mm_getcsr()) {
  _mm_setcsr(saved_ | kFlushToZero | kDenormalsAreZero);
}
ScopedFlushDenormals::~ScopedFlushDenormals() { _mm_setcsr(saved_); }
#else
ScopedFlushDenormals::ScopedFlushDenormals() = default;
ScopedFlushDenormals::~ScopedFlushDenormals() = default;
#endif

}  // namespace dlp::fmnist
