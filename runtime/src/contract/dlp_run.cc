#include "contract/dlp_run.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/process/find_program.h"
#include "contract/env_names.h"
#include "contract/shell_quote.h"

namespace dlp::contract {

absl::StatusOr<std::string> FindDlpRun() {
  std::vector<std::string> tried;
  if (const char* env = std::getenv(env::kDlpRun); env != nullptr && *env != '\0') {
    if (access(env, X_OK) == 0) return std::string(env);
    tried.push_back(absl::StrCat("$", env::kDlpRun, "=", env));
  }
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    std::filesystem::path next = self.parent_path() / "dlp-run";
    if (access(next.c_str(), X_OK) == 0) return next.string();
    tried.push_back(next.string());
  }
  if (std::optional<std::string> found = base::FindProgram("dlp-run")) return *found;
  tried.push_back("PATH");
  return absl::NotFoundError(
      absl::StrCat("dlp-run not found (looked at ", absl::StrJoin(tried, ", "), ")"));
}

DlpRunCommand MakeDlpRunCommand(const DlpRunJob& job) {
  DlpRunCommand c;
  c.argv = {job.dlp_run, "--group", job.group_file, "--log-dir", job.log_dir};
  if (!job.status_file.empty()) c.argv.insert(c.argv.end(), {"--status-file", job.status_file});
  if (!job.trace_dir.empty()) c.argv.insert(c.argv.end(), {"--trace-dir", job.trace_dir});
  if (job.grace_period) {
    c.argv.insert(c.argv.end(),
                  {"--grace-period", absl::StrCat(absl::ToDoubleSeconds(*job.grace_period))});
  }
  if (!job.job_id.empty()) c.env[env::kJobId] = job.job_id;
  if (!job.job_name.empty()) c.env[env::kJobName] = job.job_name;
  if (!job.output_dir.empty()) c.env[env::kOutputDir] = job.output_dir;
  return c;
}

std::string DlpRunCommand::ShellLine() const {
  std::vector<std::string> words;
  for (const auto& [k, v] : env) words.push_back(absl::StrCat(k, "=", ShellQuoteIfNeeded(v)));
  return absl::StrCat(absl::StrJoin(words, " "), words.empty() ? "" : " ", ShellCommandLine(argv));
}

DlpRunCommand ExecutorDlpRunCommand(const std::string& dlp_run, const JobFolder& folder,
                                    const std::string& id, const std::string& name,
                                    absl::Duration grace_period) {
  DlpRunJob job;
  job.dlp_run = dlp_run;
  job.group_file = folder.GroupFile();
  job.log_dir = folder.LogDir();
  job.status_file = folder.StatusFile();
  // dlpd escalates to SIGKILL itself after its grace period: dlp-run at the same time.
  job.grace_period = grace_period;
  job.job_id = id;
  job.job_name = name;
  job.output_dir = folder.OutputDir();
  return MakeDlpRunCommand(job);
}

}  // namespace dlp::contract
