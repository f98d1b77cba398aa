#include "models/evaluate.h"

#include <algorithm>
#include <vector>

#include "data/batch_loader.h"

namespace dlp::fmnist {
namespace {

constexpr int kEvalChunk = 256;

}  // namespace

absl::StatusOr<double> TestAccuracy(const Samples& test, Network& net, Kernels& k,
                                    const float* params, Collective& group) {
  const auto [lo, hi] = RankSlice(test.count, group.rank(), group.size());
  std::vector<int> order(test.count);
  for (int i = 0; i < test.count; ++i) order[i] = i;
  BatchLoader loader(&k, kEvalChunk);
  float counts[2] = {0, static_cast<float>(hi - lo)};
  for (int begin = lo; begin < hi; begin += kEvalChunk) {
    const int rows = std::min(kEvalChunk, hi - begin);
    loader.Load(test, order.data() + begin, rows);
    counts[0] +=
        static_cast<float>(net.Evaluate(params, loader.x(), loader.labels(), rows).correct);
  }
  DLP_RETURN_IF_ERROR(k.Check());
  DLP_RETURN_IF_ERROR(group.AllreduceSum(counts, 2));
  return counts[1] > 0 ? static_cast<double>(counts[0]) / counts[1] : 0.0;
}

}  // namespace dlp::fmnist
