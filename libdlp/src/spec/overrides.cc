#include "spec/overrides.h"

#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "spec/reader.h"

namespace dlp::internal {
namespace {

// A copy without positions: problems in it are then attributed to the --set.
YAML::Node CloneWithoutMarks(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Scalar:
      return YAML::Node(node.Scalar());
    case YAML::NodeType::Sequence: {
      YAML::Node out(YAML::NodeType::Sequence);
      for (const YAML::Node& item : node) out.push_back(CloneWithoutMarks(item));
      return out;
    }
    case YAML::NodeType::Map: {
      YAML::Node out(YAML::NodeType::Map);
      for (auto it = node.begin(); it != node.end(); ++it)
        out[CloneWithoutMarks(it->first)] = CloneWithoutMarks(it->second);
      return out;
    }
    default:
      return YAML::Node(YAML::NodeType::Null);
  }
}

std::optional<size_t> Index(const YAML::Node& seq, absl::string_view segment, bool allow_end) {
  size_t index = 0;
  if (!absl::SimpleAtoi(segment, &index)) return std::nullopt;
  if (index > seq.size() || (index == seq.size() && !allow_end)) return std::nullopt;
  return index;
}

}  // namespace

void ApplyOverride(YAML::Node root, const std::string& text, Diagnostics& diagnostics) {
  auto fail = [&](absl::string_view why) {
    diagnostics.AddPlain(absl::StrCat("--set ", text, ": ", why));
  };
  const size_t eq = text.find('=');
  if (eq == std::string::npos) {
    return fail("expected PATH=VALUE, e.g. --set spec.replicas.worker.count=8");
  }
  const std::string path = text.substr(0, eq);
  const std::string value_text = text.substr(eq + 1);
  std::vector<std::string> segments = absl::StrSplit(path, '.');
  for (const std::string& s : segments) {
    if (s.empty()) {
      return fail(absl::StrCat("\"", path,
                               "\" is not a field path; expected e.g. spec.replicas.worker.count"));
    }
  }
  YAML::Node value(YAML::NodeType::Null);
  if (!value_text.empty()) {
    try {
      value = CloneWithoutMarks(YAML::Load(value_text));
    } catch (const YAML::Exception& e) {
      return fail(absl::StrCat("the value is not valid YAML (", e.msg,
                               "); quote it for the shell, e.g. --set 'PATH=\"text\"'"));
    }
  }
  if (!root.IsMap()) return;  // the document itself is reported as not a job spec
  YAML::Node cur = root;
  for (size_t i = 0; i < segments.size(); ++i) {
    const std::string& seg = segments[i];
    const bool last = i + 1 == segments.size();
    const std::string walked = absl::StrJoin(segments.begin(), segments.begin() + i, ".");
    if (cur.IsSequence()) {
      std::optional<size_t> index = Index(cur, seg, last);
      if (!index) {
        return fail(absl::StrCat(walked, " is a list of ", cur.size(), "; \"", seg,
                                 "\" is not an index in it"));
      }
      if (last) {
        if (*index == cur.size()) {
          cur.push_back(value);
        } else {
          cur[*index] = value;
        }
        return;
      }
      YAML::Node next = cur[*index];
      cur.reset(next);
      continue;
    }
    if (!cur.IsMap()) {
      return fail(absl::StrCat(walked, " is ", Describe(cur), ", not a map; cannot set ", path));
    }
    if (last) {
      cur[seg] = value;
      return;
    }
    YAML::Node next = YamlReader::Child(cur, seg);
    if (!YamlReader::Present(next)) {
      cur[seg] = YAML::Node(YAML::NodeType::Map);
      next.reset(cur[seg]);
    }
    cur.reset(next);
  }
}

}  // namespace dlp::internal
