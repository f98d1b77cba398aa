// A trace span around one collective, with nccl-tests' bandwidth figures as
// arguments: algbw = bytes / time, busbw = algbw × the op's bus factor
// (allreduce 2(n-1)/n, allgather and reduce-scatter (n-1)/n, broadcast 1).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace dlp::runtime::trace {

class CollectiveSpan {
 public:
  // `op` ("allreduce"), `bytes` per rank (the whole buffer for allgather),
  // `dtype`/`reduce_op` names (reduce_op may be empty), `algorithm` ("ring",
  // "nccl"...), `ranks` in the group. Cheap when tracing is off.
  CollectiveSpan(const char* op, size_t bytes, const char* dtype, const char* reduce_op,
                 const char* algorithm, int ranks);
  ~CollectiveSpan();
  CollectiveSpan(const CollectiveSpan&) = delete;
  CollectiveSpan& operator=(const CollectiveSpan&) = delete;

  // When the algorithm is known only once the collective ran (a static string).
  void set_algorithm(const char* algorithm) { algorithm_ = algorithm; }

  // Bus factor of `op` for `ranks` ranks.
  static double BusFactor(const std::string& op, int ranks);

 private:
  bool on_;
  const char* op_;
  size_t bytes_;
  const char* dtype_;
  const char* reduce_op_;
  const char* algorithm_;
  int ranks_;
  int64_t start_ns_ = 0;
};

}  // namespace dlp::runtime::trace
