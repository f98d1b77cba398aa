// Pipeline files the CLI tests share.
#pragma once

namespace dlp::testing {

// prep -> eval -> train -> prep: refused at submit, validate and render with
// the cycle named at spec.jobs.train.dependsOn[0] (line 10, column 19).
inline constexpr char kCyclePipeline[] = R"(apiVersion: dlp/v1
kind: Pipeline
metadata: {name: cycle}
spec:
  jobs:
    prep:
      dependsOn: [{job: eval}]
      replicas: {worker: {command: ['true']}}
    train:
      dependsOn: [{job: prep}]
      replicas: {worker: {command: ['true']}}
    eval:
      dependsOn: [{job: train}]
      replicas: {worker: {command: ['true']}}
)";

}  // namespace dlp::testing
