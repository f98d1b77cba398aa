"""What a job's own code uses, from the job contract (docs/runtime-contract.md):
metric lines on stdout and the variables dlp-run sets for each rank. Standard
library only: it works where the native module is not installed."""

import os
import pathlib
import sys
import threading

# runtime/src/contract/env_names.h (tests/python/test_in_job.py checks them).
OUTPUT_DIR = "DLP_OUTPUT_DIR"
RESTART_COUNT = "DLP_RESTART_COUNT"
RANK = "DLP_RANK"
WORLD_SIZE = "DLP_WORLD_SIZE"
JOB_ID = "DLP_JOB_ID"
# runtime/src/contract/metric_line.h.
METRIC_PREFIX = "DLP_METRIC "

_stdout_lock = threading.Lock()


def log_metric(name, value, step=None):
    """Reports a metric point: prints ``DLP_METRIC name=value [step=N]`` on
    stdout, which dlp keeps apart from the log (``dlp metrics``,
    ``Job.metrics()``, sweeps' objectives, the model registry)."""
    name = str(name)
    if not name or any(c.isspace() or c == "=" for c in name):
        raise ValueError(f"metric name {name!r}: expected a non-empty name without spaces or '='")
    line = f"{METRIC_PREFIX}{name}={float(value)!r}"
    if step is not None:
        if isinstance(step, bool) or not isinstance(step, int) or step < 0:
            raise ValueError(f"metric step {step!r}: expected an integer >= 0")
        line += f" step={step}"
    with _stdout_lock:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def _env(name):
    value = os.environ.get(name)
    if value is None:
        raise RuntimeError(f"{name} is not set: not running as a dlp job")
    return value


def output_dir():
    """The job's output folder (``$DLP_OUTPUT_DIR``): what the job keeps, as
    ``dlp artifacts`` lists it and ``Client.models.register`` copies from it."""
    return pathlib.Path(_env(OUTPUT_DIR))


def checkpoint_dir():
    """``output_dir()/checkpoint``, created when missing: it outlives
    restarts, so a restarted job (``restart_count() > 0``) resumes from it."""
    path = output_dir() / "checkpoint"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _int_env(name, default):
    value = os.environ.get(name)
    return default if value in (None, "") else int(value)


def restart_count():
    """How many times the job was restarted so far (0 on its first run)."""
    return _int_env(RESTART_COUNT, 0)


def rank():
    """This process's rank in the job (0 outside a job)."""
    return _int_env(RANK, 0)


def world_size():
    """How many ranks the job has (1 outside a job)."""
    return _int_env(WORLD_SIZE, 1)


def job_id():
    """The job's id (``$DLP_JOB_ID``); None outside a job."""
    return os.environ.get(JOB_ID)
