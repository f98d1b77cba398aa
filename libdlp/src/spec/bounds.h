// Bounds on a spec document before the decoder reads it, so that no input
// costs more than its size: the text itself (at most kMaxSpecBytes of UTF-8
// without NUL), and the YAML tree as the decoder will walk it. yaml-cpp keeps
// one node for an anchor and all of its aliases, but every walk visits it
// once per alias, so a 100 KB string aliased 2,000 times would cost 200 MB to
// decode: the tree is walked here first, aliases expanded, against a budget
// of nodes and scalar bytes (rules.h), and refused at the first node past it.
#pragma once

#include "absl/strings/string_view.h"
#include "spec/diagnostics.h"
#include "yaml-cpp/yaml.h"

namespace dlp::internal {

// Size, NUL bytes and UTF-8 of the raw document; reports with line:column.
bool CheckSpecText(absl::string_view text, Diagnostics& diagnostics);

// Node count, scalar bytes and depth with aliases expanded (stops at the
// first overrun), and NUL / UTF-8 in every scalar (a "\0" or "\ud800" escape).
bool CheckYamlBounds(const YAML::Node& root, Diagnostics& diagnostics);

}  // namespace dlp::internal
