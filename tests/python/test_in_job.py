"""The in-job helpers: pure Python, the job contract's names and line format."""

import os
import pathlib
import re
import subprocess
import sys

import pytest

from dlp import in_job

SOURCE_DIR = pathlib.Path(os.environ["DLP_SOURCE_DIR"])


def test_metric_line_format(capsys):
    in_job.log_metric("loss", 0.25, step=3)
    in_job.log_metric("lr", 1e-05)
    in_job.log_metric("count", 7)
    assert capsys.readouterr().out == (
        "DLP_METRIC loss=0.25 step=3\nDLP_METRIC lr=1e-05\nDLP_METRIC count=7.0\n")


@pytest.mark.parametrize("name,step", [("", None), ("a b", None), ("a=b", None),
                                       ("loss", -1), ("loss", 1.5), ("loss", True)])
def test_metric_rejects_what_dlp_would_not_read(name, step):
    with pytest.raises(ValueError):
        in_job.log_metric(name, 1.0, step=step)


def test_environment(monkeypatch, tmp_path):
    for name in ("DLP_RANK", "DLP_WORLD_SIZE", "DLP_RESTART_COUNT", "DLP_OUTPUT_DIR"):
        monkeypatch.delenv(name, raising=False)
    assert (in_job.rank(), in_job.world_size(), in_job.restart_count()) == (0, 1, 0)
    with pytest.raises(RuntimeError, match="DLP_OUTPUT_DIR"):
        in_job.output_dir()
    monkeypatch.setenv("DLP_RANK", "3")
    monkeypatch.setenv("DLP_WORLD_SIZE", "4")
    monkeypatch.setenv("DLP_RESTART_COUNT", "2")
    monkeypatch.setenv("DLP_OUTPUT_DIR", str(tmp_path))
    assert (in_job.rank(), in_job.world_size(), in_job.restart_count()) == (3, 4, 2)
    assert in_job.checkpoint_dir() == tmp_path / "checkpoint" and (tmp_path / "checkpoint").is_dir()


def test_names_are_the_contracts():
    header = (SOURCE_DIR / "runtime/src/contract/env_names.h").read_text()
    names = dict(re.findall(r'k(\w+)\[\] = "(\w+)";', header))
    prefix = names["DlpPrefix"]
    assert in_job.OUTPUT_DIR == names["OutputDir"]
    assert in_job.RESTART_COUNT == names["RestartCount"]
    assert in_job.JOB_ID == names["JobId"]
    assert in_job.RANK == prefix + names["Rank"]
    assert in_job.WORLD_SIZE == prefix + names["WorldSize"]
    metric_header = (SOURCE_DIR / "runtime/src/contract/metric_line.cc").read_text()
    assert f'kPrefix = "{in_job.METRIC_PREFIX}"' in metric_header


def test_importing_dlp_needs_no_native_module(tmp_path):
    # Only the pure-Python files, as a job might carry them.
    package = tmp_path / "dlp"
    package.mkdir()
    for source in pathlib.Path(in_job.__file__).parent.glob("*.py"):
        (package / source.name).write_text(source.read_text())
    probe = "import dlp, sys; dlp.log_metric('x', 1); assert 'dlp._native' not in sys.modules"
    out = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path,
                         env={"PATH": os.environ["PATH"]}, capture_output=True, text=True,
                         timeout=60)
    assert (out.returncode, out.stdout) == (0, "DLP_METRIC x=1.0\n"), out.stderr
