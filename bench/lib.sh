# Shared by the submission benchmarks (source it): the one trivial job they all submit,
# and the context that points dlp at the Slurm test cluster.

# write_trivial_job FILE: a one-replica job running `true` on 100m of CPU.
write_trivial_job() {
  cat >"$1" <<YAML
apiVersion: dlp/v1
kind: Job
metadata: {name: dlpbench}
spec:
  replicas:
    worker: {command: ["true"], resources: {cpu: 100m}}
YAML
}

# write_slurm_context FILE JOBS_DIR: a config whose current context is the test cluster's
# partition (DLP_SLURM_PARTITION, from scripts/services.sh's env file).
write_slurm_context() {
  cat >"$1" <<YAML
current-context: slurm
contexts:
  - name: slurm
    backend: slurm
    partition: $DLP_SLURM_PARTITION
    workdir: $2
YAML
}
