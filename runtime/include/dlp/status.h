// Status helpers. Every fallible libdlp and runtime function returns
// absl::Status or absl::StatusOr<T>; no exception crosses a public header.
// It lives with the runtime, the lowest layer, so both layers share it.
#pragma once

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define DLP_STATUS_CONCAT_INNER_(a, b) a##b
#define DLP_STATUS_CONCAT_(a, b) DLP_STATUS_CONCAT_INNER_(a, b)

// Returns from the current function if `expr` (an absl::Status) is not OK.
#define DLP_RETURN_IF_ERROR(expr)                       \
  do {                                                  \
    ::absl::Status dlp_status_ = (expr);                \
    if (!dlp_status_.ok()) return dlp_status_;          \
  } while (0)

// DLP_ASSIGN_OR_RETURN(auto x, Foo()): assigns the value of an absl::StatusOr
// or returns its error from the current function.
#define DLP_ASSIGN_OR_RETURN(lhs, expr) \
  DLP_ASSIGN_OR_RETURN_IMPL_(DLP_STATUS_CONCAT_(dlp_statusor_, __LINE__), lhs, expr)
#define DLP_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                               \
  if (!tmp.ok()) return tmp.status();              \
  lhs = std::move(tmp).value()
