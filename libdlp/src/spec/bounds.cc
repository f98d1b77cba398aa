#include "spec/bounds.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "spec/reader.h"
#include "spec/rules.h"
#include "spec/text.h"

namespace dlp::internal {
namespace {

class BoundedWalk {
 public:
  explicit BoundedWalk(Diagnostics& diagnostics) : diagnostics_(diagnostics) {}

  // False once a budget is exhausted (reported); text problems only report.
  bool Visit(const YAML::Node& node, const std::string& path, int depth) {
    if (++nodes_ > kMaxYamlNodes) {
      return Stop(node, path,
                  absl::StrCat("the document has more than ", kMaxYamlNodes,
                               " nodes with its aliases (*name) expanded; each use of an "
                               "alias counts"));
    }
    if (depth > kMaxYamlDepth) {
      return Stop(node, path, absl::StrCat("nested more than ", kMaxYamlDepth, " levels deep"));
    }
    switch (node.Type()) {
      case YAML::NodeType::Scalar: {
        const std::string& text = node.Scalar();
        bytes_ += text.size();
        if (bytes_ > kMaxYamlBytes) {
          return Stop(node, path,
                      absl::StrCat("the document holds more than ", kMaxYamlBytes >> 20,
                                   " MiB of text with its aliases (*name) expanded; each use of "
                                   "an alias counts"));
        }
        if (Problem p = CheckText(text)) {
          diagnostics_.Add(node.Mark(), path, *p);
          clean_ = false;
        }
        return true;
      }
      case YAML::NodeType::Sequence: {
        size_t i = 0;
        for (auto it = node.begin(); it != node.end(); ++it, ++i) {
          if (!Visit(*it, absl::StrCat(path, "[", i, "]"), depth + 1)) return false;
        }
        return true;
      }
      case YAML::NodeType::Map:
        for (auto it = node.begin(); it != node.end(); ++it) {
          const YAML::Node key = it->first;  // copies: `it->` returns a temporary proxy
          const YAML::Node value = it->second;
          if (!Visit(key, path, depth + 1)) return false;
          const std::string child = key.IsScalar() ? JoinPath(path, key.Scalar()) : path;
          if (!Visit(value, child, depth + 1)) return false;
        }
        return true;
      default:
        return true;
    }
  }

  bool clean() const { return clean_; }

 private:
  bool Stop(const YAML::Node& node, const std::string& path, const std::string& message) {
    diagnostics_.Add(node.Mark(), path, message);
    return false;
  }

  Diagnostics& diagnostics_;
  bool clean_ = true;  // no text problem so far
  int nodes_ = 0;
  size_t bytes_ = 0;
};

}  // namespace

bool CheckSpecText(absl::string_view text, Diagnostics& diagnostics) {
  if (text.size() > kMaxSpecBytes) {
    diagnostics.AddPlain(absl::StrCat(diagnostics.filename(), ": the spec is larger than ",
                                      kMaxSpecBytes >> 20, " MiB (", kMaxSpecBytes,
                                      " bytes), the most a spec may be"));
    return false;
  }
  std::optional<TextFault> fault = FindTextFault(text);
  if (!fault) return true;
  const TextPosition at = PositionOf(text, fault->offset);
  YAML::Mark mark;
  mark.pos = static_cast<int>(fault->offset);
  mark.line = at.line;
  mark.column = at.column;
  diagnostics.Add(mark, "", absl::StrCat(fault->what, "; a spec is UTF-8 text without NUL bytes"));
  return false;
}

bool CheckYamlBounds(const YAML::Node& root, Diagnostics& diagnostics) {
  BoundedWalk walk(diagnostics);
  return walk.Visit(root, "", 0) && walk.clean();
}

}  // namespace dlp::internal
