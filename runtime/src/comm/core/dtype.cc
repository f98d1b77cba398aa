#include "comm/core/dtype.h"

namespace dlp::runtime {

size_t DTypeSize(dlp_dtype t) {
  switch (t) {
    case DLP_FLOAT32: return 4;
    case DLP_FLOAT64: return 8;
    case DLP_FLOAT16: return 2;
    case DLP_BFLOAT16: return 2;
    case DLP_INT32: return 4;
    case DLP_INT64: return 8;
  }
  return 0;
}

const char* DTypeName(dlp_dtype t) {
  switch (t) {
    case DLP_FLOAT32: return "float32";
    case DLP_FLOAT64: return "float64";
    case DLP_FLOAT16: return "float16";
    case DLP_BFLOAT16: return "bfloat16";
    case DLP_INT32: return "int32";
    case DLP_INT64: return "int64";
  }
  return "unknown";
}

const char* OpName(dlp_op op) {
  switch (op) {
    case DLP_SUM: return "sum";
    case DLP_AVG: return "avg";
    case DLP_MIN: return "min";
    case DLP_MAX: return "max";
  }
  return "unknown";
}

bool IsValidDType(int t) { return t >= DLP_FLOAT32 && t <= DLP_INT64; }
bool IsValidOp(int op) { return op >= DLP_SUM && op <= DLP_MAX; }

}  // namespace dlp::runtime
