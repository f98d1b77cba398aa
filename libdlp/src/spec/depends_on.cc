#include "spec/depends_on.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "spec/field_names.h"
#include "spec/rules.h"
#include "spec/suggest.h"

namespace dlp::internal {
namespace {

constexpr absl::string_view kConditions[] = {"succeeded", "failed", "finished"};

}  // namespace

std::vector<JobDependency> DecodeDependsOn(const YAML::Node& node, const std::string& path,
                                           YamlReader& r, std::vector<YAML::Mark>* marks) {
  std::vector<JobDependency> out;
  if (!node.IsSequence()) {
    r.Report(node, path,
             absl::StrCat("expected a list such as [{job: prep, condition: succeeded}], got ",
                          Describe(node)));
    return out;
  }
  if (!r.Check(node, path, CheckDependencyCount(node.size()))) return out;
  std::map<std::string, int> first_line;
  for (size_t i = 0; i < node.size(); ++i) {
    const YAML::Node item = node[i];
    const std::string item_path = absl::StrCat(path, "[", i, "]");
    if (!r.CheckMap(item, item_path, "a map with job and condition", kDependencyFields)) continue;
    JobDependency dependency;
    const YAML::Node job = YamlReader::Child(item, "job");
    if (!YamlReader::Present(job)) {
      r.Required(item, item_path, "job", kDependencyFields, "required; a job id or name");
      continue;
    }
    std::optional<std::string> name = r.String(job, item_path + ".job");
    if (!name || !r.Check(job, item_path + ".job", CheckDependencyJob(*name))) continue;
    dependency.job = *name;
    if (YAML::Node c = YamlReader::Child(item, "condition"); YamlReader::Present(c)) {
      std::optional<std::string> text = r.String(c, item_path + ".condition");
      if (!text) continue;
      std::optional<DependencyCondition> condition = ParseDependencyCondition(*text);
      if (!condition) {
        r.Report(c, item_path + ".condition",
                 absl::StrCat("unknown condition \"", *text,
                              "\" (expected one of: ", JoinNames(kConditions), ")"));
        continue;
      }
      dependency.condition = *condition;
    }
    auto [seen, inserted] = first_line.emplace(dependency.job, job.Mark().line + 1);
    if (!inserted) {
      r.Report(
          job, item_path + ".job",
          absl::StrCat("job ", dependency.job, " is listed twice; first on line ", seen->second));
      continue;
    }
    out.push_back(std::move(dependency));
    if (marks != nullptr) marks->push_back(item.Mark());
  }
  return out;
}

}  // namespace dlp::internal
