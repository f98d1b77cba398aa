// A rank killed in the middle of an allreduce: the others must return an
// error that names a peer, well before their own timeout, and never hang.
#include <signal.h>

#include <algorithm>
#include <fstream>

#include "comm/communicator.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/rank_harness.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace dlp::runtime {
namespace {

using ::testing::HasSubstr;
using testing::RankGroup;
using testing::RunRanks;

// "transport/algorithm": shared memory runs the direct algorithm unless the
// ring is forced; "zero-copy" is the automatic choice between shared blocks.
class CommFaultTest : public ::testing::TestWithParam<std::string> {};

TEST_P(CommFaultTest, KilledRankMakesTheOthersFail) {
  constexpr int kRanks = 3, kVictim = 1;
  const std::string transport = GetParam().substr(0, GetParam().find('/'));
  const std::string algo = GetParam().substr(GetParam().find('/') + 1);
  dlp::testing::TempDir dir;
  auto progress = [&](int rank) { return dir.Join("progress-" + std::to_string(rank)); };
  RankGroup group = RunRanks(
      kRanks,
      [&](int rank, int port) -> absl::Status {
        auto store = ConnectTcpStore("127.0.0.1", port, testing::TestSecret(), absl::Seconds(10));
        if (!store.ok()) return store.status();
        auto options = testing::TestOptions(rank, kRanks, transport);
        options.timeout = absl::Seconds(120);  // longer than the test's deadline
        const bool zero_copy = algo == "zero-copy";
        options.algo = zero_copy ? "auto" : algo;
        auto comm = Communicator::Create(options, std::move(*store));
        if (!comm.ok()) return comm.status();
        const size_t count = 1 << 20;
        std::vector<float> own(count, 1.0f);
        float* buf = own.data();
        std::shared_ptr<SharedWindow> window;
        if (zero_copy) {
          auto made = (*comm)->AllocateShared(count * sizeof(float));
          if (!made.ok()) return made.status();
          window = *made;
          buf = reinterpret_cast<float*>(window->block(rank));
          std::fill(buf, buf + count, 1.0f);
        }
        for (int i = 0; i < 100000; ++i) {
          absl::Status s = (*comm)->Allreduce(buf, buf, count, DLP_FLOAT32, DLP_AVG);
          if (!s.ok()) return s;
          if (zero_copy && (*comm)->zero_copy_allreduces() == 0) {
            return absl::InternalError("staged instead of zero-copy");
          }
          std::ofstream(progress(rank)) << i;
        }
        return absl::InternalError("the victim was never killed");
      },
      absl::Seconds(60),
      [&](const std::vector<pid_t>& pids) {
        // Kill the victim once every rank has completed an allreduce.
        bool running = dlp::testing::Eventually([&] {
          for (int r = 0; r < kRanks; ++r) {
            if (dlp::testing::ReadFileOrEmpty(progress(r)).empty()) return false;
          }
          return true;
        });
        EXPECT_TRUE(running);
        kill(pids[kVictim], SIGKILL);
      });
  EXPECT_THAT(group.ranks[kVictim].message, HasSubstr("signal 9"));
  for (int r = 0; r < kRanks; ++r) {
    if (r == kVictim) continue;
    EXPECT_FALSE(group.ranks[r].ok);
    EXPECT_FALSE(group.ranks[r].timed_out) << "rank " << r << " hung";
    EXPECT_THAT(group.ranks[r].message, HasSubstr("rank " + std::to_string(kVictim)))
        << "rank " << r;
  }
}

INSTANTIATE_TEST_SUITE_P(Transports, CommFaultTest,
                         ::testing::Values("tcp/ring", "tcp/doubling", "shm/ring", "shm/direct",
                                           "shm/zero-copy"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           name[name.find('/')] = '_';
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

TEST(CommFaultTest, BrokenCommunicatorFailsFast) {
  RankGroup group = RunRanks(2, [&](int rank, int port) -> absl::Status {
    auto store = ConnectTcpStore("127.0.0.1", port, testing::TestSecret(), absl::Seconds(10));
    if (!store.ok()) return store.status();
    auto comm = Communicator::Create(testing::TestOptions(rank, 2, "shm"), std::move(*store));
    if (!comm.ok()) return comm.status();
    if (rank == 1) return absl::OkStatus();  // leaves at once: destroys its communicator
    int32_t x = 1;
    absl::Status first = (*comm)->Allreduce(&x, &x, 1, DLP_INT32, DLP_SUM);
    if (first.ok()) return absl::InternalError("allreduce with a departed peer succeeded");
    absl::Status second = (*comm)->Barrier();
    if (second.ok() || second.message().find("earlier error") == std::string::npos) {
      return absl::InternalError(absl::StrCat("second call: ", second.message()));
    }
    return absl::OkStatus();
  });
  EXPECT_TRUE(group.AllOk()) << group.Describe();
}

}  // namespace
}  // namespace dlp::runtime
