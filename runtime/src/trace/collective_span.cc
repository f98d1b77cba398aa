#include "trace/collective_span.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "trace/tracer.h"

namespace dlp::runtime::trace {

CollectiveSpan::CollectiveSpan(const char* op, size_t bytes, const char* dtype,
                               const char* reduce_op, const char* algorithm, int ranks)
    : on_(Enabled()),
      op_(op),
      bytes_(bytes),
      dtype_(dtype),
      reduce_op_(reduce_op),
      algorithm_(algorithm),
      ranks_(ranks) {
  if (on_) start_ns_ = NowNs();
}

double CollectiveSpan::BusFactor(const std::string& op, int ranks) {
  if (ranks < 2) return 1.0;
  if (op == "allreduce") return 2.0 * (ranks - 1) / ranks;
  if (op == "allgather" || op == "reduce_scatter") return 1.0 * (ranks - 1) / ranks;
  return 1.0;
}

CollectiveSpan::~CollectiveSpan() {
  if (!on_) return;
  const int64_t end = NowNs();
  const double seconds = (end - start_ns_) / 1e9;
  const double algbw = seconds > 0 ? bytes_ / seconds / 1e9 : 0;
  std::string args = absl::StrFormat(
      "\"op\":\"%s\",\"bytes\":%d,\"dtype\":\"%s\",\"algorithm\":\"%s\",\"ranks\":%d,"
      "\"algbw_GBps\":%.4f,\"busbw_GBps\":%.4f",
      op_, bytes_, dtype_, algorithm_, ranks_, algbw, algbw * BusFactor(op_, ranks_));
  if (reduce_op_ != nullptr && *reduce_op_ != '\0') {
    absl::StrAppend(&args, ",\"reduce\":\"", reduce_op_, "\"");
  }
  Complete(op_, "comm", start_ns_, end, args);
}

}  // namespace dlp::runtime::trace
