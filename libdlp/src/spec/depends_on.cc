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

std::vector<JobDependency> DecodeDependsOn(const nlohmann::json& node, const std::string& path,
                                           bool rules, SpecReader& r) {
  std::vector<JobDependency> out;
  if (!node.is_array()) {
    r.Report(path,
             absl::StrCat("expected a list such as [{job: prep, condition: succeeded}], got ",
                          r.Describe(node)));
    return out;
  }
  if (!r.Check(path, CheckDependencyCount(node.size()))) return out;
  std::map<std::string, int> first_line;
  for (size_t i = 0; i < node.size(); ++i) {
    const nlohmann::json& item = node[i];
    const std::string item_path = absl::StrCat(path, "[", i, "]");
    if (!r.CheckObject(item, item_path, "a map with job and condition", kDependencyFields)) {
      continue;
    }
    JobDependency dependency;
    const nlohmann::json* job = SpecReader::Child(item, "job");
    const std::string job_path = item_path + ".job";
    if (job == nullptr && rules) {
      r.Required(item, item_path, "job", kDependencyFields, "required; a job id or name");
      continue;
    }
    if (job != nullptr) {
      std::optional<std::string> name = r.String(*job, job_path);
      if (!name || (rules && !r.Check(job_path, CheckDependencyJob(*name)))) continue;
      dependency.job = *name;
    }
    if (const nlohmann::json* c = SpecReader::Child(item, "condition")) {
      const std::string condition_path = item_path + ".condition";
      std::optional<std::string> text = r.String(*c, condition_path);
      if (!text) continue;
      std::optional<DependencyCondition> condition = ParseDependencyCondition(*text);
      if (!condition) {
        r.Report(condition_path,
                 absl::StrCat("unknown condition \"", *text, "\" (expected one of: ",
                              JoinNames(kConditions), ")"));
        continue;
      }
      dependency.condition = *condition;
    }
    if (rules) {
      auto [seen, inserted] = first_line.emplace(dependency.job, r.Line(job_path));
      if (!inserted) {
        r.Report(job_path, absl::StrCat("job ", dependency.job, " is listed twice; first on line ",
                                        seen->second));
        continue;
      }
    }
    out.push_back(std::move(dependency));
  }
  return out;
}

}  // namespace dlp::internal
