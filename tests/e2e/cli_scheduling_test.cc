// A shared box end to end, with the real policy: dlpd over HTTPS, two tenants
// as Unix accounts, queues in one cohort. A borrower is preempted when the
// lender reclaims its quota (its processes get SIGTERM, it goes back to
// Queued and later resumes from its checkpoint and succeeds); a high-priority
// job preempts a low one in its own queue; `dlp queue` and `--why` explain;
// a tenant gets 404 on the other's job and 403 on admin verbs.
#include <sys/stat.h>

#include "cli_harness.h"
#include "gmock/gmock.h"
#include "support/unix_user.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;

// The job: resumes if it finds its checkpoint after a restart, else takes
// one when stopped (SIGTERM) and waits for `go`.
std::string CheckpointingScript(const std::string& dir, const std::string& go) {
  return absl::StrCat("ckpt=", dir, "/$DLP_JOB_ID.ckpt\n",
                      "echo start restart=$DLP_RESTART_COUNT\n",
                      "if [ \"$DLP_RESTART_COUNT\" -gt 0 ] && [ -f $ckpt ]; then\n",
                      "  echo resumed from $(cat $ckpt); exit 0\n", "fi\n",
                      "trap 'echo step-7 > $ckpt; echo TERM; exit 143' TERM\n",
                      "while [ ! -f ", go, " ]; do sleep 0.05; done\n");
}

class CliScheduling : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : {"dlptest-a", "dlptest-other"}) {
      TestUser user;
      const std::string why = EnsureTestUser(name, {}, &user);
      if (!why.empty()) GTEST_SKIP() << why;
      users_.push_back(user);
    }
    const std::string cert = env_.dir().Join("cert.pem"), key = env_.dir().Join("key.pem");
    RunResult made =
        dlp::testing::Run({"openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
             "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out",
             cert});
    if (made.exit_code != 0) GTEST_SKIP() << "openssl cannot make a certificate: " << made.err;
    MakeSearchableUpwards(env_.dir().path());
    // Where the tenants' jobs keep checkpoints and wait for their go files.
    shared_ = env_.dir().Join("shared");
    mkdir(shared_.c_str(), 0777);
    chmod(shared_.c_str(), 0777);
    state_ = env_.dir().Join("remote-state");
    std::vector<std::string> argv = {BinPath("dlpd"), "--state-dir", state_, "--listen",
                                     "127.0.0.1:0", "--cpus", "4", "--tls-cert", cert,
                                     "--tls-key", key};
    argv.insert(argv.end(), dlpd_flags_.begin(), dlpd_flags_.end());
    dlpd_ = std::make_unique<Background>(argv, env_.Options());
    ASSERT_TRUE(Eventually([&] { return !ReadFileOrEmpty(state_ + "/dlpd.addr").empty(); },
                           absl::Seconds(20)))
        << dlpd_->OutputSoFar();
    addr_ = std::string(absl::StripAsciiWhitespace(ReadFileOrEmpty(state_ + "/dlpd.addr")));
    cert_ = cert;
    WriteConfig();
  }

  void TearDown() override {
    if (dlpd_) {
      dlpd_->Signal(SIGTERM);
      dlpd_->Wait(absl::Seconds(30));
    }
  }

  // Contexts "owner" (dlpd.token) and one per tenant with a token.
  void WriteConfig() {
    std::string yaml = "current-context: owner\ncontexts:\n";
    auto context = [&](const std::string& name, const std::string& credential) {
      absl::StrAppend(&yaml, "  - {name: ", name, ", backend: remote, server: \"https://", addr_,
                      "\", ca-file: ", cert_, ", ", credential, "}\n");
    };
    context("owner", absl::StrCat("token-file: ", state_, "/dlpd.token"));
    for (const auto& [tenant, token] : tokens_) context(tenant, "token: \"" + token + "\"");
    config_ = env_.dir().WriteFile("config.yaml", yaml);
  }

  RunResult As(const std::string& context, std::vector<std::string> args) const {
    args.insert(args.begin(), {"--config", config_, "--context", context});
    return env_.Dlp(args);
  }

  nlohmann::json Json(const std::string& context, std::vector<std::string> args) const {
    RunResult r = As(context, args);
    EXPECT_EQ(r.exit_code, 0) << absl::StrJoin(args, " ") << ": " << r.err;
    return nlohmann::json::parse(r.out, nullptr, false);
  }

  void Tenant(const std::string& name, const TestUser& user, const std::string& queues) {
    RunResult created =
        As("owner", {"admin", "tenant", "create", name, "--user", user.name, "--queues", queues});
    ASSERT_EQ(created.exit_code, 0) << created.err;
    RunResult token = As("owner", {"admin", "token", "create", name});
    ASSERT_EQ(token.exit_code, 0) << token.err;
    tokens_[name] = std::string(absl::StripAsciiWhitespace(token.out));
    WriteConfig();
  }

  std::string Submit(const std::string& context, const std::string& spec) const {
    RunResult r = As(context, {"submit", "-q", spec});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return std::string(absl::StripAsciiWhitespace(r.out));
  }

  nlohmann::json Status(const std::string& context, const std::string& id) const {
    return Json(context, {"status", id, "-o", "json"});
  }

  std::string Log(const std::string& context, const std::string& id) const {
    return As(context, {"logs", id}).out;
  }

  std::string StartLowJob(const std::string& go);
  std::string SubmitHighJob();

  std::vector<std::string> dlpd_flags_;  // more of dlpd's flags, set before SetUp
  std::vector<TestUser> users_;
  CliEnv env_;
  std::unique_ptr<Background> dlpd_;
  std::string shared_, state_, addr_, cert_, config_;
  std::map<std::string, std::string> tokens_;
};

TEST_F(CliScheduling, LenderReclaimsItsQuotaFromABorrowerThatResumes) {
  ASSERT_EQ(As("owner", {"admin", "queue", "create", "vision", "--cohort", "lab", "--nominal",
                         "cpu=2", "--borrowing-limit", "cpu=2"})
                .exit_code,
            0);
  ASSERT_EQ(As("owner", {"admin", "queue", "create", "nlp", "--cohort", "lab", "--nominal",
                         "cpu=2"})
                .exit_code,
            0);
  Tenant("alice", users_[0], "vision");
  Tenant("bob", users_[1], "nlp");

  // Alice borrows nlp's idle quota: 4 CPUs in vision (2 nominal + 2 borrowed).
  const std::string alice_go = shared_ + "/alice.go";
  const std::string borrower = Submit(
      "alice", env_.WriteJob("borrower", CheckpointingScript(shared_, alice_go), 1, "4",
                             "  queue: vision\n  preemption: {gracePeriodSeconds: 20}\n"));
  ASSERT_TRUE(Eventually([&] { return Status("alice", borrower)["state"] == "Running"; }));
  ASSERT_TRUE(Eventually([&] { return absl::StrContains(Log("alice", borrower), "start"); }));

  // Bob wants nlp's nominal quota back: the borrower is preempted for him.
  const std::string bob_go = shared_ + "/bob.go";
  const std::string lender = Submit(
      "bob", env_.WriteJob("lender", "while [ ! -f " + bob_go + " ]; do sleep 0.05; done", 1,
                           "2", "  queue: nlp\n"));
  ASSERT_TRUE(Eventually([&] { return Status("bob", lender)["state"] == "Running"; },
                         absl::Seconds(60)))
      << Status("bob", lender).dump();
  nlohmann::json preempted = Status("alice", borrower);
  EXPECT_EQ(preempted["state"], "Queued") << preempted.dump();
  EXPECT_EQ(preempted["preemptions"], 1) << preempted.dump();
  EXPECT_THAT(preempted["reason"].get<std::string>(), HasSubstr("vision")) << preempted.dump();
  EXPECT_THAT(Log("alice", borrower), HasSubstr("TERM"));
  RunResult events = As("alice", {"describe", borrower});
  EXPECT_THAT(events.out, HasSubstr("Preempted by job " + lender)) << events.out << events.err;

  // The standing: nlp holds its nominal quota, vision has a job waiting.
  nlohmann::json queues = Json("alice", {"queue", "-o", "json"});
  ASSERT_TRUE(queues.is_array()) << queues.dump();
  for (const nlohmann::json& q : queues) {
    if (q["name"] == "nlp") {
      EXPECT_EQ(q["used"]["cpu"], "2") << q.dump();
    } else if (q["name"] == "vision") {
      EXPECT_EQ(q["pending"], 1) << q.dump();
    }
  }
  // Why it waits, step by step.
  RunResult why = As("alice", {"status", borrower, "--why"});
  EXPECT_EQ(why.exit_code, 0) << why.err;
  EXPECT_THAT(why.out, HasSubstr("vision")) << why.out;

  // Tenants see only their own jobs, and administer nothing.
  EXPECT_NE(As("alice", {"status", lender}).exit_code, 0);
  EXPECT_THAT(As("alice", {"status", lender}).err, HasSubstr("not found"));
  EXPECT_EQ(As("bob", {"admin", "queue", "delete", "vision"}).exit_code, 6);

  // Bob finishes: the borrower starts again, resumes from its checkpoint.
  Touch(bob_go);
  EXPECT_EQ(As("bob", {"wait", lender}).exit_code, 0);
  EXPECT_EQ(As("alice", {"wait", borrower}).exit_code, 0) << Log("alice", borrower);
  nlohmann::json done = Status("alice", borrower);
  EXPECT_EQ(done["state"], "Succeeded") << done.dump();
  EXPECT_EQ(done["restartCount"], 1) << done.dump();
  EXPECT_THAT(Log("alice", borrower), HasSubstr("resumed from step-7"));
}

// Queue vision (2 CPUs) for alice, and her low-priority job running on all of
// it until `go` exists; returns its id.
std::string CliScheduling::StartLowJob(const std::string& go) {
  EXPECT_EQ(As("owner", {"admin", "queue", "create", "vision", "--nominal", "cpu=2"}).exit_code,
            0);
  Tenant("alice", users_[0], "vision");
  const std::string low = Submit(
      "alice", env_.WriteJob("low", CheckpointingScript(shared_, go), 1, "2",
                             "  queue: vision\n  priority: low\n"));
  EXPECT_TRUE(Eventually([&] { return absl::StrContains(Log("alice", low), "start"); }));
  return low;
}

std::string CliScheduling::SubmitHighJob() {
  return Submit("alice", env_.WriteJob("high", "echo high", 1, "2",
                                       "  queue: vision\n  priority: high\n"));
}

TEST_F(CliScheduling, HigherPriorityPreemptsLowerInItsQueue) {
  const std::string go = shared_ + "/low.go";
  const std::string low = StartLowJob(go);
  const std::string high = SubmitHighJob();
  EXPECT_EQ(As("alice", {"wait", high}).exit_code, 0);
  nlohmann::json status = Status("alice", low);
  EXPECT_EQ(status["preemptions"], 1) << status.dump();
  RunResult events = As("alice", {"describe", low});
  EXPECT_THAT(events.out, HasSubstr("Preempted by job " + high)) << events.out;
  // It resumes once the high-priority job is done.
  EXPECT_EQ(As("alice", {"wait", low}).exit_code, 0) << Log("alice", low);
  EXPECT_THAT(Log("alice", low), HasSubstr("resumed from step-7"));
}

class CliSchedulingExempt : public CliScheduling {
 protected:
  CliSchedulingExempt() { dlpd_flags_ = {"--preempt-exempt-time", "3600"}; }
};

TEST_F(CliSchedulingExempt, AHigherPriorityJobWaitsForALowerOneStillExempt) {
  const std::string go = shared_ + "/low.go";
  const std::string low = StartLowJob(go);
  const std::string high = SubmitHighJob();
  // It would preempt the low job at once; within its first hour it waits.
  ASSERT_TRUE(Eventually([&] {
    return absl::StrContains(As("alice", {"status", high, "--why"}).out,
                             "1 more started less than 1h ago (--preempt-exempt-time)");
  })) << As("alice", {"status", high, "--why"}).out;
  EXPECT_EQ(Status("alice", high)["state"], "Queued");
  EXPECT_EQ(Status("alice", low)["state"], "Running");
  Touch(go);
  EXPECT_EQ(As("alice", {"wait", high}).exit_code, 0);
  EXPECT_EQ(As("alice", {"wait", low}).exit_code, 0) << Log("alice", low);
  EXPECT_EQ(Status("alice", low)["preemptions"], 0);
}

TEST_F(CliScheduling, AJobBeyondItsQueuesQuotaIsRefusedWithTheNumbers) {
  ASSERT_EQ(As("owner", {"admin", "queue", "create", "vision", "--cohort", "lab", "--nominal",
                         "cpu=1", "--borrowing-limit", "cpu=1"})
                .exit_code,
            0);
  Tenant("alice", users_[0], "vision");
  RunResult refused =
      As("alice", {"submit", env_.WriteJob("huge", "true", 1, "3", "  queue: vision\n")});
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_THAT(refused.err, HasSubstr("vision")) << refused.err;
}

}  // namespace
}  // namespace dlp::testing
