// The CPU kernels' loops are compiled for AVX-512, for AVX2 with FMA and for
// the baseline, and the widest the CPU runs is picked at load time (GCC's
// target_clones), so the binary stays portable.
#pragma once

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define FMNIST_CLONES \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define FMNIST_CLONES
#endif
