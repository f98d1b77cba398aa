// Names of the environment variables of the job contract
// (docs/runtime-contract.md, "Rank environment"): what dlp-run sets for each
// rank (launch/rank_environment.cc) and what the ranks read back
// (comm/comm_env.cc, trace/tracer.cc). The names are spelled only here.
#pragma once

namespace dlp::contract::env {

// torchrun's variables; dlp-run also sets each with a DLP_ prefix.
inline constexpr char kRank[] = "RANK";
inline constexpr char kLocalRank[] = "LOCAL_RANK";
inline constexpr char kWorldSize[] = "WORLD_SIZE";
inline constexpr char kLocalWorldSize[] = "LOCAL_WORLD_SIZE";
inline constexpr char kNodeRank[] = "NODE_RANK";
inline constexpr char kGroupRank[] = "GROUP_RANK";
inline constexpr char kMasterAddr[] = "MASTER_ADDR";
inline constexpr char kMasterPort[] = "MASTER_PORT";
inline constexpr char kTorchRestartCount[] = "TORCHELASTIC_RESTART_COUNT";
// The rest of torchrun's environment, so that scripts written for it run unchanged.
inline constexpr char kTorchMaxRestarts[] = "TORCHELASTIC_MAX_RESTARTS";
inline constexpr char kTorchRunId[] = "TORCHELASTIC_RUN_ID";
inline constexpr char kGroupWorldSize[] = "GROUP_WORLD_SIZE";
inline constexpr char kRoleName[] = "ROLE_NAME";
inline constexpr char kRoleRank[] = "ROLE_RANK";
inline constexpr char kRoleWorldSize[] = "ROLE_WORLD_SIZE";
inline constexpr char kDlpPrefix[] = "DLP_";

// The replica and the group.
inline constexpr char kNumNodes[] = "DLP_NUM_NODES";
inline constexpr char kRole[] = "DLP_ROLE";
inline constexpr char kReplicaIndex[] = "DLP_REPLICA_INDEX";
inline constexpr char kReplica[] = "DLP_REPLICA";
inline constexpr char kRestartCount[] = "DLP_RESTART_COUNT";
// An elastic job: how often its group re-formed at another size (0 first).
inline constexpr char kResizeCount[] = "DLP_RESIZE_COUNT";
inline constexpr char kFramework[] = "DLP_FRAMEWORK";
inline constexpr char kJobId[] = "DLP_JOB_ID";
// The folder a job writes what it keeps into (JobFolder::OutputDir).
inline constexpr char kOutputDir[] = "DLP_OUTPUT_DIR";
inline constexpr char kJobName[] = "DLP_JOB_NAME";
inline constexpr char kTraceDir[] = "DLP_TRACE_DIR";
// "0" turns a rank's tracing off; "1" turns it on without DLP_TRACE_DIR.
inline constexpr char kTrace[] = "DLP_TRACE";
// A rank's trace file budget in bytes (0: none); default 16 MiB (trace/tracer.h).
inline constexpr char kTraceMaxBytes[] = "DLP_TRACE_MAX_BYTES";
inline constexpr char kCudaVisibleDevices[] = "CUDA_VISIBLE_DEVICES";
// Device indices as NVML numbers them (PCI bus order), not CUDA's fastest first.
inline constexpr char kCudaDeviceOrder[] = "CUDA_DEVICE_ORDER";
// A replica's share of a device under an MPS control daemon.
inline constexpr char kCudaMpsActiveThreadPercentage[] = "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE";
inline constexpr char kCudaMpsPinnedDeviceMemLimit[] = "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT";
inline constexpr char kCudaMpsPipeDirectory[] = "CUDA_MPS_PIPE_DIRECTORY";

// Rendezvous and collectives.
inline constexpr char kRdzvRound[] = "DLP_RDZV_ROUND";
inline constexpr char kStoreAddr[] = "DLP_STORE_ADDR";
// The job's secret (64 hex digits), which every connection to the store and
// between ranks proves (runtime/src/common/peer_proof.h). Never on a command line.
inline constexpr char kRdzvSecret[] = "DLP_RDZV_SECRET";
inline constexpr char kHostId[] = "DLP_HOST_ID";
inline constexpr char kCommTransport[] = "DLP_COMM_TRANSPORT";
inline constexpr char kCommTimeout[] = "DLP_COMM_TIMEOUT";
inline constexpr char kCommChannels[] = "DLP_COMM_CHANNELS";
inline constexpr char kCommAlgo[] = "DLP_COMM_ALGO";
inline constexpr char kAdvertiseAddr[] = "DLP_ADVERTISE_ADDR";
// "core" under dlp-run --bind-to core: the rank runs on its share of its
// host's CPUs (unless the host has more ranks than CPUs).
inline constexpr char kBindTo[] = "DLP_BIND_TO";

// Framework-specific.
inline constexpr char kTfConfig[] = "TF_CONFIG";
inline constexpr char kJaxCoordinatorAddress[] = "JAX_COORDINATOR_ADDRESS";
inline constexpr char kJaxProcessId[] = "JAX_PROCESS_ID";
inline constexpr char kJaxNumProcesses[] = "JAX_NUM_PROCESSES";
inline constexpr char kJaxLocalProcessId[] = "JAX_LOCAL_PROCESS_ID";

// One pod of a Kubernetes workload runs one rank (`dlp-run --rank-source
// kubernetes`): the manifests set the first two, Kubernetes (Indexed Jobs) or
// Volcano's env plugin the index.
inline constexpr char kPodRole[] = "DLP_POD_ROLE";  // the group role this pod runs
// Every rank's stable host name, "{role}" and "{index}" replaced:
// "train-7-{role}-0-{index}.train-7" (JobSet pods behind their headless Service).
inline constexpr char kPodHostPattern[] = "DLP_POD_HOST_PATTERN";
inline constexpr char kJobCompletionIndex[] = "JOB_COMPLETION_INDEX";
inline constexpr char kVolcanoTaskIndex[] = "VC_TASK_INDEX";

// Finding dlp-run (contract/dlp_run.h).
inline constexpr char kDlpRun[] = "DLP_RUN";

}  // namespace dlp::contract::env
