// The web UI on a real dlpd: its files and SPA routes (a front-end build given
// with --ui-dir, and the built-in files), sign-in with a one-time code or a
// token, the session cookie standing in for the bearer token on /v1/, CSRF
// checks, sign-out, the security headers, --no-ui, and the job list's pages.
#include <gtest/gtest.h>

#include "../daemon/dlpd_fixture.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"

namespace dlp::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kCsp[] =
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";
constexpr char kIndex[] =
    "<!doctype html><title>dlp</title><script src=\"/assets/app-0123abcd.js\">";

class UiTest : public ::testing::Test {
 protected:
  void Start(std::vector<std::string> flags = {}) {
    dlpd_ = std::make_unique<Dlpd>(dir_.Join("state"), flags);
    ASSERT_TRUE(dlpd_->WaitReady()) << dlpd_->process().OutputSoFar();
    owner_ = dlpd_->Client();
  }
  // A fake front-end build: index.html and one content-hashed script.
  std::string FakeDist() {
    dir_.WriteFile("dist/index.html", kIndex);
    std::string script;
    for (int i = 0; i < 200; ++i) absl::StrAppend(&script, "console.log('line ", i, "');\n");
    script_ = script;
    dir_.WriteFile("dist/assets/app-0123abcd.js", script);
    return dir_.Join("dist");
  }
  // A client with no token.
  std::unique_ptr<httplib::Client> Anonymous() const { return dlpd_->Client(""); }

  std::string NewCode() {
    int status = 0;
    nlohmann::json code = PostJson(*owner_, "/v1/ui/codes", nlohmann::json::object(), &status);
    EXPECT_EQ(status, 201) << code.dump();
    EXPECT_EQ(code.value("expiresInSeconds", 0), 60);
    return code.value("code", "");
  }
  // Signs in with a fresh code; returns the Cookie header to send.
  std::string SignIn() {
    auto res = Anonymous()->Get(("/login?code=" + NewCode()).c_str());
    EXPECT_TRUE(res);
    if (!res) return "";
    EXPECT_EQ(res->status, 303);
    const std::string set_cookie = res->get_header_value("Set-Cookie");
    return set_cookie.substr(0, set_cookie.find(';'));
  }
  std::string Csrf(const std::string& cookie) {
    auto res = Anonymous()->Get("/v1/ui/session", {{"Cookie", cookie}});
    if (!res || res->status != 200) return "";
    return nlohmann::json::parse(res->body).value("csrf", "");
  }

  TempDir dir_;
  std::unique_ptr<Dlpd> dlpd_;
  std::unique_ptr<httplib::Client> owner_;
  std::string script_;
};

TEST_F(UiTest, ACodeSignsInOnceWithAStrictHttpOnlyCookie) {
  Start();
  const std::string code = NewCode();
  EXPECT_GE(code.size(), 32u);
  auto res = Anonymous()->Get(("/login?code=" + code).c_str());
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 303);
  EXPECT_EQ(res->get_header_value("Location"), "/");
  const std::string cookie = res->get_header_value("Set-Cookie");
  EXPECT_THAT(cookie, ::testing::StartsWith("dlp_session="));
  EXPECT_THAT(cookie, HasSubstr("; HttpOnly"));
  EXPECT_THAT(cookie, HasSubstr("; SameSite=Strict"));
  EXPECT_THAT(cookie, HasSubstr("; Path=/"));
  EXPECT_THAT(cookie, HasSubstr("; Max-Age=43200"));
  EXPECT_THAT(cookie, Not(HasSubstr("Secure"))) << "plain HTTP";
  EXPECT_THAT(cookie, Not(HasSubstr(code)));
  EXPECT_THAT(cookie, Not(HasSubstr(dlpd_->token())));

  auto again = Anonymous()->Get(("/login?code=" + code).c_str());
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 401) << "a code is single use";
  EXPECT_THAT(again->get_header_value("Content-Type"), HasSubstr("text/html"));
  EXPECT_THAT(again->body, HasSubstr("used or expired"));
  EXPECT_TRUE(again->get_header_value("Set-Cookie").empty());
  auto made_up = Anonymous()->Get("/login?code=0123456789abcdef0123456789abcdef");
  ASSERT_TRUE(made_up);
  EXPECT_EQ(made_up->status, 401);
}

TEST_F(UiTest, TheSessionCookieStandsInForTheToken) {
  Start();
  const std::string cookie = SignIn();
  auto session = Anonymous()->Get("/v1/ui/session", {{"Cookie", cookie}});
  ASSERT_TRUE(session);
  ASSERT_EQ(session->status, 200) << session->body;
  auto who = nlohmann::json::parse(session->body);
  EXPECT_EQ(who.value("tenant", ""), "@owner");
  EXPECT_TRUE(who.value("admin", false));
  EXPECT_EQ(who.value("csrf", "").size(), 64u);

  auto jobs = Anonymous()->Get("/v1/jobs", {{"Cookie", cookie}});
  ASSERT_TRUE(jobs);
  EXPECT_EQ(jobs->status, 200) << jobs->body;

  for (const httplib::Headers& headers :
       {httplib::Headers{}, httplib::Headers{{"Cookie", "dlp_session=0123456789abcdef"}},
        httplib::Headers{{"Cookie", "other=" + cookie.substr(cookie.find('=') + 1)}}}) {
    auto refused = Anonymous()->Get("/v1/jobs", headers);
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->status, 401);
    auto no_session = Anonymous()->Get("/v1/ui/session", headers);
    ASSERT_TRUE(no_session);
    EXPECT_EQ(no_session->status, 401);
  }
  auto bearer_only = owner_->Get("/v1/ui/session");
  ASSERT_TRUE(bearer_only);
  EXPECT_EQ(bearer_only->status, 401) << "a token has no UI session";
}

TEST_F(UiTest, CookieRequestsThatChangeStateNeedTheCsrfToken) {
  Start();
  const std::string cookie = SignIn();
  const std::string csrf = Csrf(cookie);
  ASSERT_FALSE(csrf.empty());
  const std::string spec = JobSpecToJson(ShellJob("from-ui", "sleep 600"));
  for (const httplib::Headers& headers :
       {httplib::Headers{{"Cookie", cookie}},
        httplib::Headers{{"Cookie", cookie}, {"X-CSRF-Token", ""}},
        httplib::Headers{{"Cookie", cookie}, {"X-CSRF-Token", std::string(64, '0')}}}) {
    auto refused = Anonymous()->Post("/v1/jobs", headers, spec, "application/json");
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->status, 403) << refused->body;
    EXPECT_THAT(refused->body, HasSubstr("X-CSRF-Token"));
  }
  EXPECT_EQ(GetJson(*owner_, "/v1/jobs")["jobs"].size(), 0u);
  auto made = Anonymous()->Post("/v1/jobs", {{"Cookie", cookie}, {"X-CSRF-Token", csrf}}, spec,
                                "application/json");
  ASSERT_TRUE(made);
  ASSERT_EQ(made->status, 201) << made->body;
  const std::string id = nlohmann::json::parse(made->body).value("id", "");
  const std::string cancel = "/v1/jobs/" + id + "/cancel";
  auto no_csrf = Anonymous()->Post(cancel.c_str(), {{"Cookie", cookie}}, "{}", "application/json");
  ASSERT_TRUE(no_csrf);
  EXPECT_EQ(no_csrf->status, 403);
  auto cancelled = Anonymous()->Post(cancel.c_str(), {{"Cookie", cookie}, {"X-CSRF-Token", csrf}},
                                     "{}", "application/json");
  ASSERT_TRUE(cancelled);
  EXPECT_EQ(cancelled->status, 200) << cancelled->body;
  // A code is made with a token, not with a session.
  auto code = Anonymous()->Post("/v1/ui/codes", {{"Cookie", cookie}, {"X-CSRF-Token", csrf}}, "{}",
                                "application/json");
  ASSERT_TRUE(code);
  EXPECT_EQ(code->status, 403);
}

TEST_F(UiTest, SignInWithATokenAndSignOut) {
  Start();
  auto wrong =
      Anonymous()->Post("/login", "token=not-a-token", "application/x-www-form-urlencoded");
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 401);
  EXPECT_THAT(wrong->body, HasSubstr("<form method=\"post\" action=\"/login\">"));
  auto cross_site =
      Anonymous()->Post("/login", {{"Origin", "https://evil.example"}}, "token=" + dlpd_->token(),
                        "application/x-www-form-urlencoded");
  ASSERT_TRUE(cross_site);
  EXPECT_EQ(cross_site->status, 403);
  EXPECT_TRUE(cross_site->get_header_value("Set-Cookie").empty());

  // As a browser posts the form from dlpd's own page: Origin names this server.
  auto res = Anonymous()->Post("/login", {{"Origin", "http://" + dlpd_->address()}},
                               "token=" + dlpd_->token(), "application/x-www-form-urlencoded");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 303) << res->body;
  const std::string set_cookie = res->get_header_value("Set-Cookie");
  EXPECT_THAT(set_cookie, HasSubstr("HttpOnly"));
  const std::string cookie = set_cookie.substr(0, set_cookie.find(';'));
  const std::string csrf = Csrf(cookie);
  ASSERT_FALSE(csrf.empty());

  auto no_csrf = Anonymous()->Post("/logout", {{"Cookie", cookie}}, "", "text/plain");
  ASSERT_TRUE(no_csrf);
  EXPECT_EQ(no_csrf->status, 403);
  EXPECT_EQ(Anonymous()->Get("/v1/jobs", {{"Cookie", cookie}})->status, 200);
  auto out =
      Anonymous()->Post("/logout", {{"Cookie", cookie}, {"X-CSRF-Token", csrf}}, "", "text/plain");
  ASSERT_TRUE(out);
  EXPECT_EQ(out->status, 204);
  EXPECT_THAT(out->get_header_value("Set-Cookie"), HasSubstr("dlp_session=; "));
  EXPECT_THAT(out->get_header_value("Set-Cookie"), HasSubstr("Max-Age=0"));
  EXPECT_EQ(Anonymous()->Get("/v1/jobs", {{"Cookie", cookie}})->status, 401);
}

TEST_F(UiTest, ServesTheFrontEndAndItsRoutesWithSecurityHeaders) {
  Start({"--ui-dir", FakeDist()});
  auto client = Anonymous();
  for (const char* path : {"/", "/jobs/12", "/queues"}) {
    auto res = client->Get(path, {{"Accept-Encoding", "identity"}});
    ASSERT_TRUE(res) << path;
    EXPECT_EQ(res->status, 200) << path;
    EXPECT_EQ(res->body, kIndex) << path;
    EXPECT_THAT(res->get_header_value("Content-Type"), HasSubstr("text/html")) << path;
    EXPECT_EQ(res->get_header_value("Cache-Control"), "no-cache") << path;
    EXPECT_EQ(res->get_header_value("Content-Security-Policy"), kCsp) << path;
    EXPECT_EQ(res->get_header_value("X-Content-Type-Options"), "nosniff") << path;
    EXPECT_EQ(res->get_header_value("Referrer-Policy"), "same-origin") << path;
  }
  auto plain = client->Get("/assets/app-0123abcd.js", {{"Accept-Encoding", "identity"}});
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->status, 200);
  EXPECT_EQ(plain->body, script_);
  EXPECT_THAT(plain->get_header_value("Content-Type"), HasSubstr("text/javascript"));
  EXPECT_EQ(plain->get_header_value("Cache-Control"), "public, max-age=31536000, immutable");
  EXPECT_TRUE(plain->get_header_value("Content-Encoding").empty());

  client->set_decompress(false);
  auto packed = client->Get("/assets/app-0123abcd.js", {{"Accept-Encoding", "gzip"}});
  ASSERT_TRUE(packed);
  EXPECT_EQ(packed->get_header_value("Content-Encoding"), "gzip");
  EXPECT_EQ(packed->get_header_value("Vary"), "Accept-Encoding");
  ASSERT_GE(packed->body.size(), 2u);
  EXPECT_EQ(packed->body.substr(0, 2), "\x1f\x8b") << "served once compressed, as stored";
  EXPECT_LT(packed->body.size(), script_.size() / 4);

  for (const char* missing : {"/assets/gone-01234567.js", "/favicon.ico", "/assets/jobs"}) {
    auto res = client->Get(missing);
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 404) << missing;
    EXPECT_EQ(res->get_header_value("Content-Security-Policy"), kCsp);
  }
  // The API stays the API: JSON errors, a token or a session needed.
  for (const char* path : {"/v1/no-such-thing", "/v1/jobs", "/metrics", "/%6detrics"}) {
    auto api = client->Get(path);
    ASSERT_TRUE(api);
    EXPECT_EQ(api->status, 401) << path;
  }
  auto unknown = owner_->Get("/v1/no-such-thing");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
  EXPECT_THAT(unknown->get_header_value("Content-Type"), HasSubstr("application/json"));
  EXPECT_EQ(unknown->get_header_value("Content-Security-Policy"), kCsp);
}

TEST_F(UiTest, TheBuiltInUiOrItsPlaceholderIsServed) {
  Start();
  auto res = Anonymous()->Get("/");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_THAT(res->get_header_value("Content-Type"), HasSubstr("text/html"));
  EXPECT_THAT(res->body, HasSubstr("<html"));
  EXPECT_EQ(res->get_header_value("Content-Security-Policy"), kCsp);
}

TEST_F(UiTest, NoUiServesOnlyTheApi) {
  Start({"--no-ui"});
  for (const char* path : {"/", "/login", "/jobs/1"}) {
    auto anonymous = Anonymous()->Get(path);
    ASSERT_TRUE(anonymous);
    EXPECT_EQ(anonymous->status, 401) << path;
    auto res = owner_->Get(path);
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 404) << path;
  }
  int status = 0;
  PostJson(*owner_, "/v1/ui/codes", nlohmann::json::object(), &status);
  EXPECT_EQ(status, 404);
}

TEST_F(UiTest, TheJobListComesInPagesFromTheNewest) {
  Start();
  for (int i = 1; i <= 5; ++i) {
    JobSpec spec = ShellJob(absl::StrCat("job", i), "exit 0");
    spec.labels["team"] = "vision";
    int status = 0;
    SubmitJson(*owner_, spec, &status);
    ASSERT_EQ(status, 201);
  }
  auto names = [](const std::string& body) {
    std::vector<std::string> out;
    const nlohmann::json list = nlohmann::json::parse(body);
    for (const auto& job : list["jobs"]) out.push_back(job["name"]);
    return out;
  };
  auto first = owner_->Get("/v1/jobs?limit=2&label=team=vision");
  ASSERT_TRUE(first);
  ASSERT_EQ(first->status, 200) << first->body;
  EXPECT_EQ(names(first->body), (std::vector<std::string>{"job4", "job5"}));
  const std::string link = first->get_header_value("Link");
  EXPECT_EQ(link, "</v1/jobs?label=team=vision&limit=2&before=4>; rel=\"next\"");
  auto second = owner_->Get(link.substr(1, link.find('>') - 1).c_str());
  ASSERT_TRUE(second);
  EXPECT_EQ(names(second->body), (std::vector<std::string>{"job2", "job3"}));
  auto last = owner_->Get("/v1/jobs?limit=2&before=2");
  ASSERT_TRUE(last);
  EXPECT_EQ(names(last->body), (std::vector<std::string>{"job1"}));
  EXPECT_FALSE(last->has_header("Link")) << "the last page names no next one";
  auto defaulted = owner_->Get("/v1/jobs?before=3");
  ASSERT_TRUE(defaulted);
  EXPECT_EQ(names(defaulted->body), (std::vector<std::string>{"job1", "job2"}));

  for (const char* bad : {"/v1/jobs?before=3&limit=1001", "/v1/jobs?before=0", "/v1/jobs?before=x",
                          "/v1/jobs?fields=some"}) {
    auto res = owner_->Get(bad);
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 400) << bad;
  }
  auto summary = GetJson(*owner_, "/v1/jobs?fields=summary&limit=1");
  ASSERT_EQ(summary["jobs"].size(), 1u);
  EXPECT_FALSE(summary["jobs"][0].contains("spec"));
  EXPECT_EQ(summary["jobs"][0]["labels"]["team"], "vision");
  EXPECT_EQ(summary["jobs"][0]["name"], "job5");
  EXPECT_TRUE(summary["jobs"][0].contains("state"));
  // Every job's summary is its full form without the spec, with the spec's
  // labels (once they ended, so that both listings see the same jobs).
  for (int id = 1; id <= 5; ++id) {
    ASSERT_EQ(WaitJob(*owner_, std::to_string(id)).value("state", ""), "Succeeded");
  }
  auto full = GetJson(*owner_, "/v1/jobs");
  auto summaries = GetJson(*owner_, "/v1/jobs?fields=summary");
  ASSERT_EQ(full["jobs"].size(), summaries["jobs"].size());
  for (size_t i = 0; i < full["jobs"].size(); ++i) {
    nlohmann::json expected = full["jobs"][i];
    expected["labels"] = expected["spec"].value("labels", nlohmann::json::object());
    expected.erase("spec");
    EXPECT_EQ(summaries["jobs"][i], expected) << i;
  }

  // As a browser asks for it: gzip, never httplib's brotli at its best
  // quality (seconds for a long list).
  auto browser = owner_->Get("/v1/jobs", {{"Accept-Encoding", "gzip, deflate, br, zstd"}});
  ASSERT_TRUE(browser);
  EXPECT_EQ(browser->get_header_value("Content-Encoding"), "gzip");
  EXPECT_EQ(nlohmann::json::parse(browser->body, nullptr, false), full);
}

}  // namespace
}  // namespace dlp::testing
