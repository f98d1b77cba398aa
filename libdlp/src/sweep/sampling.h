// Where a sweep's trials come from: the points of a grid, or values drawn at
// random. Trial N's values depend only on the spec, the seed and N, so a
// sweep resumed after a crash draws exactly the values it would have drawn,
// and the same seed gives the same trials on every machine.
//
// The generator is SplitMix64 (Steele, Lea and Flood, "Fast splittable
// pseudorandom number generators", OOPSLA 2014): its output is fixed by its
// definition, unlike std::uniform_*_distribution's, which each standard
// library implements its own way. Trial N's stream starts at
// seed + N·0x9E3779B97F4A7C15 (the generator's own increment), so streams of
// neighbouring trials do not overlap for any practical length; each parameter
// in file order takes the next output. A uniform double in [0, 1) is the top
// 53 bits of an output times 2^-53.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "dlp/sweep.h"

namespace dlp::internal {

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t state) : state_(state) {}
  uint64_t Next();
  double Uniform();  // [0, 1)

 private:
  uint64_t state_;
};

// The number of points of the grid over the parameters (int: every integer
// from min to max; float/logfloat: `steps` points; categorical: its values),
// or nullopt when it is past kMaxSweepTrials (or a float has no steps).
std::optional<int64_t> GridSize(const SweepSpec& spec);
// How many trials the sweep runs: the grid's size, capped by maxTrials when
// given; maxTrials for random and asha.
int TotalTrials(const SweepSpec& spec);
// The values of trial `number` (1-based): the grid's point number-1 (the last
// parameter varies fastest) or values drawn for trial `number`.
TrialParams SampleTrial(const SweepSpec& spec, int number);
// A value as substituted: integers in decimal, floats with 6 significant digits.
std::string FormatParamValue(ParamType type, double value);

}  // namespace dlp::internal
