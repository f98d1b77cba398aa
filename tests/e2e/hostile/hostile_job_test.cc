// The trust boundary (docs/security.md): a tenant's job attacks the dlpd that
// runs it as root, through the files it writes. Each test runs the attack as a
// real job of a real shared dlpd with two tenant accounts, and asserts that it
// fails and that nothing else is harmed. Needs root (adds accounts); skips
// otherwise.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "server/daemon/dlpd_fixture.h"
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
    std::vector<std::string> args = {"--tokens", tokens_};
    for (std::string& arg : ExtraArgs()) args.push_back(std::move(arg));
    dlpd_ = std::make_unique<Dlpd>(State(), args);
    ASSERT_TRUE(dlpd_->WaitReady()) << dlpd_->process().OutputSoFar();
    tenant_ = dlpd_->Client(kTokenA);
  }

  // What a fixture adds to dlpd's command line.
  virtual std::vector<std::string> ExtraArgs() { return {}; }
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

// C2b: the job replaces its metrics file and its rotated log with links to
// dlpd's token; the logs endpoint reads both kinds of file as root.
TEST_F(HostileJob, MetricsFileAndRotatedLogLinkedToTheTokenRevealNothing) {
  const std::string token = State() + "/dlpd.token";
  const std::string script =
      absl::StrCat("echo 'DLP_METRIC loss=1 step=1'\ncd \"$DLP_TRACE_DIR\" && ",
                   "rm -f \"$DLP_REPLICA.metrics\" && ",
                   "ln -s ", token, " \"$DLP_REPLICA.metrics\" && ",
                   "ln -s ", token, " \"$DLP_REPLICA.log.1\"");
  auto job = RunAsTenant("c2b", script);
  ASSERT_EQ(job.value("state", ""), "Succeeded") << job.dump();
  const std::string logs = absl::StrCat("/v1/jobs/", job.value("id", ""), "/logs");
  for (const char* query : {"", "?metrics=only", "?tail=5"}) {
    const std::string answer = Answer(logs + query);
    EXPECT_EQ(answer.substr(0, 3), "200") << query << ": " << answer.substr(0, 200);
    ExpectNoSecretIn(answer, logs + query);
  }
  // Metrics then come from the log, as for a job written before metrics files.
  EXPECT_NE(Answer(logs + "?metrics=only").find("DLP_METRIC loss=1 step=1"), std::string::npos);
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

// A dlpd that places two GPUs (declared: no GPU is needed), and their device
// nodes made with mknod: opening one the job was not given fails with EPERM
// (its cgroup denies it), one it was given with ENXIO (no driver here).
class HostileGpuJob : public HostileJob {
 protected:
  std::vector<std::string> ExtraArgs() override {
    const std::string inventory = dir_.WriteFile(
        "gpus.yaml", "devices:\n  - {index: 0, uuid: GPU-0, name: NVIDIA H200}\n"
                     "  - {index: 1, uuid: GPU-1, name: NVIDIA H200}\n");
    return {"--gpu-inventory", inventory};
  }

  // What a job holding `gpu_millis` could open, after unsetting
  // CUDA_VISIBLE_DEVICES: "visible=V nvidia0=allowed|denied nvidia1=...".
  std::string OpenedGpus(const std::string& name, int64_t gpu_millis) {
    const std::string dev = dir_.Join("dev");
    mkdir(dev.c_str(), 0755);
    for (int n : {0, 1}) {
      const std::string node = absl::StrCat(dev, "/nvidia", n);
      if (mknod(node.c_str(), S_IFCHR, makedev(195, n)) != 0 && errno != EEXIST) {
        ADD_FAILURE() << node << ": " << strerror(errno);
      }
      chmod(node.c_str(), 0666);  // the tenant may open it, as the driver's nodes
    }
    // Allowed: it opens (a driver is there) or ENXIO (none is); denied: EPERM.
    JobSpec spec = ShellJob(name, absl::StrCat(
        "printf 'visible=%s' \"$CUDA_VISIBLE_DEVICES\"; unset CUDA_VISIBLE_DEVICES; "
        "for n in 0 1; do r=$( (exec 3<>", dev, "/nvidia$n) 2>&1 ); case $r in "
        "*'not permitted'*) s=denied ;; ''|*'No such device'*) s=allowed ;; *) s=\"[$r]\" ;; "
        "esac; printf ' nvidia%s=%s' $n \"$s\"; done"));
    spec.replicas[0].resources.gpu_millis = gpu_millis;
    const std::string id = SubmitJson(*tenant_, spec).value("id", "");
    const nlohmann::json job = WaitJob(*tenant_, id);
    EXPECT_EQ(job.value("state", ""), "Succeeded") << job.dump();
    const nlohmann::json events = GetJson(*tenant_, "/v1/jobs/" + id + "/events");
    for (const auto& e : events["events"]) {
      if (e.value("type", "") == "GpuDevicesNotRestricted" ||
          e.value("type", "") == "LimitsNotEnforced") {
        skip_ = e.value("message", "");
      }
    }
    return ReadFileOrEmpty(State() + "/jobs/" + id + "/logs/worker-0.log");
  }

  std::string skip_;
};

TEST_F(HostileGpuJob, AJobOpensOnlyTheGpuItWasGiven) {
  const std::string opened = OpenedGpus("one-gpu", 1000);
  if (!skip_.empty()) GTEST_SKIP() << skip_;
  if (opened.find("visible=0") != std::string::npos) {
    EXPECT_NE(opened.find("nvidia0=allowed nvidia1=denied"), std::string::npos) << opened;
  } else {
    EXPECT_NE(opened.find("visible=1 nvidia0=denied nvidia1=allowed"), std::string::npos) << opened;
  }
}

TEST_F(HostileGpuJob, AJobWithoutGpusOpensNone) {
  const std::string opened = OpenedGpus("no-gpu", 0);
  if (!skip_.empty()) GTEST_SKIP() << skip_;
  EXPECT_NE(opened.find("visible= nvidia0=denied nvidia1=denied"), std::string::npos) << opened;
}

// A disk quota of 1 MiB a tenant, measured every 0.2 s while jobs run.
class HostileQuotaJob : public HostileJob {
 protected:
  std::vector<std::string> ExtraArgs() override {
    return {"--tenant-disk-quota", "1Mi", "--disk-check-interval", "0.2"};
  }
  // A job of tenant A that writes `kib` KiB of random bytes to its output.
  static std::string Writes(int kib, const std::string& then = "") {
    return absl::StrCat("head -c ", kib * 1024, " /dev/urandom > \"$DLP_OUTPUT_DIR/data.", kib,
                        "\"", then);
  }
};

TEST_F(HostileQuotaJob, SubmissionsAndModelsStopAtTheQuota) {
  const nlohmann::json first = RunAsTenant("first", Writes(600));
  ASSERT_EQ(first.value("state", ""), "Succeeded") << first.dump();
  // 600 KiB held: a copy of them into the registry would pass 1 MiB.
  int status = 0;
  nlohmann::json refused = PostJson(
      *tenant_, "/v1/models",
      {{"name", "m"}, {"job", first.value("id", "")}, {"path", "data.600"}}, &status);
  EXPECT_EQ(status, 429) << refused.dump();
  EXPECT_NE(refused.dump().find("DiskQuotaExceeded"), std::string::npos) << refused.dump();
  // The second job passes the quota while it runs: stopped, or done first.
  const nlohmann::json second = RunAsTenant("second", Writes(600));
  EXPECT_NE(second.value("state", ""), "Running") << second.dump();
  refused = SubmitJson(*tenant_, ShellJob("third", "true"), &status);
  EXPECT_EQ(status, 429) << refused.dump();
  EXPECT_NE(refused.dump().find("tenant dlptest-a holds"), std::string::npos) << refused.dump();
  // The quota is each tenant's own, and so are the jobs to delete.
  auto b = dlpd_->Client(kTokenB);
  SubmitJson(*b, ShellJob("b", "true"), &status);
  EXPECT_EQ(status, 201);
  DeleteJson(*b, "/v1/jobs/" + first.value("id", ""), &status);
  EXPECT_EQ(status, 404);
  // Deleting its jobs gives the tenant its space back.
  for (const nlohmann::json& job : {first, second}) {
    DeleteJson(*tenant_, "/v1/jobs/" + job.value("id", ""), &status);
    EXPECT_EQ(status, 200) << job.dump();
  }
  SubmitJson(*tenant_, ShellJob("fourth", "true"), &status);
  EXPECT_EQ(status, 201);
}

TEST_F(HostileQuotaJob, AJobThatFillsTheQuotaIsStopped) {
  auto b = dlpd_->Client(kTokenB);
  const std::string bystander = SubmitJson(*b, ShellJob("bystander", "sleep 600")).value("id", "");
  const nlohmann::json job = RunAsTenant("filler", Writes(2048, "; sleep 600"));
  EXPECT_EQ(job.value("state", ""), "Failed") << job.dump();
  EXPECT_EQ(job.value("reason", "").rfind("DiskQuotaExceeded: tenant dlptest-a holds", 0), 0u)
      << job.dump();
  EXPECT_EQ(GetJson(*b, "/v1/jobs/" + bystander).value("state", ""), "Running");
  PostJson(*b, "/v1/jobs/" + bystander + "/cancel", nlohmann::json::object());
}

}  // namespace
}  // namespace dlp::testing
