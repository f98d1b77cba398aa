// The Slurm backend rides out a moment when Slurm cannot be reached: reads and
// cancels are tried again, submissions never (their answer may be lost after
// Slurm created the job), and Slurm's own answers are not retried.
#include "backends/slurm/retrying_transport.h"

#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <deque>
#include <thread>

#include "backends/factories.h"
#include "dlp/backend.h"
#include "dlp/config.h"
#include "dlp/status.h"
#include "support/temp_dir.h"

namespace dlp::internal {
namespace {

using ::testing::HasSubstr;

// Answers each call with the next scripted status (OK once the script ends).
class ScriptedTransport final : public SlurmTransport {
 public:
  explicit ScriptedTransport(std::deque<absl::Status> script, int* calls)
      : script_(std::move(script)), calls_(calls) {}
  std::string Name() const override { return "scripted"; }
  absl::StatusOr<std::string> Submit(const SlurmSubmission&) override {
    DLP_RETURN_IF_ERROR(Next());
    return std::string("7");
  }
  absl::StatusOr<SlurmJobRecord> Job(const std::string& id) override {
    DLP_RETURN_IF_ERROR(Next());
    SlurmJobRecord record;
    record.id = id;
    return record;
  }
  absl::StatusOr<std::vector<SlurmJobRecord>> Jobs() override {
    DLP_RETURN_IF_ERROR(Next());
    return std::vector<SlurmJobRecord>{};
  }
  absl::Status Cancel(const std::string&) override { return Next(); }

 private:
  absl::Status Next() {
    ++*calls_;
    if (script_.empty()) return absl::OkStatus();
    absl::Status next = script_.front();
    script_.pop_front();
    return next;
  }
  std::deque<absl::Status> script_;
  int* calls_;
};

constexpr SlurmRetryPolicy kQuick{absl::Milliseconds(1), absl::Milliseconds(2), absl::Seconds(30)};

std::unique_ptr<SlurmTransport> Scripted(std::deque<absl::Status> script, int* calls,
                                         SlurmRetryPolicy policy = kQuick) {
  return WithRetries(std::make_unique<ScriptedTransport>(std::move(script), calls), policy);
}

TEST(SlurmRetries, ReadsAndCancelsGoOnPastAMomentWhenSlurmCannotBeReached) {
  const absl::Status dropped = absl::UnavailableError("cannot reach slurmrestd: reset");
  int calls = 0;
  auto transport = Scripted({dropped, dropped}, &calls);
  absl::StatusOr<SlurmJobRecord> job = transport->Job("7");
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->id, "7");
  EXPECT_EQ(calls, 3);

  calls = 0;
  EXPECT_TRUE(Scripted({dropped}, &calls)->Jobs().ok());
  EXPECT_EQ(calls, 2);
  calls = 0;
  EXPECT_TRUE(Scripted({dropped}, &calls)->Cancel("7").ok());
  EXPECT_EQ(calls, 2);
}

TEST(SlurmRetries, ASubmissionIsNeverSentTwice) {
  int calls = 0;
  auto transport = Scripted({absl::UnavailableError("sbatch: Socket timed out")}, &calls);
  EXPECT_TRUE(absl::IsUnavailable(transport->Submit({}).status()));
  EXPECT_EQ(calls, 1);
}

TEST(SlurmRetries, SlurmsOwnAnswerIsNotRetried) {
  int calls = 0;
  auto transport = Scripted({absl::NotFoundError("Slurm knows no job 7")}, &calls);
  EXPECT_TRUE(absl::IsNotFound(transport->Job("7").status()));
  EXPECT_EQ(calls, 1);
}

TEST(SlurmRetries, GivesUpWithTheLastErrorOnceTheBudgetIsSpent) {
  int calls = 0;
  std::deque<absl::Status> down(1000, absl::UnavailableError("slurmctld is down"));
  auto transport = Scripted(down, &calls,
                            {absl::Milliseconds(1), absl::Milliseconds(1), absl::Milliseconds(20)});
  absl::Status status = transport->Job("7").status();
  EXPECT_TRUE(absl::IsUnavailable(status)) << status;
  EXPECT_THAT(status.message(), HasSubstr("slurmctld is down"));
  EXPECT_GT(calls, 1);
  EXPECT_LT(calls, 1000);
}

// A slurmrestd stand-in on loopback: resets the first connection after reading
// the request (as slurmrestd now and then does), then answers with one job.
class FlakyRestServer {
 public:
  FlakyRestServer() {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(addr);
    if (bind(fd_, reinterpret_cast<sockaddr*>(&addr), len) != 0 || listen(fd_, 8) != 0 ||
        getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      ADD_FAILURE() << "cannot listen on loopback";
      return;
    }
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { Serve(); });
  }
  ~FlakyRestServer() {
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    if (thread_.joinable()) thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int connections() const { return connections_; }

 private:
  void Serve() {
    while (true) {
      int conn = accept(fd_, nullptr, nullptr);
      if (conn < 0) return;
      std::string request;
      char buffer[4096];
      while (request.find("\r\n\r\n") == std::string::npos) {
        ssize_t n = read(conn, buffer, sizeof(buffer));
        if (n <= 0) break;
        request.append(buffer, n);
      }
      if (connections_++ == 0) {
        linger reset{1, 0};  // close with RST: "Failure when receiving data from the peer"
        setsockopt(conn, SOL_SOCKET, SO_LINGER, &reset, sizeof(reset));
      } else {
        const std::string body =
            R"({"jobs":[{"job_id":7,"job_state":"RUNNING","user_name":"alice"}],"errors":[]})";
        const std::string reply =
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
            "Connection: close\r\nContent-Length: " +
            std::to_string(body.size()) + "\r\n\r\n" + body;
        (void)!write(conn, reply.data(), reply.size());
      }
      close(conn);
    }
  }
  int fd_ = -1;
  int port_ = 0;
  std::atomic<int> connections_{0};
  std::thread thread_;
};

TEST(SlurmRetries, TheBackendReadsAJobThroughAConnectionSlurmrestdDropped) {
  testing::TempDir dir;
  dir.WriteFile("jwt", "SLURM_JWT=not-checked-here\n");
  FlakyRestServer server;
  Context context{"flaky",
                  "slurm",
                  {{"rest-url", server.url()},
                   {"token-file", dir.Join("jwt")},
                   {"user", "alice"},
                   {"workdir", dir.Join("slurm")}}};
  absl::StatusOr<std::unique_ptr<Backend>> backend = CreateSlurmBackend(context);
  ASSERT_TRUE(backend.ok()) << backend.status();
  absl::StatusOr<Job> job = (*backend)->Get("7");
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->state, JobState::kRunning);
  EXPECT_EQ(server.connections(), 2);
}

}  // namespace
}  // namespace dlp::internal
