// dlp admin queue, dlp admin tenant --queues and dlp queue against a real
// dlpd over HTTP: the owner configures, a tenant gets exit 6 on admin verbs
// and sees the queues' standing, bad flags name themselves (exit 2), and
// submits are checked against the queues (with named priority classes).
#include "remote_dlpd_fixture.h"
#include "gmock/gmock.h"
#include "support/unix_user.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;

class CliAdminQueue : public RemoteDlpdTest {
 protected:
  nlohmann::json Json(std::vector<std::string> args) const {
    RunResult r = Dlp(args);
    EXPECT_EQ(r.exit_code, 0) << absl::StrJoin(args, " ") << ": " << r.err;
    return nlohmann::json::parse(r.out, nullptr, false);
  }

  // Alice, allowed into `queues`, with a token in the "alice" context.
  void Alice(const std::string& queues) {
    RunResult created =
        Dlp({"admin", "tenant", "create", "alice", "--user", user_.name, "--queues", queues});
    ASSERT_EQ(created.exit_code, 0) << created.err;
    RunResult token = Dlp({"admin", "token", "create", "alice"});
    ASSERT_EQ(token.exit_code, 0) << token.err;
    WriteConfig(std::string(absl::StripAsciiWhitespace(token.out)));
  }
};

TEST_F(CliAdminQueue, CreateUpdateListDelete) {
  RunResult created = Dlp({"admin", "queue", "create", "vision", "--cohort", "lab", "--nominal",
                           "cpu=8,memory=64Gi,gpu=4,gpu.h100=2", "--borrowing-limit", "gpu=2",
                           "--weight", "2", "--priority-range", "-100..1000"});
  ASSERT_EQ(created.exit_code, 0) << created.err;
  EXPECT_THAT(created.out, HasSubstr("queue vision created"));
  RunResult again = Dlp({"admin", "queue", "create", "vision"});
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_THAT(again.err, HasSubstr("already exists"));

  nlohmann::json list = Json({"admin", "queue", "list", "-o", "json"});
  ASSERT_EQ(list["queues"].size(), 1u) << list.dump();
  EXPECT_EQ(list["queues"][0]["nominal"],
            nlohmann::json({{"cpu", "8"}, {"memory", "64Gi"}, {"gpu", 4}, {"gpu.h100", 2}}));
  EXPECT_EQ(list["queues"][0]["priorityRange"], nlohmann::json({-100, 1000}));
  RunResult table = Dlp({"admin", "queue", "list"});
  EXPECT_THAT(table.out, HasSubstr("cpu=8,memory=64Gi,gpu=4,gpu.h100=2"));
  EXPECT_THAT(table.out, HasSubstr("-100..1000"));

  // Update changes what is given and keeps the rest.
  RunResult updated =
      Dlp({"admin", "queue", "update", "vision", "--weight", "3", "--borrowing-limit", "none"});
  ASSERT_EQ(updated.exit_code, 0) << updated.err;
  list = Json({"admin", "queue", "list", "-o", "json"});
  EXPECT_EQ(list["queues"][0]["weight"], 3);
  EXPECT_TRUE(list["queues"][0]["borrowingLimit"].is_null());
  EXPECT_EQ(list["queues"][0]["nominal"]["gpu"], 4);
  EXPECT_EQ(list["queues"][0]["cohort"], "lab");
  EXPECT_EQ(Dlp({"admin", "queue", "update", "audio", "--weight", "2"}).exit_code, 3);

  RunResult deleted = Dlp({"admin", "queue", "delete", "vision"});
  ASSERT_EQ(deleted.exit_code, 0) << deleted.err;
  EXPECT_THAT(deleted.out, HasSubstr("queue vision deleted"));
  EXPECT_EQ(Dlp({"admin", "queue", "delete", "vision"}).exit_code, 3);
}

TEST_F(CliAdminQueue, BadFlagsNameTheFlagAndWhatWasExpected) {
  struct Case {
    std::vector<std::string> flags;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"--nominal", "cpu=lots"}, "--nominal: cpu: \"lots\" is not a CPU quantity"},
      {{"--nominal", "disk=1"}, "--nominal: \"disk\" is not a resource"},
      {{"--borrowing-limit", "gpu=x"}, "--borrowing-limit: gpu: \"x\" is not a GPU quantity"},
      {{"--priority-range", "high"}, "--priority-range: \"high\": expected MIN..MAX"},
      {{"--weight", "0"}, "--weight: expected a positive whole number"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"admin", "queue", "create", "q"};
    args.insert(args.end(), c.flags.begin(), c.flags.end());
    RunResult r = Dlp(args);
    EXPECT_EQ(r.exit_code, 2) << absl::StrJoin(args, " ") << "\n" << r.err;
    EXPECT_THAT(r.err, HasSubstr(c.message));
  }
  EXPECT_TRUE(Json({"admin", "queue", "list", "-o", "json"})["queues"].empty());
}

TEST_F(CliAdminQueue, TenantsAreAllowedIntoQueuesAndSeeTheirStanding) {
  ASSERT_EQ(Dlp({"admin", "queue", "create", "vision", "--nominal", "cpu=1"}).exit_code, 0);
  ASSERT_EQ(Dlp({"admin", "queue", "create", "nlp", "--nominal", "cpu=1", "--priority-range",
                 "-100..100"})
                .exit_code,
            0);
  RunResult unknown =
      Dlp({"admin", "tenant", "create", "bob", "--user", user_.name, "--queues", "audio"});
  EXPECT_EQ(unknown.exit_code, 3) << unknown.err;
  Alice("vision");
  nlohmann::json tenants = Json({"admin", "tenant", "list", "-o", "json"});
  ASSERT_EQ(tenants["tenants"].size(), 1u);
  EXPECT_EQ(tenants["tenants"][0]["queues"], nlohmann::json({"vision"}));

  // Administration is the owner's: exit 6 for the tenant.
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"admin", "queue", "create", "x"},
           {"admin", "queue", "list"},
           {"admin", "queue", "update", "vision", "--weight", "2"},
           {"admin", "queue", "delete", "vision"},
           {"admin", "tenant", "update", "alice", "--queues", "nlp"}}) {
    std::vector<std::string> as_alice = {"--context", "alice"};
    as_alice.insert(as_alice.end(), args.begin(), args.end());
    RunResult r = Dlp(as_alice);
    EXPECT_EQ(r.exit_code, 6) << absl::StrJoin(args, " ") << "\n" << r.err;
  }

  // Submits: a queue alice may not use (6), an unknown one (2), a priority
  // class outside the queue's range (2).
  const std::string nlp = env_.WriteJob("in-nlp", "exit 0", 1, "100m", "  queue: nlp\n");
  RunResult denied = Dlp({"--context", "alice", "submit", "-q", nlp});
  EXPECT_EQ(denied.exit_code, 6) << denied.err;
  EXPECT_THAT(denied.err, HasSubstr("may not use queue \"nlp\""));
  const std::string audio = env_.WriteJob("in-audio", "exit 0", 1, "100m", "  queue: audio\n");
  RunResult missing = Dlp({"--context", "alice", "submit", "-q", audio});
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
  EXPECT_THAT(missing.err, HasSubstr("this dlpd's queues are nlp, vision"));
  RunResult granted = Dlp({"admin", "tenant", "update", "alice", "--queues", "vision,nlp"});
  ASSERT_EQ(granted.exit_code, 0) << granted.err;
  EXPECT_THAT(granted.out, HasSubstr("nlp, vision"));
  const std::string critical =
      env_.WriteJob("critical", "exit 0", 1, "100m", "  queue: nlp\n  priority: critical\n");
  RunResult too_high = Dlp({"--context", "alice", "submit", "-q", critical});
  EXPECT_EQ(too_high.exit_code, 2) << too_high.err;
  EXPECT_THAT(too_high.err, HasSubstr("1000 is outside queue nlp's priority range -100..100"));
  const std::string high =
      env_.WriteJob("high", "exit 0", 1, "100m", "  queue: nlp\n  priority: high\n");
  RunResult submitted = Dlp({"--context", "alice", "submit", "-q", high});
  ASSERT_EQ(submitted.exit_code, 0) << submitted.err;
  const std::string job(absl::StripAsciiWhitespace(submitted.out));
  nlohmann::json status = Json({"--context", "alice", "status", job, "-o", "json"});
  EXPECT_EQ(status["queue"], "nlp");
  EXPECT_EQ(status["spec"]["priority"], 100);
  ASSERT_EQ(Dlp({"wait", "-q", job}).exit_code, 0);

  // Everyone sees every queue's standing.
  nlohmann::json queues = Json({"--context", "alice", "queue", "-o", "json"});
  ASSERT_TRUE(queues.is_array()) << queues.dump();
  ASSERT_EQ(queues.size(), 2u);
  for (const char* key :
       {"name", "cohort", "nominal", "used", "borrowed", "lent", "pending", "share"}) {
    EXPECT_TRUE(queues[0].contains(key)) << key;
  }
  RunResult table = Dlp({"--context", "alice", "queue"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_THAT(table.out, HasSubstr("NAME"));
  for (const char* column :
       {"COHORT", "NOMINAL", "USED", "BORROWED", "LENT", "PENDING", "SHARE", "RECENT"}) {
    EXPECT_THAT(table.out, HasSubstr(column));
  }
  nlohmann::json one = Json({"queue", "show", "vision", "-o", "json"});
  EXPECT_EQ(one["name"], "vision");
  EXPECT_EQ(one["nominal"]["cpu"], "1");
  EXPECT_THAT(Dlp({"queue", "show", "vision"}).out, HasSubstr("Nominal:"));
  EXPECT_EQ(Dlp({"queue", "show", "audio"}).exit_code, 3);
}

TEST(CliAdminQueueHelp, EveryVerbHasHelp) {
  CliEnv env;
  const std::vector<std::vector<std::string>> verbs = {
      {"admin", "queue", "create", "--borrowing-limit"},
      {"admin", "queue", "update", "--priority-range"},
      {"admin", "queue", "delete", "NAME"},
      {"admin", "queue", "list", "--output"},
      {"admin", "tenant", "create", "--queues"},
      {"admin", "tenant", "update", "--queues"},
      {"queue", "--output"},
      {"queue", "show", "NAME"}};
  for (const auto& verb : verbs) {
    std::vector<std::string> args(verb.begin(), verb.end() - 1);
    args.push_back("--help");
    RunResult r = env.Dlp(args);
    EXPECT_EQ(r.exit_code, 0) << absl::StrJoin(args, " ") << ": " << r.err;
    EXPECT_THAT(r.out, HasSubstr(verb.back())) << absl::StrJoin(args, " ");
  }
}

}  // namespace
}  // namespace dlp::testing
