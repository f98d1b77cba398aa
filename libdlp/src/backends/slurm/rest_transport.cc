// slurmrestd's REST API, version v0.0.38 (Slurm 22.05), over libcurl (loaded on first use).
// Every request carries X-SLURM-USER-NAME and the JWT from the token file.
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "backends/slurm/transport.h"
#include "base/http/curl_request.h"
#include "dlp/status.h"
#include "nlohmann/json.hpp"

namespace dlp::internal {
namespace {

constexpr char kApi[] = "/slurm/v0.0.38";

using Reply = base::HttpReply;

class RestTransport final : public SlurmTransport {
 public:
  RestTransport(std::string url, std::string user, std::string token_file)
      : url_(absl::StripSuffix(url, "/")), user_(std::move(user)),
        token_file_(std::move(token_file)) {}

  std::string Name() const override { return "rest"; }

  absl::StatusOr<std::string> Submit(const SlurmSubmission& job) override {
    nlohmann::json props = {
        {"name", job.name},
        {"comment", job.comment},
        {"nodes", {job.min_nodes, job.max_nodes}},
        {"tasks", job.tasks},
        {"cpus_per_task", job.cpus_per_task},
        {"environment", job.environment},
        {"requeue", job.requeue},
    };
    auto set = [&](const char* key, const std::string& value) {
      if (!value.empty()) props[key] = value;
    };
    set("partition", job.partition);
    set("account", job.account);
    set("qos", job.qos);
    set("standard_output", job.output);
    set("standard_error", job.output);
    set("current_working_directory", job.chdir);
    if (job.mem_per_cpu_mb > 0) props["memory_per_cpu"] = job.mem_per_cpu_mb;
    if (job.gpus_per_task > 0) props["gpus_per_task"] = absl::StrCat(job.gpus_per_task);
    if (job.time_limit_minutes > 0) props["time_limit"] = job.time_limit_minutes;
    if (job.nice != 0) props["nice"] = job.nice;
    if (job.requeue) props["open_mode"] = "append";  // keep earlier runs' output
    if (!job.dependency.empty()) {
      props["dependency"] = job.dependency;
      props["kill_on_invalid_dependency"] = true;
    }
    nlohmann::json body = {{"script", job.script}, {"job", props}};
    DLP_ASSIGN_OR_RETURN(Reply reply, Request("POST", "/job/submit", body.dump()));
    std::string errors = SlurmErrors(reply.body);
    if (!errors.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("Slurm rejected the job: ", errors));
    }
    try {
      nlohmann::json doc = nlohmann::json::parse(reply.body);
      if (doc.contains("job_id") && doc["job_id"].is_number()) {
        return absl::StrCat(doc["job_id"].get<int64_t>());
      }
    } catch (const std::exception&) {
    }
    return absl::InternalError(
        absl::StrCat("slurmrestd answered HTTP ", reply.code, " without a job id: ", reply.body));
  }

  absl::StatusOr<SlurmJobRecord> Job(const std::string& id) override {
    DLP_ASSIGN_OR_RETURN(Reply reply, Request("GET", absl::StrCat("/job/", id), ""));
    auto jobs = ParseSlurmJobs(reply.body);
    if (jobs.ok()) {
      for (SlurmJobRecord& job : *jobs) {
        if (job.id == id) return std::move(job);
      }
    }
    return absl::NotFoundError(absl::StrCat("Slurm knows no job ", id, NotFoundDetail(reply)));
  }

  absl::StatusOr<std::vector<SlurmJobRecord>> Jobs() override {
    DLP_ASSIGN_OR_RETURN(Reply reply, Request("GET", "/jobs/", ""));
    auto jobs = ParseSlurmJobs(reply.body);
    if (!jobs.ok()) return absl::UnavailableError(absl::StrCat("slurmrestd: ", jobs.status().message()));
    return jobs;
  }

  absl::Status Cancel(const std::string& id) override {
    DLP_ASSIGN_OR_RETURN(Reply reply, Request("DELETE", absl::StrCat("/job/", id), ""));
    std::string errors = SlurmErrors(reply.body);
    if (errors.empty() && reply.code < 300) return absl::OkStatus();
    if (absl::StrContains(errors, "Invalid job id") || reply.code == 404) {
      return absl::NotFoundError(absl::StrCat("Slurm knows no job ", id, ": ", errors));
    }
    return absl::UnavailableError(absl::StrCat("slurmrestd: cannot cancel job ", id, ": ", errors));
  }

 private:
  static std::string NotFoundDetail(const Reply& reply) {
    std::string errors = SlurmErrors(reply.body);
    return errors.empty() ? "" : absl::StrCat(" (", errors, ")");
  }

  absl::StatusOr<std::string> Token() const {
    std::ifstream in(token_file_);
    if (!in) {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot read the Slurm token file '", token_file_,
                       "' (create it with `scontrol token`)"));
    }
    std::stringstream text;
    text << in.rdbuf();
    std::string token(absl::StripAsciiWhitespace(text.str()));
    if (absl::StartsWith(token, "SLURM_JWT=")) token = token.substr(10);
    return token;
  }

  absl::StatusOr<Reply> Request(const std::string& method, const std::string& path,
                                const std::string& body) {
    DLP_ASSIGN_OR_RETURN(std::string token, Token());
    base::HttpRequest request;
    request.method = method;
    request.url = absl::StrCat(url_, kApi, path);
    request.headers = {absl::StrCat("X-SLURM-USER-NAME: ", user_),
                       absl::StrCat("X-SLURM-USER-TOKEN: ", token),
                       "Content-Type: application/json", "Accept: application/json"};
    if (method == "POST") request.body = body;
    request.connect_timeout = absl::Seconds(5);
    request.timeout = absl::Seconds(60);
    DLP_ASSIGN_OR_RETURN(Reply reply,
                         base::PerformHttpRequest(request, absl::StrCat("slurmrestd at ", url_)));
    if (reply.code == 401 || reply.code == 403) {
      return absl::UnavailableError(absl::StrCat(
          "slurmrestd refused user '", user_, "' (HTTP ", reply.code,
          "): check the token in ", token_file_, SlurmErrors(reply.body)));
    }
    return reply;
  }

  std::string url_;
  std::string user_;
  std::string token_file_;
};

}  // namespace

std::unique_ptr<SlurmTransport> NewRestTransport(const std::string& url, const std::string& user,
                                                 const std::string& token_file) {
  return std::make_unique<RestTransport>(url, user, token_file);
}

}  // namespace dlp::internal
