// dlpd shared between tenants: a tenant's job runs as the tenant's Unix
// account with a fresh environment and cannot read dlpd's token or state; an
// unknown account is refused; dlpd without the privilege refuses tokens. Needs
// root (adds accounts); skips otherwise.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "absl/strings/str_cat.h"
#include "dlpd_fixture.h"
#include "support/unix_user.h"

namespace dlp::testing {
namespace {

constexpr char kTenantToken[] = "tenant-token-0123456789";

uid_t Owner(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? st.st_uid : static_cast<uid_t>(-1);
}

class DlpdIsolation : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string why = EnsureTestUser("dlptest-a", {"dlptest-extra"}, &user_);
    if (!why.empty()) GTEST_SKIP() << why;
    MakeSearchableUpwards(dir_.path());
    tokens_ = dir_.WriteFile("tokens", absl::StrCat("dlptest-a ", kTenantToken, "\n",
                                                    "dlptest-nobody nobody-token-0123456789\n",
                                                    "default default-token-0123456789\n"));
  }

  std::string State() const { return dir_.Join("state"); }

  TempDir dir_;
  TestUser user_;
  std::string tokens_;
};

TEST_F(DlpdIsolation, TenantJobRunsAsItsAccountAndCannotReadTheOwnersToken) {
  RunOptions options;
  options.env = {{"DLPD_TEST_MARKER", "dlpd-only"}, {"XDG_STATE_HOME", dir_.Join("xdg")}};
  Dlpd dlpd(State(), {"--tokens", tokens_}, options);
  ASSERT_TRUE(dlpd.WaitReady()) << dlpd.process().OutputSoFar();
  const std::string script = absl::StrCat(
      "echo uid=$(id -u) groups=$(id -G)\n"
      "echo marker=${DLPD_TEST_MARKER:-absent} xdg=${XDG_STATE_HOME:-absent}\n"
      "echo home=$HOME user=$USER\n"
      "cat ",
      State(), "/dlpd.token && echo token-read || echo token-denied\n", "ls ", State(),
      " && echo state-listed || echo state-denied\n");
  auto tenant = dlpd.Client(kTenantToken);
  const std::string id = SubmitJson(*tenant, ShellJob("probe", script)).value("id", "");
  ASSERT_FALSE(id.empty());
  auto job = WaitJob(*tenant, id);
  ASSERT_EQ(job.value("state", ""), "Succeeded") << job.dump();

  const std::string folder = State() + "/jobs/" + id;
  const std::string log = ReadFileOrEmpty(folder + "/logs/worker-0.log");
  EXPECT_NE(log.find(absl::StrCat("uid=", user_.uid, " ")), std::string::npos) << log;
  EXPECT_NE(log.find(absl::StrCat(" ", GroupId("dlptest-extra"))), std::string::npos) << log;
  EXPECT_EQ(log.find("groups=0"), std::string::npos) << log;
  EXPECT_NE(log.find("marker=absent xdg=absent"), std::string::npos) << log;
  EXPECT_NE(log.find("user=dlptest-a"), std::string::npos) << log;
  EXPECT_NE(log.find("Permission denied"), std::string::npos) << log;
  EXPECT_NE(log.find("token-denied"), std::string::npos) << log;
  EXPECT_NE(log.find("state-denied"), std::string::npos) << log;
  EXPECT_EQ(log.find(dlpd.token()), std::string::npos) << "the owner's token leaked";
  for (const std::string& path :
       {folder, folder + "/logs", folder + "/logs/worker-0.log", folder + "/status.json"}) {
    EXPECT_EQ(Owner(path), user_.uid) << path;
  }
  EXPECT_EQ(FileMode(State()) & 077, 011);  // searchable for the jobs, never readable
  EXPECT_EQ(FileMode(State() + "/dlpd.token"), 0600);

  // The owner's jobs run as today: dlpd's user and environment.
  auto owner = dlpd.Client();
  const std::string mine =
      SubmitJson(*owner, ShellJob("mine", "echo uid=$(id -u) marker=$DLPD_TEST_MARKER"))
          .value("id", "");
  ASSERT_EQ(WaitJob(*owner, mine).value("state", ""), "Succeeded");
  EXPECT_NE(ReadFileOrEmpty(State() + "/jobs/" + mine + "/logs/worker-0.log")
                .find("uid=0 marker=dlpd-only"),
            std::string::npos);
}

// dlpd reads a tenant's logs and traces as root: a link the job leaves there
// must not make it serve dlpd's own files.
TEST_F(DlpdIsolation, LinksInTheJobFolderDoNotLeadDlpdToItsFiles) {
  Dlpd dlpd(State(), {"--tokens", tokens_});
  ASSERT_TRUE(dlpd.WaitReady()) << dlpd.process().OutputSoFar();
  const std::string jobs = State() + "/jobs/";
  const std::string script = absl::StrCat(
      "echo visible\n"
      "ln -s ",
      State(), "/dlpd.token ", jobs, "$DLP_JOB_ID/logs/steal.log\n", "ln -s ", State(),
      "/dlpd.token ", jobs, "$DLP_JOB_ID/logs/rank-0.trace.json\n");
  auto tenant = dlpd.Client(kTenantToken);
  const std::string id = SubmitJson(*tenant, ShellJob("links", script)).value("id", "");
  ASSERT_EQ(WaitJob(*tenant, id).value("state", ""), "Succeeded");
  auto logs = tenant->Get(("/v1/jobs/" + id + "/logs").c_str());
  ASSERT_TRUE(logs);
  EXPECT_NE(logs->body.find("visible"), std::string::npos) << logs->body;
  EXPECT_EQ(logs->body.find(dlpd.token()), std::string::npos) << "the owner's token leaked";
  auto traces = tenant->Get(("/v1/jobs/" + id + "/traces").c_str());
  ASSERT_TRUE(traces);
  EXPECT_EQ(traces->body.find(dlpd.token()), std::string::npos) << "the owner's token leaked";

  // The whole log folder swapped for a link to the state folder (dlpd.log).
  const std::string swap =
      absl::StrCat("mv ", jobs, "$DLP_JOB_ID/logs ", jobs, "$DLP_JOB_ID/real && ln -s ", State(),
                   " ", jobs, "$DLP_JOB_ID/logs && echo swapped\n");
  const std::string second = SubmitJson(*tenant, ShellJob("swap", swap)).value("id", "");
  ASSERT_EQ(WaitJob(*tenant, second).value("state", ""), "Succeeded");
  ASSERT_NE(ReadFileOrEmpty(jobs + second + "/real/worker-0.log").find("swapped"),
            std::string::npos);
  auto swapped = tenant->Get(("/v1/jobs/" + second + "/logs").c_str());
  ASSERT_TRUE(swapped);
  EXPECT_EQ(swapped->body.find("listening on"), std::string::npos) << swapped->body;
}

TEST_F(DlpdIsolation, TenantWithoutAUnixAccountIsRefused) {
  Dlpd dlpd(State(), {"--tokens", tokens_});
  ASSERT_TRUE(dlpd.WaitReady()) << dlpd.process().OutputSoFar();
  int status = 0;
  auto body = SubmitJson(*dlpd.Client("nobody-token-0123456789"), ShellJob("x", "exit 0"), &status);
  EXPECT_EQ(status, 400) << body.dump();
  EXPECT_NE(body.dump().find("no Unix account \\\"dlptest-nobody\\\""), std::string::npos)
      << body.dump();
  // A tenant named as the owner's jobs are stored would otherwise run as dlpd's user.
  body = SubmitJson(*dlpd.Client("default-token-0123456789"), ShellJob("x", "exit 0"), &status);
  EXPECT_EQ(status, 400) << body.dump();
  EXPECT_EQ(GetJson(*dlpd.Client(), "/v1/jobs")["jobs"].size(), 0u);
}

TEST_F(DlpdIsolation, WithoutThePrivilegeTokensAreRefused) {
  const std::string state = dir_.Join("user-state");
  mkdir(state.c_str(), 0700);
  ASSERT_EQ(chown(state.c_str(), user_.uid, user_.gid), 0);
  chmod(tokens_.c_str(), 0644);
  RunResult r = testing::Run(AsUser(user_, {BinPath("dlpd"), "--state-dir", state, "--listen",
                                            "127.0.0.1:0", "--tokens", tokens_}),
                             {.timeout = absl::Seconds(30)});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("CAP_SETUID"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("tenant"), std::string::npos) << r.err;
}

// A dlpd that is not root but holds the capabilities (e.g. systemd's
// AmbientCapabilities=) serves tenants; their jobs hold none of them.
TEST_F(DlpdIsolation, DlpdWithCapabilitiesRunsTenantJobsWithoutThem) {
  TestUser service;
  const std::string why = EnsureTestUser("dlptest-svc", {}, &service);
  if (!why.empty()) GTEST_SKIP() << why;
  const std::string state = dir_.Join("svc-state");
  mkdir(state.c_str(), 0700);
  ASSERT_EQ(chown(state.c_str(), service.uid, service.gid), 0);
  chmod(tokens_.c_str(), 0644);
  const std::string caps = "+setuid,+setgid,+chown,+kill,+dac_read_search";
  const std::vector<std::string> wrapper = {"setpriv",
                                            absl::StrCat("--reuid=", service.uid),
                                            absl::StrCat("--regid=", service.gid),
                                            "--clear-groups",
                                            "--inh-caps=" + caps,
                                            "--ambient-caps=" + caps,
                                            "--"};
  Dlpd dlpd(state, {"--tokens", tokens_}, {}, wrapper);
  ASSERT_TRUE(dlpd.WaitReady()) << dlpd.process().OutputSoFar();
  auto tenant = dlpd.Client(kTenantToken);
  const std::string id =
      SubmitJson(*tenant, ShellJob("caps", "echo uid=$(id -u); grep Cap /proc/self/status"))
          .value("id", "");
  auto job = WaitJob(*tenant, id);
  ASSERT_EQ(job.value("state", ""), "Succeeded") << job.dump();
  const std::string log = ReadFileOrEmpty(state + "/jobs/" + id + "/logs/worker-0.log");
  EXPECT_NE(log.find(absl::StrCat("uid=", user_.uid)), std::string::npos) << log;
  for (const char* set : {"CapPrm", "CapEff", "CapAmb"}) {
    EXPECT_NE(log.find(absl::StrCat(set, ":\t0000000000000000")), std::string::npos) << set << "\n"
                                                                                     << log;
  }
}

TEST_F(DlpdIsolation, UnprivilegedDlpdSaysLimitsAreNotEnforced) {
  const std::string state = dir_.Join("user-state");
  mkdir(state.c_str(), 0700);
  ASSERT_EQ(chown(state.c_str(), user_.uid, user_.gid), 0);
  Dlpd dlpd(state, {}, {}, AsUser(user_, {}));
  ASSERT_TRUE(dlpd.WaitReady()) << dlpd.process().OutputSoFar();
  auto client = dlpd.Client();
  const std::string id = SubmitJson(*client, ShellJob("free", "exit 0")).value("id", "");
  ASSERT_EQ(WaitJob(*client, id).value("state", ""), "Succeeded");
  const std::string events = GetJson(*client, "/v1/jobs/" + id + "/events").dump();
  EXPECT_NE(events.find("LimitsNotEnforced"), std::string::npos) << events;
}

}  // namespace
}  // namespace dlp::testing
