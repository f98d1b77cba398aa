"""A real dlpd for the dlp package's tests: the `local` context (DLP_CONFIG
names no file) in a temporary XDG_STATE_HOME, whose dlpd the first call
starts on demand (found through PATH, build/bin first) and the session's end
stops. Jobs run /bin/sh, or this Python with the package on PYTHONPATH."""

import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

BIN_DIR = pathlib.Path(os.environ["DLP_BIN_DIR"])


@pytest.fixture(scope="session")
def dlp_home(tmp_path_factory):
    home = tmp_path_factory.mktemp("dlp")
    env = {
        "XDG_STATE_HOME": str(home / "state"),
        "XDG_CONFIG_HOME": str(home / "config"),
        "DLP_CONFIG": str(home / "no-such-config.yaml"),
        "PATH": f"{BIN_DIR}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    saved = {name: os.environ.get(name) for name in [*env, "DLP_CONTEXT"]}
    os.environ.update(env)
    os.environ.pop("DLP_CONTEXT", None)
    yield home
    subprocess.run([str(BIN_DIR / "dlp"), "server", "stop"], check=False, timeout=60)
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.fixture(scope="session")
def client(dlp_home):
    import dlp

    return dlp.Client()


@pytest.fixture
def write_job(tmp_path):
    """write_job(name, script, count=1, python=False, extra="") -> path of a
    one-role job spec whose replicas run `script` with /bin/sh (or with this
    Python, the dlp package importable); `extra`: more lines under `spec:`."""

    def write(name, script, count=1, python=False, extra=""):
        program = [sys.executable, "-c"] if python else ["/bin/sh", "-c"]
        body = textwrap.indent(textwrap.dedent(script).strip(), " " * 10)
        path = tmp_path / f"{name}.yaml"
        path.write_text(
            f"apiVersion: dlp/v1\nkind: Job\nmetadata: {{name: {name}}}\nspec:\n"
            f"  workdir: {tmp_path}\n  replicas:\n    worker:\n      count: {count}\n"
            f"      command:\n        - {program[0]}\n        - {program[1]}\n        - |\n{body}\n"
            f"      env: {{PYTHONPATH: '{os.environ.get('PYTHONPATH', '')}'}}\n"
            f"      resources: {{cpu: 100m}}\n{extra}")
        return path

    return write
