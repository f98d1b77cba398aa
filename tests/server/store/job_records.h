// A job record as the store tests insert it: two workers that echo.
#pragma once

#include <map>
#include <string>

#include "server/controller/controller.h"

namespace dlp::server {

inline JobRecord NewRecord(const std::string& name, const std::string& queue = "default",
                           std::map<std::string, std::string> labels = {}) {
  JobRecord r;
  r.job.name = name;
  r.job.queue = queue;
  r.job.spec.name = name;
  r.job.spec.queue = queue;
  r.job.spec.labels = std::move(labels);
  ReplicaSpec worker;
  worker.role = "worker";
  worker.count = 2;
  worker.command = {"echo", "hi"};
  r.job.spec.replicas.push_back(worker);
  r.job.replicas = InitialReplicas(r.job.spec);
  return r;
}

}  // namespace dlp::server
