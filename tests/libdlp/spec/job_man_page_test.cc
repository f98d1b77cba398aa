// man/dlp-job.5 against schema/api.schema.json: the fields its SYNOPSIS shows
// and its FIELDS section documents are exactly the schema's JobSpec (through
// the tables the build generates, schema/fields.h), reshaped into the
// dlp-job(5) document as the decoder reads it (spec/field_names.h), nested
// objects included; and where the page lists an enum's names, they are the
// schema's. A field added to the schema without its man page entry, or an
// entry for a field the decoder refuses, fails here, naming the path.
#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "schema/fields.h"
#include "spec/field_names.h"

namespace dlp {
namespace {

// A document path with the enum names it takes (none for other fields).
using FieldPaths = std::map<std::string, std::vector<std::string>>;

// How the man page writes a replica's role: spec.replicas.ROLE.count.
constexpr char kRole[] = "ROLE";

std::string ReadManPage() {
  std::ifstream in(std::string(DLP_SOURCE_DIR) + "/man/dlp-job.5");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The lines of section `name` (".SH NAME" up to the next ".SH").
std::vector<std::string> Section(const std::string& page, const std::string& name) {
  std::vector<std::string> out;
  bool inside = false;
  for (absl::string_view line : absl::StrSplit(page, '\n')) {
    if (absl::StartsWith(line, ".SH ")) {
      if (inside) break;
      inside = line == ".SH " + name;
      continue;
    }
    if (inside) out.emplace_back(line);
  }
  return out;
}

std::string Join(const std::string& parent, absl::string_view name) {
  return parent.empty() ? std::string(name) : parent + "." + std::string(name);
}

// --- The schema's side -------------------------------------------------------

void AddField(const std::string& path, const schema::Field* field, FieldPaths& out) {
  std::vector<std::string>& values = out[path];
  if (field == nullptr) return;  // the document's own (spec.env)
  for (absl::string_view v : field->values) values.emplace_back(v);
  if (field->object == &schema::kReplicaSpec) {  // spec.replicas: a map of role to replica
    for (absl::string_view name : internal::kDocumentReplicaFields) {
      AddField(Join(Join(path, kRole), name), schema::kReplicaSpec.Find(name), out);
    }
  } else if (field->object != nullptr) {
    for (const schema::Field& member : field->object->fields) {
      AddField(Join(path, member.name), &member, out);
    }
  }
}

// Every field of the dlp-job(5) document, from the schema's tables.
FieldPaths SchemaFields() {
  FieldPaths out;
  for (absl::string_view name : internal::kTopFields) out[std::string(name)];
  for (absl::string_view name : internal::kMetadataFields) {
    AddField(Join("metadata", name), schema::kJobSpec.Find(name), out);
  }
  for (absl::string_view name : internal::kDocumentSpecFields) {
    AddField(Join("spec", name), schema::kJobSpec.Find(name), out);
  }
  return out;
}

// --- The man page's FIELDS ---------------------------------------------------

// Each entry of FIELDS (".TP" then ".BR name ..." or ".B name"), by path: a
// ".SS" names the object its entries belong to ("Replica spec
// (spec.replicas.ROLE)", "spec"; "Top level" is the document), ".RS"/".RE"
// nest entries under the one before. Each path maps to its entry's text.
std::map<std::string, std::string> DocumentedFields(const std::string& page) {
  std::map<std::string, std::string> out;
  std::vector<std::string> parents = {""};
  std::string last, current;
  bool after_tp = false;
  for (const std::string& line : Section(page, "FIELDS")) {
    if (absl::StartsWith(line, ".SS ")) {
      std::string title = line.substr(4);
      const size_t open = title.find('('), close = title.rfind(')');
      if (open != std::string::npos && close > open) {
        title = title.substr(open + 1, close - open - 1);
      }
      parents = {title == "Top level" ? "" : title};
      current.clear();
    } else if (line == ".RS") {
      parents.push_back(last);
      current.clear();
    } else if (line == ".RE") {
      if (parents.size() > 1) parents.pop_back();
      current.clear();
    } else if (line == ".TP") {
      after_tp = true;
      current.clear();
      continue;
    } else if (after_tp && (absl::StartsWith(line, ".BR ") || absl::StartsWith(line, ".B "))) {
      const std::vector<std::string> words = absl::StrSplit(line, ' ');
      last = current = Join(parents.back(), words[1]);
      out[current] = line;
    } else if (!current.empty()) {
      out[current] += "\n" + line;
    }
    after_tp = false;
  }
  return out;
}

// The longest list of bold names in `text` ("\fBa\fR, \fBb\fR or \fBc\fR").
std::vector<std::string> BoldList(const std::string& text) {
  static const std::regex kBold(R"(\\fB([A-Za-z]+)\\fR)");
  std::vector<std::string> best, run;
  size_t end = std::string::npos;
  const std::sregex_iterator none;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kBold); it != none; ++it) {
    const std::string between =
        end == std::string::npos ? "" : text.substr(end, it->position() - end);
    if (between != ", " && between != " or " && between != ", or ") run.clear();
    run.push_back((*it)[1]);
    if (run.size() > best.size()) best = run;
    end = it->position() + it->length();
  }
  return best.size() >= 2 ? best : std::vector<std::string>{};
}

// --- The man page's SYNOPSIS -------------------------------------------------

// The SYNOPSIS is the document in YAML, block and flow style, with
// placeholders in italics (here <NAME>) and alternatives as "a | b".
class SynopsisReader {
 public:
  FieldPaths Read(const std::string& page) {
    std::vector<std::pair<size_t, std::string>> blocks;  // indentation, path
    for (std::string line : Section(page, "SYNOPSIS")) {
      if (line.empty() || line[0] == '.') continue;
      line = std::regex_replace(line, std::regex(R"(\\fI([^\\]*)\\fR)"), "<$1>");
      line = std::regex_replace(line, std::regex(R"(\\-)"), "-");
      const size_t indent = line.find_first_not_of(' ');
      while (!blocks.empty() && blocks.back().first >= indent) blocks.pop_back();
      const size_t colon = line.find(':');
      if (colon == std::string::npos) {
        ADD_FAILURE() << "a SYNOPSIS line without a field: " << line;
        continue;
      }
      std::string key = line.substr(indent, colon - indent);
      if (key.find('|') != std::string::npos) key = kRole;  // chief | ps | worker | evaluator
      const std::string path = Join(blocks.empty() ? "" : blocks.back().second, key);
      text_ = line;
      at_ = colon + 1;
      Value(path);
      blocks.emplace_back(indent, path);
    }
    return out_;
  }

 private:
  void Skip() {
    while (at_ < text_.size() && text_[at_] == ' ') ++at_;
  }
  bool Eat(absl::string_view token) {
    Skip();
    if (absl::string_view(text_).substr(at_, token.size()) != token) return false;
    at_ += token.size();
    return true;
  }
  // Items of "{...}" or "[...]" up to `close`; a map's items are fields.
  void Items(const std::string& path, char close, bool map) {
    out_[path];
    while (at_ < text_.size() && !Eat(std::string(1, close))) {
      if (Eat("...") || Eat(",")) continue;
      const size_t before = at_;
      if (!map) {
        Value(path);  // a list's items: their fields are the list's
        if (at_ == before) ADD_FAILURE() << "SYNOPSIS: cannot read " << text_.substr(at_);
        if (at_ == before) return;
        continue;
      }
      const size_t colon = text_.find(':', at_);
      ASSERT_NE(colon, std::string::npos) << "a SYNOPSIS map without a field: " << text_;
      const std::string key(absl::StripAsciiWhitespace(text_.substr(at_, colon - at_)));
      at_ = colon + 1;
      // A placeholder key is a free-form map's (labels, env): not a field.
      Value(key[0] == '<' ? "" : Join(path, key));
    }
  }
  void Value(const std::string& path) {
    Skip();
    if (Eat("{")) return Items(path, '}', true);
    if (Eat("[")) return Items(path, ']', false);
    const size_t end = std::min(text_.find_first_of(",}]", at_), text_.size());
    std::vector<std::string> names;
    for (absl::string_view name : absl::StrSplit(text_.substr(at_, end - at_), '|')) {
      name = absl::StripAsciiWhitespace(name);
      if (!name.empty() && name[0] != '<') names.emplace_back(name);
    }
    at_ = end;
    if (!path.empty()) out_[path] = names;
  }

  FieldPaths out_;
  std::string text_;
  size_t at_ = 0;
};

// --- The tests ---------------------------------------------------------------

template <typename Map>
std::set<std::string> Paths(const Map& map) {
  std::set<std::string> out;
  for (const auto& [path, unused] : map) {
    if (!absl::EndsWith(path, std::string(".") + kRole)) out.insert(path);
  }
  return out;
}

std::vector<std::string> Minus(const std::set<std::string>& a, const std::set<std::string>& b) {
  std::vector<std::string> out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

std::set<std::string> Sorted(const std::vector<std::string>& names) {
  return {names.begin(), names.end()};
}

TEST(JobManPage, FieldsDocumentsEveryFieldOfTheSchemaAndNoOther) {
  const std::set<std::string> schema = Paths(SchemaFields());
  const std::set<std::string> man = Paths(DocumentedFields(ReadManPage()));
  EXPECT_THAT(Minus(schema, man), testing::IsEmpty())
      << "fields of the schema that man/dlp-job.5's FIELDS does not document";
  EXPECT_THAT(Minus(man, schema), testing::IsEmpty())
      << "fields man/dlp-job.5's FIELDS documents that the schema lacks";
}

TEST(JobManPage, SynopsisShowsEveryFieldOfTheSchemaAndNoOther) {
  const std::set<std::string> schema = Paths(SchemaFields());
  const std::set<std::string> man = Paths(SynopsisReader().Read(ReadManPage()));
  EXPECT_THAT(Minus(schema, man), testing::IsEmpty())
      << "fields of the schema that man/dlp-job.5's SYNOPSIS does not show";
  EXPECT_THAT(Minus(man, schema), testing::IsEmpty())
      << "fields man/dlp-job.5's SYNOPSIS shows that the schema lacks";
}

TEST(JobManPage, EnumNamesAreTheSchemas) {
  const std::string page = ReadManPage();
  const FieldPaths synopsis = SynopsisReader().Read(page);
  const std::map<std::string, std::string> fields = DocumentedFields(page);
  int enums = 0;
  for (const auto& [path, values] : SchemaFields()) {
    if (values.empty()) continue;
    ++enums;
    const auto shown = synopsis.find(path);
    if (shown != synopsis.end()) {
      EXPECT_EQ(Sorted(shown->second), Sorted(values)) << "SYNOPSIS, " << path;
    }
    const auto entry = fields.find(path);
    if (entry != fields.end()) {
      EXPECT_EQ(Sorted(BoldList(entry->second)), Sorted(values))
          << "FIELDS, " << path << ": its names as \\fBa\\fR, \\fBb\\fR or \\fBc\\fR";
    }
  }
  EXPECT_GE(enums, 4) << "framework, restartPolicy.policy, tracing, dependsOn.condition";
}

// The readers themselves, on a page of known content.
TEST(JobManPage, ReadersFindNestedFieldsAndNames) {
  const std::string page = R"page(.SH SYNOPSIS
.nf
spec:
  replicas:
    chief | worker:
      resources: {cpu: \fICPU\fR, gpu: \fIN\fR}
  dependsOn: [{job: \fIID\fR, condition: a | b}, ...]
  env: {\fINAME\fR: \fIVALUE\fR, ...}
.fi
.SH FIELDS
.SS spec
.TP
.BR kind " (string)"
One of \fBx\fR, \fBy\fR or \fBz\fR; \fBw\fR alone.
.SS Replica spec (spec.replicas.ROLE)
.TP
.BR resources " (map)"
.RS
.TP
.BR gpu " (number)"
.RE
.TP
.B count
.SH EXAMPLES
)page";
  const FieldPaths synopsis = SynopsisReader().Read(page);
  EXPECT_THAT(Paths(synopsis),
              testing::ElementsAre("spec", "spec.dependsOn", "spec.dependsOn.condition",
                                   "spec.dependsOn.job", "spec.env", "spec.replicas",
                                   "spec.replicas.ROLE.resources",
                                   "spec.replicas.ROLE.resources.cpu",
                                   "spec.replicas.ROLE.resources.gpu"));
  EXPECT_THAT(synopsis.at("spec.dependsOn.condition"), testing::ElementsAre("a", "b"));
  const std::map<std::string, std::string> fields = DocumentedFields(page);
  EXPECT_THAT(Paths(fields), testing::ElementsAre("spec.kind", "spec.replicas.ROLE.count",
                                                  "spec.replicas.ROLE.resources",
                                                  "spec.replicas.ROLE.resources.gpu"));
  EXPECT_THAT(BoldList(fields.at("spec.kind")), testing::ElementsAre("x", "y", "z"));
}

}  // namespace
}  // namespace dlp
