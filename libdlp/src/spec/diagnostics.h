// Collects the problems found in one spec document and turns them into one
// InvalidArgumentError, one problem a line, in file order:
//   job.yaml:12:5: spec.replica: unknown field; did you mean 'replicas'?
// Nodes that came from a --set override carry no position; their problems
// name the override instead.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "yaml-cpp/yaml.h"

namespace dlp::internal {

class Diagnostics {
 public:
  explicit Diagnostics(std::string filename) : filename_(std::move(filename)) {}

  // Overrides applied to the document, as given ("spec.replicas.worker.count=8").
  void set_overrides(std::vector<std::string> overrides) { overrides_ = std::move(overrides); }
  const std::string& filename() const { return filename_; }
  // Non-empty: field paths under "spec" are reported under this one instead
  // ("spec.jobs.train": a pipeline's job is decoded as a job's spec).
  void set_spec_path(std::string path) { spec_path_ = std::move(path); }

  // A problem at `mark` (file position) with the field `path` ("" for the document).
  void Add(const YAML::Mark& mark, absl::string_view path, absl::string_view message);
  // A problem with no position in the file (a bad --set, an unreadable file).
  void AddPlain(absl::string_view message);

  bool empty() const { return messages_.empty(); }
  // OK when there was no problem.
  absl::Status ToStatus() const;

 private:
  std::string filename_;
  std::vector<std::string> overrides_;
  std::string spec_path_;
  struct Message {
    int line, column;  // for ordering: file order, problems without position around it
    std::string text;
  };
  std::vector<Message> messages_;
};

}  // namespace dlp::internal
