// The trust boundary (docs/security.md): a tenant's job attacks the dlpd that
// runs it as root, through the files it writes. Each test runs the attack as a
// real job of a real shared dlpd with two tenant accounts, and asserts that it
// fails and that nothing else is harmed. Needs root (adds accounts); skips
// otherwise.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "libdlp/server/daemon/dlpd_fixture.h"
#include "support/unix_user.h"

namespace dlp::testing {
namespace {

constexpr char kTokenA[] = "tenant-a-token-0123456789";
constexpr char kTokenB[] = "tenant-b-token-0123456789";

class HostileJob : public ::testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_DLP_RUN();
    for (auto [name, user] : {std::pair{"dlptest-a", &a_}, std::pair{"dlptest-b", &b_}}) {
      const std::string why = EnsureTestUser(name, {}, user);
      if (!why.empty()) GTEST_SKIP() << why;
    }
    MakeSearchableUpwards(dir_.path());
    tokens_ = dir_.WriteFile(
        "tokens", absl::StrCat("dlptest-a ", kTokenA, "\ndlptest-b ", kTokenB, "\n"));
    dlpd_ = std::make_unique<Dlpd>(State(), std::vector<std::string>{"--tokens", tokens_});
    ASSERT_TRUE(dlpd_->WaitReady()) << dlpd_->process().OutputSoFar();
    tenant_ = dlpd_->Client(kTokenA);
  }

  std::string State() const { return dir_.Join("state"); }

  // Runs `script` as tenant A's job and waits for its end.
  nlohmann::json RunAsTenant(const std::string& name, const std::string& script,
                             const std::string& workdir = "") {
    JobSpec spec = ShellJob(name, script);
    spec.workdir = workdir;
    const std::string id = SubmitJson(*tenant_, spec).value("id", "");
    EXPECT_FALSE(id.empty());
    return WaitJob(*tenant_, id);
  }

  // Every byte dlpd answered to tenant A for `path`, whatever the status.
  std::string Answer(const std::string& path) {
    auto res = tenant_->Get(path.c_str());
    return res ? absl::StrCat(res->status, " ", res->body) : "no answer";
  }

  void ExpectNoSecretIn(const std::string& text, const std::string& what) {
    EXPECT_EQ(text.find(dlpd_->token()), std::string::npos) << what << " leaked the owner's token";
    EXPECT_EQ(text.find("root:"), std::string::npos) << what << " leaked /etc/shadow";
  }

  TempDir dir_;
  TestUser a_, b_;
  std::string tokens_;
  std::unique_ptr<Dlpd> dlpd_;
  std::unique_ptr<httplib::Client> tenant_;
};

// C1: the job makes its own output folder a link to /; the artifact endpoints
// and the model registry read below it as root.
TEST_F(HostileJob, OutputFolderLinkedToRootServesNothingOfTheHost) {
  const std::string state_below_root = State().substr(1);
  auto job = RunAsTenant("c1", "rm -rf \"$DLP_OUTPUT_DIR\" && ln -s / \"$DLP_OUTPUT_DIR\"");
  ASSERT_EQ(job.value("state", ""), "Succeeded") << job.dump();
  const std::string id = job.value("id", "");
  for (const std::string& file :
       {std::string("etc/shadow"), state_below_root + "/dlpd.token", std::string("etc/passwd")}) {
    const std::string answer = Answer(absl::StrCat("/v1/jobs/", id, "/artifacts/", file));
    EXPECT_EQ(answer.substr(0, 3), "404") << file << ": " << answer.substr(0, 200);
    ExpectNoSecretIn(answer, file);
  }
  const std::string listing = Answer(absl::StrCat("/v1/jobs/", id, "/artifacts"));
  EXPECT_EQ(listing.find("etc/"), std::string::npos) << listing.substr(0, 300);
  int status = 0;
  nlohmann::json model = PostJson(
      *tenant_, "/v1/models",
      {{"name", "stolen"}, {"job", id}, {"path", state_below_root + "/dlpd.token"}}, &status);
  EXPECT_GE(status, 400) << model.dump();
  ExpectNoSecretIn(Answer("/v1/models"), "the model registry");
  // The owner's token still is the owner's alone.
  auto admin = tenant_->Get("/v1/admin/tenants");
  ASSERT_TRUE(admin);
  EXPECT_EQ(admin->status, 403);
}

// C2: the job's workdir holds a repository whose refs folder is a link to
// dlpd's state folder, and whose HEAD names the token as a ref.
TEST_F(HostileJob, GitRefsLinkedToTheStateFolderRevealNothing) {
  const std::string workdir = dir_.Join("a-home");
  ASSERT_EQ(mkdir(workdir.c_str(), 0755), 0);
  ASSERT_EQ(chown(workdir.c_str(), a_.uid, a_.gid), 0);
  const std::string script = absl::StrCat(
      "mkdir -p .git && printf 'ref: refs/dlpd.token\\n' > .git/HEAD && ln -s ", State(),
      " .git/refs && echo weights > \"$DLP_OUTPUT_DIR/model.bin\"");
  auto job = RunAsTenant("c2", script, workdir);
  ASSERT_EQ(job.value("state", ""), "Succeeded") << job.dump();
  int status = 0;
  nlohmann::json model = PostJson(
      *tenant_, "/v1/models", {{"name", "m"}, {"job", job.value("id", "")}, {"path", "model.bin"}},
      &status);
  ASSERT_EQ(status, 201) << model.dump();
  EXPECT_NE(model.value("gitCommit", ""), Trimmed(dlpd_->token()));
  ExpectNoSecretIn(model.dump(), "the model's gitCommit");
}

// C3: the job writes its own status file, naming another process group (a
// process of root's here) and a host made of terminal escapes, freezes the
// file so that dlp-run cannot correct it, and fails: dlpd's clean-up must not
// kill what the file names.
TEST_F(HostileJob, StatusFileCannotDirectDlpdsSignalsNorItsText) {
  Background victim({"sleep", "600"});  // a group of its own: pgid = pid
  const int victim_pid = victim.pid();
  ASSERT_TRUE(Eventually([&] { return Alive(victim_pid); }));
  const std::string escapes = "\\u001b]52;c;b3duZWQ=\\u0007";
  const std::string status = absl::StrCat(
      R"({"pid": 1, "state": "Running", "restarts": 0, "reason": "", "replicas": [)",
      R"({"name": "worker-0", "role": "worker", "index": 0, "rank": 0, "host": ")", escapes,
      std::string(5000, 'h'), R"(", "pid": )", victim_pid, R"(, "pgid": )", victim_pid,
      R"(, "state": "Running"}]})");
  const std::string script = absl::StrCat("cd \"$DLP_OUTPUT_DIR/..\" && printf '%s' '", status,
                                          "' > status.json && chmod 500 . && exit 3");
  auto job = RunAsTenant("c3", script);
  EXPECT_EQ(job.value("state", ""), "Failed") << job.dump();
  EXPECT_TRUE(Alive(victim_pid)) << "dlpd killed a process the job's status file named";
  ASSERT_EQ(job["replicas"].size(), 1u) << job.dump();
  const std::string host = job["replicas"][0].value("host", "");
  EXPECT_EQ(host.find('\x1b'), std::string::npos) << "an escape reached the API: " << host;
  EXPECT_LE(host.size(), 256u) << "the host was not capped";
}

// C3, the other tenant: tenant A's status file names tenant B's running job.
TEST_F(HostileJob, StatusFileCannotKillAnotherTenantsJob) {
  auto b = dlpd_->Client(kTokenB);
  const std::string victim =
      SubmitJson(*b, ShellJob("victim", "echo pgid=$(ps -o pgid= $$ | tr -d ' '); sleep 600"))
          .value("id", "");
  ASSERT_FALSE(victim.empty());
  const std::string log = State() + "/jobs/" + victim + "/logs/worker-0.log";
  std::string pgid;
  ASSERT_TRUE(Eventually([&] {
    const std::string text = ReadFileOrEmpty(log);
    const size_t at = text.find("pgid=");
    const size_t end = at == std::string::npos ? at : text.find('\n', at);
    if (end == std::string::npos) return false;
    pgid = text.substr(at + 5, end - at - 5);
    return true;
  }, absl::Seconds(60))) << ReadFileOrEmpty(log);
  const std::string status = absl::StrCat(
      R"({"pid": 1, "state": "Running", "replicas": [{"name": "worker-0", "pid": )", pgid,
      R"(, "pgid": )", pgid, R"(, "state": "Running"}]})");
  auto job = RunAsTenant("c3b", absl::StrCat("cd \"$DLP_OUTPUT_DIR/..\" && printf '%s' '", status,
                                             "' > status.json && chmod 500 . && exit 3"));
  EXPECT_EQ(job.value("state", ""), "Failed") << job.dump();
  EXPECT_EQ(GetJson(*b, "/v1/jobs/" + victim).value("state", ""), "Running")
      << "tenant A's job killed tenant B's";
  EXPECT_TRUE(Alive(std::stoi(pgid)));
}

}  // namespace
}  // namespace dlp::testing
