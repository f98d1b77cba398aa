// The C interface of dlp/comm.h over Communicator: statuses become a non-zero
// return and a thread-local message.
#include <string>

#include "absl/strings/str_cat.h"
#include "comm/communicator.h"
#include "comm/core/dtype.h"
#include "dlp/comm.h"

struct dlp_comm {
  std::unique_ptr<dlp::runtime::Communicator> impl;
};

struct dlp_shared {
  std::shared_ptr<dlp::runtime::SharedWindow> impl;
};

namespace {

thread_local std::string g_last_error;

int Report(const absl::Status& s) {
  if (s.ok()) return 0;
  g_last_error = std::string(s.message());
  return static_cast<int>(s.code());
}

// A C caller may pass any int where dlp/comm.h declares an enum; in C++ a value
// outside the enumerators is undefined. So the entry points read them as the
// C ints they are (no enum check for these functions under UBSan) and refuse
// bad ones before any C++ code sees them.
#if defined(__clang__)
#define DLP_TAKES_C_ENUMS __attribute__((no_sanitize("enum")))
#else
#define DLP_TAKES_C_ENUMS
#endif

int CheckEnums(int t, int op) {
  if (!dlp::runtime::IsValidDType(t)) {
    return Report(absl::InvalidArgumentError(absl::StrCat("unknown dtype ", t)));
  }
  if (!dlp::runtime::IsValidOp(op)) {
    return Report(absl::InvalidArgumentError(absl::StrCat("unknown op ", op)));
  }
  return 0;
}

int NullComm() {
  g_last_error = "null communicator";
  return static_cast<int>(absl::StatusCode::kInvalidArgument);
}

}  // namespace

extern "C" {

int dlp_comm_init_from_env(dlp_comm** out) {
  if (out == nullptr) return NullComm();
  *out = nullptr;
  auto comm = dlp::runtime::Communicator::FromEnv();
  if (!comm.ok()) return Report(comm.status());
  *out = new dlp_comm{std::move(*comm)};
  return 0;
}

int dlp_comm_rank(const dlp_comm* c) { return c != nullptr ? c->impl->rank() : -1; }
int dlp_comm_size(const dlp_comm* c) { return c != nullptr ? c->impl->size() : -1; }

DLP_TAKES_C_ENUMS int dlp_allreduce(dlp_comm* c, const void* send, void* recv, size_t count,
                                    dlp_dtype t, dlp_op op) {
  if (c == nullptr) return NullComm();
  if (int bad = CheckEnums(t, op)) return bad;
  return Report(c->impl->Allreduce(send, recv, count, t, op));
}

DLP_TAKES_C_ENUMS int dlp_broadcast(dlp_comm* c, void* buf, size_t count, dlp_dtype t,
                                    int root) {
  if (c == nullptr) return NullComm();
  if (int bad = CheckEnums(t, DLP_SUM)) return bad;
  return Report(c->impl->Broadcast(buf, count, t, root));
}

DLP_TAKES_C_ENUMS int dlp_allgather(dlp_comm* c, const void* send, void* recv,
                                    size_t count_per_rank, dlp_dtype t) {
  if (c == nullptr) return NullComm();
  if (int bad = CheckEnums(t, DLP_SUM)) return bad;
  return Report(c->impl->Allgather(send, recv, count_per_rank, t));
}

DLP_TAKES_C_ENUMS int dlp_reduce_scatter(dlp_comm* c, const void* send, void* recv,
                                         size_t count_per_rank, dlp_dtype t, dlp_op op) {
  if (c == nullptr) return NullComm();
  if (int bad = CheckEnums(t, op)) return bad;
  return Report(c->impl->ReduceScatter(send, recv, count_per_rank, t, op));
}

int dlp_barrier(dlp_comm* c) {
  if (c == nullptr) return NullComm();
  return Report(c->impl->Barrier());
}

void dlp_comm_destroy(dlp_comm* c) { delete c; }

int dlp_shared_alloc(dlp_comm* c, size_t bytes, dlp_shared** out) {
  if (c == nullptr) return NullComm();
  if (out == nullptr) return Report(absl::InvalidArgumentError("null dlp_shared** out"));
  *out = nullptr;
  auto window = c->impl->AllocateShared(bytes);
  if (!window.ok()) return Report(window.status());
  *out = new dlp_shared{std::move(*window)};
  return 0;
}

void* dlp_shared_block(const dlp_shared* s, int rank, size_t* bytes) {
  if (s == nullptr || rank < 0 || rank >= s->impl->size()) {
    if (bytes != nullptr) *bytes = 0;
    return nullptr;
  }
  if (bytes != nullptr) *bytes = s->impl->bytes(rank);
  return s->impl->block(rank);
}

void dlp_shared_free(dlp_shared* s) { delete s; }

const char* dlp_last_error(void) { return g_last_error.c_str(); }

}  // extern "C"
