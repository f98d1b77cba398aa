// Collectives across real processes: ranks × transports, every dtype and op,
// counts 0, 1, odd, prime and beyond one pipeline chunk; results checked
// against a float64 reference and compared byte for byte across ranks.
#include <cmath>
#include <ostream>
#include <vector>

#include "comm/communicator.h"
#include "dlp/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/collective_check.h"
#include "runtime/rank_harness.h"
#include "support/temp_dir.h"

namespace dlp::runtime {
namespace {

using testing::CheckResult;
using testing::CompareAcrossRanks;
using testing::RankGroup;
using testing::RunRanks;
using testing::TestOptions;

constexpr auto& kDTypes = testing::kAllDTypes;
constexpr auto& kOps = testing::kAllOps;
constexpr size_t kCounts[] = {0, 1, 7, 1009, 70001};

absl::StatusOr<std::unique_ptr<Communicator>> Join(int rank, int size, int port,
                                                   const std::string& transport,
                                                   const std::string& host_id = "h0",
                                                   const std::string& algo = "auto") {
  auto store = ConnectTcpStore("127.0.0.1", port, testing::TestSecret(), absl::Seconds(10));
  if (!store.ok()) return store.status();
  CommOptions o = TestOptions(rank, size, transport, host_id);
  o.algo = algo;
  return Communicator::Create(o, std::move(*store));
}

std::string CaseName(const std::string& dir, dlp_dtype t, dlp_op op, size_t count) {
  return absl::StrFormat("%s/%s-%s-%d", dir, DTypeName(t), OpName(op), count);
}

struct Param {
  int ranks;
  std::string transport;
  std::string algo;  // DLP_COMM_ALGO
  int hosts = 1;     // ranks spread over this many host ids, in rank order
};

// So that ctest's test list names the case instead of dumping its bytes.
void PrintTo(const Param& p, std::ostream* os) {
  *os << p.ranks << " ranks, " << p.transport << ", " << p.algo << ", " << p.hosts << " host(s)";
}

std::string HostOf(const Param& p, int rank) { return absl::StrCat("h", rank * p.hosts / p.ranks); }

class CommTest : public ::testing::TestWithParam<Param> {};

TEST_P(CommTest, AllreduceEveryDTypeOpAndCount) {
  const int n = GetParam().ranks;
  const std::string transport = GetParam().transport;
  dlp::testing::TempDir dir;
  RankGroup group = RunRanks(n, [&](int rank, int port) -> absl::Status {
    auto comm = Join(rank, n, port, transport, HostOf(GetParam(), rank), GetParam().algo);
    if (!comm.ok()) return comm.status();
    if (n > 1 && transport != "auto" && std::string((*comm)->send_transport()) != transport) {
      return absl::InternalError(absl::StrCat("expected ", transport, ", got ",
                                              (*comm)->send_transport()));
    }
    // The forced algorithm is the one that runs (one-shot only where it fits).
    if (n > 1 && AlgoName((*comm)->AllreduceAlgo(4096)) != GetParam().algo) {
      return absl::InternalError(absl::StrCat("expected ", GetParam().algo, ", got ",
                                              AlgoName((*comm)->AllreduceAlgo(4096))));
    }
    uint64_t seed = 1;
    for (dlp_dtype t : kDTypes) {
      for (dlp_op op : kOps) {
        for (size_t count : kCounts) {
          ++seed;
          size_t elem = DTypeSize(t);
          std::vector<char> send(count * elem + 1), recv(count * elem + 1);
          testing::FillInput(send.data(), count, seed, rank, t);
          bool in_place = seed % 2 == 0;
          void* out = in_place ? send.data() : recv.data();
          absl::Status s = (*comm)->Allreduce(send.data(), out, count, t, op);
          if (!s.ok()) return s;
          if (absl::Status c = CheckResult(out, count, seed, rank, n, t, op); !c.ok()) return c;
          testing::WriteFile(absl::StrFormat("%s-%d.bin", CaseName(dir.path(), t, op, count), rank),
                             out, count * elem);
        }
      }
    }
    return absl::OkStatus();
  });
  ASSERT_TRUE(group.AllOk()) << group.Describe();
  for (dlp_dtype t : kDTypes) {
    for (dlp_op op : kOps) {
      for (size_t count : kCounts) {
        EXPECT_EQ(CompareAcrossRanks(CaseName(dir.path(), t, op, count), n, DTypeSize(t)), "");
      }
    }
  }
}

// A reduce-scatter of `per` elements a rank; this rank's block is checked
// against the float64 reference of the same elements of the whole buffer.
absl::Status ReduceScatterAndCheck(Communicator& comm, int rank, int n, dlp_dtype t, dlp_op op,
                                   size_t per, uint64_t seed, bool in_place) {
  const size_t elem = DTypeSize(t), all = per * static_cast<size_t>(n);
  std::vector<char> send(all * elem + 1), recv(per * elem + 1);
  testing::FillInput(send.data(), all, seed, rank, t);
  char* out = in_place ? send.data() + static_cast<size_t>(rank) * per * elem : recv.data();
  DLP_RETURN_IF_ERROR(comm.ReduceScatter(send.data(), out, per, t, op));
  const double tolerance = testing::Tolerance(t, n);
  for (size_t i = 0; i < per; ++i) {
    const size_t at = static_cast<size_t>(rank) * per + i;
    const double want = testing::Reference(seed, n, at, t, op);
    const double got = testing::Load(out, i, t);
    if (!(std::fabs(got - want) <= tolerance)) {
      return absl::InternalError(absl::StrFormat(
          "%s %s %d per rank%s: rank %d element %d: got %.9g, want %.9g", DTypeName(t), OpName(op),
          per, in_place ? " in place" : "", rank, at, got, want));
    }
  }
  return absl::OkStatus();
}

TEST_P(CommTest, ReduceScatterEveryDTypeOpAndCount) {
  const int n = GetParam().ranks;
  RankGroup group = RunRanks(n, [&](int rank, int port) -> absl::Status {
    auto comm =
        Join(rank, n, port, GetParam().transport, HostOf(GetParam(), rank), GetParam().algo);
    if (!comm.ok()) return comm.status();
    uint64_t seed = 1;
    for (dlp_dtype t : kDTypes) {
      for (dlp_op op : kOps) {
        for (size_t per : kCounts) {
          ++seed;
          if (absl::Status s =
                  ReduceScatterAndCheck(**comm, rank, n, t, op, per, seed, seed % 2 == 0);
              !s.ok()) {
            return s;
          }
        }
      }
    }
    return absl::OkStatus();
  });
  ASSERT_TRUE(group.AllOk()) << group.Describe();
}

TEST_P(CommTest, BroadcastAllgatherBarrier) {
  const int n = GetParam().ranks;
  const std::string transport = GetParam().transport;
  RankGroup group = RunRanks(n, [&](int rank, int port) -> absl::Status {
    auto comm = Join(rank, n, port, transport, HostOf(GetParam(), rank), GetParam().algo);
    if (!comm.ok()) return comm.status();
    for (int root = 0; root < n; ++root) {
      for (size_t count : {size_t{1}, size_t{1009}, size_t{300007}}) {
        std::vector<int32_t> buf(count);
        for (size_t i = 0; i < count; ++i) {
          buf[i] = rank == root ? static_cast<int32_t>(i * 7 + root) : -1;
        }
        if (absl::Status s = (*comm)->Broadcast(buf.data(), count, DLP_INT32, root); !s.ok())
          return s;
        for (size_t i = 0; i < count; ++i) {
          if (buf[i] != static_cast<int32_t>(i * 7 + root)) {
            return absl::InternalError(absl::StrFormat(
                "broadcast from %d: rank %d index %d: got %d", root, rank, i, buf[i]));
          }
        }
      }
    }
    for (size_t per : {size_t{1}, size_t{13}, size_t{100003}}) {
      std::vector<double> mine(per), all(per * n);
      for (size_t i = 0; i < per; ++i) mine[i] = rank * 1e6 + static_cast<double>(i);
      if (absl::Status s = (*comm)->Allgather(mine.data(), all.data(), per, DLP_FLOAT64); !s.ok())
        return s;
      for (int r = 0; r < n; ++r) {
        for (size_t i = 0; i < per; ++i) {
          if (all[r * per + i] != r * 1e6 + static_cast<double>(i)) {
            return absl::InternalError(absl::StrFormat("allgather: rank %d index %d from rank %d",
                                                       rank, r * per + i, r));
          }
        }
      }
    }
    for (int i = 0; i < 5; ++i) {
      if (absl::Status s = (*comm)->Barrier(); !s.ok()) return s;
    }
    return absl::OkStatus();
  });
  ASSERT_TRUE(group.AllOk()) << group.Describe();
}

// TCP runs the ring and recursive doubling; shared memory every algorithm.
std::vector<Param> Params() {
  std::vector<Param> out;
  for (int n : {1, 2, 3, 4, 5, 8}) out.push_back({n, "tcp", "ring"});
  for (int n : {2, 3, 4, 5, 8}) out.push_back({n, "tcp", "doubling"});
  for (const char* algo : {"ring", "direct"}) {
    for (int n : {1, 2, 3, 4, 5, 8}) out.push_back({n, "shm", algo});
  }
  for (int n : {2, 3, 8}) out.push_back({n, "shm", "oneshot"});
  // Several hosts of several ranks (5 ranks: 3 + 2, 6 ranks: 3 + 3 and 2 + 2 + 2).
  for (auto [n, hosts] : {std::pair{4, 2}, std::pair{5, 2}, std::pair{6, 2}, std::pair{6, 3}}) {
    out.push_back({n, "auto", "hierarchical", hosts});
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(RanksTransportsAndAlgorithms, CommTest, ::testing::ValuesIn(Params()),
                         [](const ::testing::TestParamInfo<Param>& info) {
                           return absl::StrCat(info.param.transport, info.param.ranks, "_",
                                               info.param.algo, "_", info.param.hosts, "hosts");
                         });

// Unless forced, host allreduces try one-shot, direct and the ring in turn
// before they keep one (allreduce_tuner.h): exact and the
// same on every rank through the trials, the choice and after it, in place
// and not, at sizes the table gives to each.
TEST(CommTunedTest, AllreducesStayExactThroughTheTrialsAndTheChoice) {
  constexpr int kRanks = 3;
  constexpr int kCalls = AllreduceTuner::kMostTrialCalls + 3;
  dlp::testing::TempDir dir;
  auto name = [&](size_t count, int call) {
    return absl::StrFormat("%s/tuned-%d-%d", dir.path(), count, call);
  };
  RankGroup group = RunRanks(kRanks, [&](int rank, int port) -> absl::Status {
    auto comm = Join(rank, kRanks, port, "shm");
    if (!comm.ok()) return comm.status();
    for (size_t count : {size_t{7}, size_t{1009}, size_t{70001}}) {
      for (int call = 0; call < kCalls; ++call) {
        const uint64_t seed = count * 100 + static_cast<uint64_t>(call);
        std::vector<float> send(count), recv(count);
        testing::FillInput(send.data(), count, seed, rank, DLP_FLOAT32);
        float* out = call % 3 == 0 ? send.data() : recv.data();
        DLP_RETURN_IF_ERROR((*comm)->Allreduce(send.data(), out, count, DLP_FLOAT32, DLP_SUM));
        DLP_RETURN_IF_ERROR(CheckResult(out, count, seed, rank, kRanks, DLP_FLOAT32, DLP_SUM));
        testing::WriteFile(absl::StrFormat("%s-%d.bin", name(count, call), rank), out,
                           count * sizeof(float));
      }
    }
    return absl::OkStatus();
  });
  ASSERT_TRUE(group.AllOk()) << group.Describe();
  for (size_t count : {size_t{7}, size_t{1009}, size_t{70001}}) {
    for (int call = 0; call < kCalls; ++call) {
      EXPECT_EQ(CompareAcrossRanks(name(count, call), kRanks, sizeof(float)), "");
    }
  }
}

// Two hosts of two ranks each: shared memory inside a host, TCP across.
TEST(CommMixedTest, AutoPicksShmWithinAHostAndTcpBetween) {
  RankGroup group = RunRanks(4, [&](int rank, int port) -> absl::Status {
    auto comm = Join(rank, 4, port, "auto", rank < 2 ? "a" : "b");
    if (!comm.ok()) return comm.status();
    std::string want = rank % 2 == 0 ? "shm" : "tcp";
    if ((*comm)->send_transport() != want) {
      return absl::InternalError(absl::StrCat("rank ", rank, " sends over ",
                                              (*comm)->send_transport(), ", want ", want));
    }
    if ((*comm)->channels() != 1) {
      return absl::InternalError(absl::StrCat("rank ", rank, " has ", (*comm)->channels(),
                                              " channels; a ring with TCP links keeps one"));
    }
    // Large: hierarchical (pipelined in 1 MiB pieces); small:
    // recursive doubling over TCP.
    for (size_t count : {size_t{500009}, size_t{3000017}, size_t{1009}}) {
      if (AlgoName((*comm)->AllreduceAlgo(count * 4)) !=
          std::string(count > 1009 ? "hierarchical" : "doubling")) {
        return absl::InternalError(absl::StrCat(count, " floats: ", AlgoName((*comm)->AllreduceAlgo(count * 4))));
      }
      std::vector<float> buf(count);
      testing::FillInput(buf.data(), count, 99, rank, DLP_FLOAT32);
      if (absl::Status s = (*comm)->Allreduce(buf.data(), buf.data(), count, DLP_FLOAT32, DLP_SUM); !s.ok()) return s;
      if (absl::Status c = CheckResult(buf.data(), count, 99, rank, 4, DLP_FLOAT32, DLP_SUM); !c.ok()) return c;
    }
    return absl::OkStatus();
  });
  EXPECT_TRUE(group.AllOk()) << group.Describe();
}

// Ranks asking for different channel counts agree on the smallest; a large
// allreduce split over the channels is still exact and identical everywhere,
// over shared memory and over TCP.
// Shared memory splits the direct algorithm over the channels' lanes (in
// rounds of several slots), or the ring when forced; TCP the ring. The same
// for a large reduce-scatter and allgather.
class CommChannelsTest : public ::testing::TestWithParam<std::pair<std::string, std::string>> {};

TEST_P(CommChannelsTest, RanksAgreeAndSplitLargeAllreduces) {
  constexpr size_t kCount = 600011;  // 2 parts of at least 600 KB for every dtype
  // Named copies, not a structured binding: clang 14 cannot capture those.
  const std::string transport = GetParam().first;
  const std::string algo = GetParam().second;
  {
    dlp::testing::TempDir dir;
    RankGroup group = RunRanks(3, [&](int rank, int port) -> absl::Status {
      auto store = ConnectTcpStore("127.0.0.1", port, testing::TestSecret(), absl::Seconds(10));
      if (!store.ok()) return store.status();
      CommOptions o = TestOptions(rank, 3, transport);
      o.algo = algo;
      o.channels = rank + 2;  // 2, 3, 4: they settle on 2
      auto comm = Communicator::Create(o, std::move(*store));
      if (!comm.ok()) return comm.status();
      if ((*comm)->channels() != 2) {
        return absl::InternalError(absl::StrCat("rank ", rank, ": ", (*comm)->channels(), " channels"));
      }
      uint64_t seed = 40;
      for (dlp_dtype t : kDTypes) {
        for (dlp_op op : kOps) {
          ++seed;
          std::vector<char> buf(kCount * DTypeSize(t));
          testing::FillInput(buf.data(), kCount, seed, rank, t);
          if (absl::Status s = (*comm)->Allreduce(buf.data(), buf.data(), kCount, t, op); !s.ok()) return s;
          if (absl::Status c = CheckResult(buf.data(), kCount, seed, rank, 3, t, op); !c.ok()) return c;
          testing::WriteFile(absl::StrFormat("%s-%d.bin", CaseName(dir.path(), t, op, kCount), rank),
                             buf.data(), buf.size());
        }
      }
      // Each block split over the channels too, in place and not.
      for (bool in_place : {true, false}) {
        if (absl::Status s = ReduceScatterAndCheck(**comm, rank, 3, DLP_FLOAT32, DLP_SUM, kCount,
                                                   ++seed, in_place);
            !s.ok()) {
          return s;
        }
      }
      // And a large allgather, in place.
      std::vector<int32_t> all(3 * kCount, -1);
      for (size_t i = 0; i < kCount; ++i) all[rank * kCount + i] = static_cast<int32_t>(i) + rank;
      DLP_RETURN_IF_ERROR(
          (*comm)->Allgather(all.data() + rank * kCount, all.data(), kCount, DLP_INT32));
      for (size_t i = 0; i < all.size(); ++i) {
        if (all[i] != static_cast<int32_t>(i % kCount + i / kCount)) {
          return absl::InternalError(
              absl::StrFormat("allgather: rank %d index %d: %d", rank, i, all[i]));
        }
      }
      return absl::OkStatus();
    });
    ASSERT_TRUE(group.AllOk()) << transport << " " << algo << group.Describe();
    for (dlp_dtype t : kDTypes) {
      for (dlp_op op : kOps) {
        EXPECT_EQ(CompareAcrossRanks(CaseName(dir.path(), t, op, kCount), 3, DTypeSize(t)), "")
            << transport << " " << algo;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    TransportsAndAlgorithms, CommChannelsTest,
    ::testing::Values(std::pair<std::string, std::string>{"shm", "direct"},
                      std::pair<std::string, std::string>{"shm", "ring"},
                      std::pair<std::string, std::string>{"tcp", "auto"}),
    [](const ::testing::TestParamInfo<std::pair<std::string, std::string>>& info) {
      return info.param.first + "_" + info.param.second;
    });

// 64M float32 elements (256 MiB) at two ranks: the pipeline and the bounded
// buffers at scale. Checked element by element against the reference.
TEST(CommLargeTest, Allreduce64MFloatsTwoRanks) {
  constexpr size_t kCount = 64u << 20;
  dlp::testing::TempDir dir;
  RankGroup group = RunRanks(2, [&](int rank, int port) -> absl::Status {
    auto comm = Join(rank, 2, port, "auto");
    if (!comm.ok()) return comm.status();
    std::vector<float> buf(kCount);
    for (size_t i = 0; i < kCount; ++i) buf[i] = static_cast<float>((i * (rank + 1)) % 1024) - 512.0f;
    if (absl::Status s = (*comm)->Allreduce(buf.data(), buf.data(), kCount, DLP_FLOAT32, DLP_SUM); !s.ok()) return s;
    uint64_t hash = 1469598103934665603ULL;
    for (size_t i = 0; i < kCount; ++i) {
      float want = static_cast<float>(i % 1024) + static_cast<float>((i * 2) % 1024) - 1024.0f;
      if (buf[i] != want) {
        return absl::InternalError(absl::StrFormat("rank %d index %d: got %g, want %g", rank, i, buf[i], want));
      }
      uint32_t bits;
      std::memcpy(&bits, &buf[i], 4);
      hash = (hash ^ bits) * 1099511628211ULL;
    }
    testing::WriteFile(absl::StrFormat("%s/hash-%d.bin", dir.path(), rank), &hash, sizeof(hash));
    return absl::OkStatus();
  }, absl::Seconds(120));
  ASSERT_TRUE(group.AllOk()) << group.Describe();
  EXPECT_EQ(CompareAcrossRanks(dir.path() + "/hash", 2, 8), "");
}

}  // namespace
}  // namespace dlp::runtime
