// ParseJobSpec / LoadJobSpec: the one adapter between yaml-cpp (which throws)
// and the Status-returning spec API.
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/string_view_compat.h"
#include "dlp/spec.h"
#include "dlp/status.h"
#include "spec/bounds.h"
#include "spec/decoder.h"
#include "spec/diagnostics.h"
#include "spec/document.h"
#include "spec/overrides.h"
#include "spec/rules.h"
#include "yaml-cpp/eventhandler.h"
#include "yaml-cpp/yaml.h"

namespace dlp {
namespace {

bool IsStdin(absl::string_view filename) { return filename.empty() || filename == "-"; }

// yaml-cpp's messages are terse; a hint for the ones people meet most.
std::string SyntaxMessage(const std::string& msg) {
  struct Hint {
    absl::string_view match, hint;
  };
  static constexpr Hint kHints[] = {
      {"end of sequence flow not found", "a '[' list is not closed with ']'"},
      {"end of map flow not found", "a '{' map is not closed with '}'"},
      {"illegal flow end", "a ']' or '}' that closes nothing, or brackets that do not match"},
      {"illegal map value",
       "a ':' where none was expected; check the indentation, or quote a "
       "value that contains ': '"},
      {"end of sequence not found", "check the indentation of the list"},
      {"end of map not found", "check the indentation of the map"},
      {"unknown escape character", "in a double-quoted string, write \\\\ for a backslash"},
      {"unexpected end of", "the document ends too early"},
  };
  std::string out = absl::StrCat("YAML syntax error: ", msg);
  for (const Hint& h : kHints) {
    if (absl::StrContains(msg, h.match)) {
      absl::StrAppend(&out, " (", h.hint, ")");
      break;
    }
  }
  return out;
}

// The 1-based number of the first line up to `last_line` (0-based) whose
// indentation holds a tab, or 0: yaml-cpp reports those as other errors.
int TabIndentedLine(absl::string_view yaml, int last_line) {
  int line = 0;
  for (absl::string_view text : absl::StrSplit(yaml, '\n')) {
    if (line > last_line) break;
    const size_t indent_end = text.find_first_not_of(" \t");
    if (text.substr(0, indent_end).find('\t') != absl::string_view::npos) return line + 1;
    ++line;
  }
  return 0;
}

// Where each document starts (its first node, as LoadAll's nodes mark it);
// the events themselves are not kept.
class DocumentStarts : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override {
    starts.push_back(mark);
    first_node_ = true;
  }
  void OnDocumentEnd() override { first_node_ = false; }
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { Node(mark); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { Node(mark); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                const std::string&) override {
    Node(mark);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    Node(mark);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    Node(mark);
  }
  void OnMapEnd() override {}

  std::vector<YAML::Mark> starts;

 private:
  void Node(const YAML::Mark& mark) {
    if (first_node_) starts.back() = mark;
    first_node_ = false;
  }
  bool first_node_ = false;
};

// The first document (none for an empty text); `second` is where a second
// one starts. yaml-cpp 0.7's LoadAll never returns on some inputs (a lone ",";
// fixed upstream after 0.7), so documents are counted with the event parser,
// stopping at the second. Throws YAML::Exception as LoadAll does.
std::vector<YAML::Node> LoadFirstDocument(const std::string& yaml,
                                          std::optional<YAML::Mark>& second) {
  std::istringstream in(yaml);
  YAML::Parser parser(in);
  DocumentStarts documents;
  while (documents.starts.size() < 2 && parser.HandleNextDocument(documents)) {
  }
  if (documents.starts.size() > 1) second = documents.starts[1];
  if (documents.starts.empty()) return {};
  return {YAML::Load(yaml)};
}

}  // namespace

namespace internal {

std::optional<YAML::Node> LoadSpecDocument(absl::string_view yaml, const std::string& shown,
                                           Diagnostics& diagnostics) {
  if (!internal::CheckSpecText(yaml, diagnostics)) return std::nullopt;
  std::vector<YAML::Node> documents;
  std::optional<YAML::Mark> second_document;
  try {
    documents = LoadFirstDocument(std::string(yaml), second_document);
  } catch (const YAML::Exception& e) {
    std::string message = SyntaxMessage(e.msg);
    if (int tab_line = TabIndentedLine(yaml, e.mark.line); tab_line > 0) {
      absl::StrAppend(&message, "; line ", tab_line,
                      " is indented with a tab, and YAML indents with spaces only");
    }
    diagnostics.Add(e.mark, "", message);
    return std::nullopt;
  }
  if (documents.empty() || (documents.size() == 1 && documents[0].IsNull())) {
    diagnostics.AddPlain(
        absl::StrCat(shown,
                     ": the document is empty; expected a job spec with apiVersion, kind, metadata "
                     "and spec (see dlp-job(5))"));
    return std::nullopt;
  }
  if (second_document) {
    diagnostics.Add(*second_document, "",
                    "a spec file holds one job, but this is a second YAML document");
    return std::nullopt;
  }
  return documents[0];
}

std::string BaseDir(absl::string_view filename) {
  std::error_code ec;
  std::filesystem::path base = std::filesystem::current_path(ec);
  if (!IsStdin(filename)) {
    base =
        std::filesystem::absolute(std::filesystem::path(std::string(filename)), ec).parent_path();
  }
  return base.string();
}

absl::StatusOr<std::string> ReadSpecText(const std::string& path) {
  if (IsStdin(path)) {
    // One byte past the limit is enough for the parser to refuse it.
    std::string text(internal::kMaxSpecBytes + 1, '\0');
    std::cin.read(text.data(), static_cast<std::streamsize>(text.size()));
    if (std::cin.bad()) return absl::InvalidArgumentError("<stdin>: cannot read standard input");
    text.resize(static_cast<size_t>(std::cin.gcount()));
    return text;
  }
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": is a folder; expected a job spec file (YAML)"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": cannot read: ", std::strerror(errno)));
  }
  std::string text(internal::kMaxSpecBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": cannot read: ", std::strerror(errno)));
  }
  text.resize(static_cast<size_t>(in.gcount()));
  return text;
}

}  // namespace internal

namespace {

absl::StatusOr<JobSpec> Parse(absl::string_view yaml, absl::string_view filename,
                              const SpecOptions& options) {
  const std::string shown = IsStdin(filename) ? "<stdin>" : std::string(filename);
  internal::Diagnostics diagnostics(shown);
  diagnostics.set_overrides(options.overrides);
  std::optional<YAML::Node> document = internal::LoadSpecDocument(yaml, shown, diagnostics);
  if (!document) return diagnostics.ToStatus();
  YAML::Node root = *document;
  for (const std::string& o : options.overrides) internal::ApplyOverride(root, o, diagnostics);
  if (!internal::CheckYamlBounds(root, diagnostics)) return diagnostics.ToStatus();

  internal::DecodeOptions decode{.name = options.name, .base_dir = internal::BaseDir(filename)};
  JobSpec spec = internal::DecodeJobSpec(root, decode, diagnostics);
  // The decoder applies every rule of spec/rules.h with positions, so the
  // spec is valid here; Client::Submit runs ValidateJobSpec for specs from
  // any source (the client side's one check).
  DLP_RETURN_IF_ERROR(diagnostics.ToStatus());
  return spec;
}

}  // namespace

absl::StatusOr<JobSpec> ParseJobSpec(std::string_view std_yaml, std::string_view std_filename,
                                     const SpecOptions& options) {
  const absl::string_view yaml = internal::ToAbsl(std_yaml);
  const absl::string_view filename = internal::ToAbsl(std_filename);
  try {
    return Parse(yaml, filename, options);
  } catch (const std::exception& e) {  // yaml-cpp throws on unexpected node shapes
    return absl::InvalidArgumentError(
        absl::StrCat(IsStdin(filename) ? "<stdin>" : filename, ": ", e.what()));
  }
}

absl::StatusOr<std::string> ReadSpecFile(const std::string& path) {
  return internal::ReadSpecText(path);
}

absl::StatusOr<JobSpec> LoadJobSpec(const std::string& path, const SpecOptions& options) {
  DLP_ASSIGN_OR_RETURN(std::string text, internal::ReadSpecText(path));
  return ParseJobSpec(text, path, options);
}

}  // namespace dlp
