// The simulated cluster and its jobs for dlp-bench-policy-sim.
//
// Cluster: 256 GPUs as one pool (devices "0".."255"), 4096 CPUs and 32 TiB,
// i.e. 32 nodes of 8 GPUs, 128 CPUs and 1 TiB. Four tenants, each with its
// own queue in cohort "lab", nominal quotas (of everything) in proportion to
// the weights 3:2:2:1 (96, 64, 64, 32 GPUs), no borrowing limit.
//
// Jobs, heavy-tailed: GPUs 1, 2, 4, 8, 16, 32 or 64 (or up to a smaller
// largest gang) with weight 1/size (each size class brings the same
// GPU-hours; Pareto with alpha 1), 10% fractional
// (0.25 or 0.5 GPU); 8 GPUs per replica, so 16 GPUs is a gang of two. 8 CPUs
// and 64 GiB per GPU. Runtimes lognormal (median 30 min, sigma 1.6, between
// 1 min and 3 days); 75% have a time limit of 1.1-3 x their runtime.
// Priorities 0 (80%), 10 (15%), 100 (5%); 10% may not be preempted. Tenants
// submit 35/30/20/15% of the jobs; Poisson arrivals at `load` times what the
// machine can run (total GPU-hours / (256 GPUs x span)).
#pragma once

#include <cstdint>
#include <vector>

#include "server/scheduler/simulator.h"

namespace dlp::bench {

server::SimConfig Cluster();

// `max_gang_gpus` drops the gang sizes above it from the mix (1 to 64 GPUs).
std::vector<server::SimJob> Workload(uint64_t seed, int jobs, double load, int max_gang_gpus = 64);

// The same trace with some of its jobs elastic: each job of 4 whole GPUs or
// more becomes, with probability `share`, a gang of one-GPU replicas (8 CPUs
// and 64 GiB each) of which a quarter must run (minCount = count/4) and the
// rest may come and go. With `elastic` false the very same jobs stay rigid
// (minCount = count): the baseline to compare with.
std::vector<server::SimJob> WithElasticShare(std::vector<server::SimJob> jobs, double share,
                                             uint64_t seed, bool elastic);

}  // namespace dlp::bench
