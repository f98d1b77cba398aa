// Object and priority-class names: DNS labels derived from the job.
#include <string>

#include "absl/strings/str_cat.h"
#include "backends/kubernetes/render_input.h"
#include "spec/rules.h"

namespace dlp::internal::k8s {
namespace {

// Lowercase letters, digits and '-' only; runs of anything else become one '-'.
std::string Sanitize(const std::string& text) {
  std::string out;
  for (char c : text) {
    const char lower = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    const bool ok = (lower >= 'a' && lower <= 'z') || (lower >= '0' && lower <= '9');
    if (ok) {
      out.push_back(lower);
    } else if (!out.empty() && out.back() != '-') {
      out.push_back('-');
    }
  }
  return out;
}

void TrimDashes(std::string& s) {
  while (!s.empty() && s.back() == '-') s.pop_back();
  size_t start = 0;
  while (start < s.size() && s[start] == '-') ++start;
  s.erase(0, start);
}

}  // namespace

std::string BaseName(const std::string& job_name, const std::string& job_id) {
  std::string name = Sanitize(job_name);
  std::string id = Sanitize(job_id);
  TrimDashes(name);
  TrimDashes(id);
  if (id.size() > kMaxBaseNameBytes - 2) id = id.substr(id.size() - (kMaxBaseNameBytes - 2));
  TrimDashes(id);
  // A DNS-1035 label starts with a letter.
  if (name.empty() || !(name[0] >= 'a' && name[0] <= 'z')) name.insert(0, "j");
  const size_t room = id.empty() ? kMaxBaseNameBytes : kMaxBaseNameBytes - 1 - id.size();
  if (name.size() > room) name.resize(room);
  TrimDashes(name);
  if (name.empty()) name = "j";
  return id.empty() ? name : absl::StrCat(name, "-", id);
}

std::string PriorityClassName(int priority) {
  for (const PriorityClass& c : kPriorityClasses) {
    if (c.value == priority) return absl::StrCat("dlp-", c.name);
  }
  if (priority < 0) return absl::StrCat("dlp-priority-minus-", -static_cast<int64_t>(priority));
  return absl::StrCat("dlp-priority-", priority);
}

}  // namespace dlp::internal::k8s
