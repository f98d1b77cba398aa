// Backends by name, the remote backend against a real dlpd, and the errors a
// caller sees when the server is unreachable or refuses the token.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>

#include "client_test_util.h"
#include "dlp/spec.h"
#include "gmock/gmock.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::IsSupersetOf;

TEST(BackendRegistryTest, NamesAndErrors) {
  const std::vector<std::string> names = BackendNames();
  EXPECT_THAT(names, IsSupersetOf({"local", "remote"}));
  // Known backends that this build lacks are refused by name.
  for (const std::string name : {"slurm", "kubernetes"}) {
    if (std::find(names.begin(), names.end(), name) != names.end()) continue;
    auto missing = CreateBackend(Context{"x", name, {}});
    EXPECT_EQ(missing.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(missing.status().message(), "backend '" + name + "' is not built into this dlp");
  }
  auto unknown = CreateBackend(Context{"x", "nomad", {}});
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(unknown.status().message(), HasSubstr("unknown backend 'nomad'"));
  EXPECT_THAT(unknown.status().message(), HasSubstr("local, remote"));
  auto no_server = CreateBackend(Context{"team", "remote", {}});
  EXPECT_EQ(no_server.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(no_server.status().message(), HasSubstr("needs 'server"));
  auto bad_url = CreateBackend(Context{"team", "remote", {{"server", "gpu-box:8470"}}});
  ASSERT_TRUE(bad_url.ok());
  EXPECT_EQ((*bad_url)->List({}).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(BackendRegistryTest, ClientCreateUsesTheConfig) {
  TempDir dir;
  const std::string config = dir.WriteFile(
      "config.yaml", "current-context: team\ncontexts:\n  - {name: team, backend: remote, "
                     "server: 'http://127.0.0.1:1'}\n");
  auto client = Client::Create({.context = "", .config_path = config});
  ASSERT_TRUE(client.ok()) << client.status();
  EXPECT_EQ((*client)->context().name, "team");
  EXPECT_EQ((*client)->context().backend, "remote");
  // Its backend is the remote one: it asks the server, which is not there.
  EXPECT_EQ((*client)->List().status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(Client::Create({.context = "nope", .config_path = config}).status().code(),
            absl::StatusCode::kNotFound);
}

TEST(RemoteBackendTest, UnreachableServerIsUnavailable) {
  // A port that was free a moment ago: nothing listens there.
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  const std::string address = "127.0.0.1:" + std::to_string(ntohs(addr.sin_port));
  auto backend = CreateBackend(Context{"team", "remote", {{"server", "http://" + address}}});
  ASSERT_TRUE(backend.ok());
  auto jobs = (*backend)->List({});
  EXPECT_EQ(jobs.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(jobs.status().message(), "cannot reach dlpd at " + address + ": connection refused");
}

TEST(RenderTest, ShowsTheDlpRunCommandAndGroup) {
  auto backend = CreateBackend(Context{"local", "local", {}});
  ASSERT_TRUE(backend.ok());
  JobSpec spec;
  spec.name = "mnist";
  spec.workdir = "/work";
  spec.framework = Framework::kPyTorch;
  ReplicaSpec worker;
  worker.role = "worker";
  worker.count = 4;
  worker.command = {"python3", "train.py", "--lr", "0.1", "it's"};
  spec.replicas.push_back(worker);
  spec.restart_policy = {RestartPolicyKind::kOnFailure, 3, 5};
  auto rendered = (*backend)->Render(spec);  // needs no server
  ASSERT_TRUE(rendered.ok()) << rendered.status();
  EXPECT_THAT(*rendered, HasSubstr("DLP_JOB_NAME=mnist DLP_OUTPUT_DIR=STATE/jobs/ID/output dlp-run "
                                   "--group STATE/jobs/ID/group.json "
                                   "--log-dir STATE/jobs/ID/logs --status-file"));
  EXPECT_THAT(*rendered, HasSubstr("\"framework\": \"pytorch\""));
  EXPECT_THAT(*rendered, HasSubstr("\"restartPolicy\": \"OnFailure\""));
  EXPECT_THAT(*rendered, HasSubstr("\"maxRestarts\": 3"));
  EXPECT_THAT(*rendered, HasSubstr("\"count\": 4"));
  EXPECT_THAT(*rendered, HasSubstr("\"it's\""));
}

using RemoteAgainstDlpdTest = LocalDlpdTest;

TEST_F(RemoteAgainstDlpdTest, TokenDecidesAccess) {
  auto server = StartLocalServer(ServerOptions());
  ASSERT_TRUE(server.ok()) << server.status();
  const std::string url = "http://" + server->address;

  auto wrong = CreateBackend(Context{"team", "remote", {{"server", url}, {"token", "wrong"}}});
  ASSERT_TRUE(wrong.ok());
  auto refused = (*wrong)->List({});
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kUnauthenticated) << refused.status();
  auto none = CreateBackend(Context{"team", "remote", {{"server", url}}});
  EXPECT_EQ((*none)->Get("1").status().code(), absl::StatusCode::kUnauthenticated);

  // The right token, from a token file as a remote context names it.
  auto right = CreateBackend(
      Context{"team", "remote", {{"server", url + "/"}, {"token-file", state_dir_ + "/dlpd.token"}}});
  ASSERT_TRUE(right.ok()) << right.status();
  auto job = (*right)->Submit(ShellJob("remote", "exit 3"));
  ASSERT_TRUE(job.ok()) << job.status();
  auto done = (*right)->Wait(job->id, absl::Seconds(30));
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ(done->state, JobState::kFailed);
  EXPECT_EQ(done->exit_code, 3);

  auto missing = CreateBackend(
      Context{"team", "remote", {{"server", url}, {"token-file", dir_.Join("absent.token")}}});
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(missing.status().message(), HasSubstr("token-file"));
}

TEST_F(RemoteAgainstDlpdTest, InvalidSpecIsInvalidArgument) {
  auto client = NewLocalClient();
  JobSpec spec = ShellJob("bad", "true");
  spec.replicas[0].count = 0;
  EXPECT_EQ(client->Submit(spec).status().code(), absl::StatusCode::kInvalidArgument);
  // A job that can never fit is refused by dlpd itself.
  spec = ShellJob("huge", "true");
  spec.replicas[0].resources.cpu_millis = 1000 * 100000;
  auto huge = client->Submit(spec);
  EXPECT_EQ(huge.status().code(), absl::StatusCode::kInvalidArgument) << huge.status();
}

}  // namespace
}  // namespace dlp::testing
