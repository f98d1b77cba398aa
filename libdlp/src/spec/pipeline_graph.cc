// Pipeline jobs ordered by a depth-first search from each job in file order,
// a job listed once all it depends on are: the search's post-order. A
// dependsOn entry that reaches a job still on the search's path closes a
// cycle, which is then the path from that job to the entry's.
#include "spec/pipeline_graph.h"

#include <map>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "dlp/spec.h"
#include "spec/dependency_reason.h"
#include "spec/rules.h"

namespace dlp {
namespace internal {
namespace {

constexpr char kOpen[] = "${jobs.";
constexpr size_t kOpenSize = sizeof(kOpen) - 1;
constexpr char kOutputDir[] = "outputDir";

class Orderer {
 public:
  explicit Orderer(const PipelineSpec& spec) : spec_(spec), color_(spec.jobs.size(), kWhite) {
    for (size_t i = 0; i < spec.jobs.size(); ++i) index_[spec.jobs[i].name] = i;
  }

  // False on a cycle (then cycle_ is set).
  bool Visit(size_t job) {
    if (color_[job] == kBlack) return true;
    color_[job] = kGrey;
    path_.push_back(job);
    const std::vector<JobDependency>& deps = spec_.jobs[job].spec.depends_on;
    for (size_t d = 0; d < deps.size(); ++d) {
      auto it = index_.find(deps[d].job);
      if (it == index_.end()) continue;
      const size_t next = it->second;
      if (color_[next] == kGrey) {
        std::vector<std::string> names;
        bool on = false;
        for (size_t p : path_) {
          on = on || p == next;
          if (on) names.push_back(spec_.jobs[p].name);
        }
        names.push_back(spec_.jobs[next].name);
        cycle_ = {job, d, absl::StrJoin(names, " -> ")};
        return false;
      }
      if (!Visit(next)) return false;
    }
    path_.pop_back();
    color_[job] = kBlack;
    order_.push_back(job);
    return true;
  }

  std::vector<size_t> order_;
  CycleEdge cycle_;

 private:
  enum Color { kWhite, kGrey, kBlack };
  const PipelineSpec& spec_;
  std::map<std::string, size_t> index_;
  std::vector<Color> color_;
  std::vector<size_t> path_;
};

}  // namespace

absl::StatusOr<std::vector<size_t>> OrderPipelineJobs(const PipelineSpec& spec, CycleEdge* cycle) {
  Orderer orderer(spec);
  for (size_t i = 0; i < spec.jobs.size(); ++i) {
    if (!orderer.Visit(i)) {
      if (cycle != nullptr) *cycle = orderer.cycle_;
      const CycleEdge& c = orderer.cycle_;
      return absl::InvalidArgumentError(
          absl::StrCat("spec.jobs.", spec.jobs[c.job].name, ".dependsOn[", c.dependency,
                       "]: a cycle: ", c.cycle, " (each waits for the next)"));
    }
  }
  return orderer.order_;
}

std::vector<std::string> JobOutputReferences(const std::string& text,
                                             std::vector<std::string>* problems) {
  std::vector<std::string> names;
  for (size_t at = text.find(kOpen); at != std::string::npos; at = text.find(kOpen, at + 1)) {
    const size_t close = text.find('}', at);
    if (close == std::string::npos) {
      problems->push_back(absl::StrCat("\"", text.substr(at), "\" is not closed with }"));
      break;
    }
    const std::string inner = text.substr(at + kOpenSize, close - at - kOpenSize);
    std::vector<std::string> parts = absl::StrSplit(inner, '.');
    if (parts.size() != 2 || parts[0].empty() || parts[1] != kOutputDir) {
      problems->push_back(absl::StrCat("\"${jobs.", inner,
                                       "}\": expected ${jobs.NAME.outputDir}, NAME a job of "
                                       "this pipeline"));
      continue;
    }
    names.push_back(parts[0]);
  }
  return names;
}

std::vector<SpecText> SubstitutableTexts(const JobSpec& spec) {
  std::vector<SpecText> out;
  for (const ReplicaSpec& r : spec.replicas) {
    for (size_t i = 0; i < r.command.size(); ++i) {
      out.push_back({absl::StrCat("replicas.", r.role, ".command[", i, "]"), r.command[i]});
    }
    for (const auto& [name, value] : r.env) {
      out.push_back({absl::StrCat("replicas.", r.role, ".env.", name), value});
    }
  }
  return out;
}

}  // namespace internal

absl::StatusOr<std::vector<size_t>> PipelineOrder(const PipelineSpec& spec) {
  return internal::OrderPipelineJobs(spec);
}

namespace {

std::string Substituted(const std::string& text,
                        const std::map<std::string, std::string>& output_dirs,
                        std::vector<std::string>& missing) {
  std::string out;
  size_t from = 0;
  for (size_t at = text.find(internal::kOpen); at != std::string::npos;
       at = text.find(internal::kOpen, from)) {
    const size_t close = text.find('}', at);
    if (close == std::string::npos) break;
    const std::string inner =
        text.substr(at + internal::kOpenSize, close - at - internal::kOpenSize);
    std::vector<std::string> parts = absl::StrSplit(inner, '.');
    out.append(text, from, at - from);
    auto dir = parts.size() == 2 && parts[1] == internal::kOutputDir ? output_dirs.find(parts[0])
                                                                     : output_dirs.end();
    if (dir == output_dirs.end()) {
      missing.push_back(inner);
      out.append(text, at, close + 1 - at);
    } else {
      out.append(dir->second);
    }
    from = close + 1;
  }
  out.append(text, from, std::string::npos);
  return out;
}

}  // namespace

absl::Status SubstituteJobOutputs(JobSpec& spec,
                                  const std::map<std::string, std::string>& output_dirs) {
  std::vector<std::string> missing;
  for (ReplicaSpec& r : spec.replicas) {
    for (std::string& word : r.command) word = Substituted(word, output_dirs, missing);
    for (auto& [name, value] : r.env) value = Substituted(value, output_dirs, missing);
  }
  if (missing.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("cannot substitute ${jobs.",
                                                 absl::StrJoin(missing, "}, ${jobs."),
                                                 "}: not a job this one depends on"));
}

JobState PipelineState(const std::vector<PipelineJob>& jobs) {
  bool all_ended = true, all_queued = true, failed = false, cancelled = false;
  for (const PipelineJob& j : jobs) {
    all_ended = all_ended && IsTerminal(j.state);
    all_queued = all_queued && j.state == JobState::kQueued;
    failed = failed || j.state == JobState::kFailed;
    // Skipped for its dependencies (a cleanup after a success) is not a cancel.
    cancelled = cancelled || (j.state == JobState::kCancelled &&
                              !absl::StartsWith(j.reason, internal::kDependencyReasonPrefix));
  }
  if (!all_ended) return all_queued ? JobState::kQueued : JobState::kRunning;
  if (failed) return JobState::kFailed;
  return cancelled ? JobState::kCancelled : JobState::kSucceeded;
}

absl::Status ValidatePipelineSpec(const PipelineSpec& spec) {
  std::vector<std::string> problems;
  if (internal::Problem p = internal::CheckJobName(spec.name))
    problems.push_back("metadata.name: " + *p);
  if (spec.jobs.empty()) problems.push_back("spec.jobs: needs at least one job");
  if (spec.jobs.size() > static_cast<size_t>(kMaxPipelineJobs)) {
    problems.push_back(
        absl::StrCat("spec.jobs: ", spec.jobs.size(), " jobs; at most ", kMaxPipelineJobs));
  }
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < spec.jobs.size(); ++i) {
    if (!index.emplace(spec.jobs[i].name, i).second) {
      problems.push_back(absl::StrCat("spec.jobs.", spec.jobs[i].name, ": given twice"));
    }
  }
  for (const PipelineJobSpec& job : spec.jobs) {
    const std::string at = absl::StrCat("spec.jobs.", job.name);
    if (internal::Problem p = internal::CheckJobName(job.name)) problems.push_back(at + ": " + *p);
    if (absl::Status s = ValidateJobSpec(job.spec); !s.ok()) {
      for (absl::string_view line : absl::StrSplit(s.message(), '\n')) {
        problems.push_back(absl::StrCat(at, ": ", line));
      }
    }
    for (size_t d = 0; d < job.spec.depends_on.size(); ++d) {
      const std::string& name = job.spec.depends_on[d].job;
      if (!index.contains(name)) {
        problems.push_back(
            absl::StrCat(at, ".dependsOn[", d, "].job: no job ", name, " in this pipeline"));
      }
    }
  }
  if (problems.empty()) {
    absl::StatusOr<std::vector<size_t>> order = internal::OrderPipelineJobs(spec);
    if (!order.ok()) {
      problems.push_back(std::string(order.status().message()));
    } else {
      // Upstream of each job, from its dependencies' upstreams (in order).
      std::vector<std::set<std::string>> upstream(spec.jobs.size());
      for (size_t i : *order) {
        for (const JobDependency& d : spec.jobs[i].spec.depends_on) {
          const size_t j = index.at(d.job);
          upstream[i].insert(d.job);
          upstream[i].insert(upstream[j].begin(), upstream[j].end());
        }
        for (const internal::SpecText& t : internal::SubstitutableTexts(spec.jobs[i].spec)) {
          const std::string at = absl::StrCat("spec.jobs.", spec.jobs[i].name, ".", t.path);
          std::vector<std::string> bad;
          for (const std::string& name : internal::JobOutputReferences(t.text, &bad)) {
            if (!upstream[i].contains(name)) {
              bad.push_back(absl::StrCat("${jobs.", name, ".outputDir}: ", spec.jobs[i].name,
                                         " does not depend on ",
                                         index.contains(name) ? "" : "a job named ", name));
            }
          }
          for (const std::string& b : bad) problems.push_back(absl::StrCat(at, ": ", b));
        }
      }
    }
  }
  if (problems.empty()) return absl::OkStatus();
  if (problems.size() > 20) {
    const size_t more = problems.size() - 20;
    problems.resize(20);
    problems.push_back(absl::StrCat("... and ", more, " more problems"));
  }
  return absl::InvalidArgumentError(absl::StrJoin(problems, "\n"));
}

}  // namespace dlp
