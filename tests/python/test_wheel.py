"""`pip install` of the package's wheel into a fresh venv of Debian's Python,
which then drives a real job: the wheel is built as pip builds it from
./python (scikit-build-core), without the network, against this build's dlp
installed into a prefix."""

import os
import pathlib
import shutil
import subprocess
import sys

SOURCE_DIR = pathlib.Path(os.environ["DLP_SOURCE_DIR"])


def run(argv, **kwargs):
    out = subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=240,
                         **kwargs)
    assert out.returncode == 0, f"{argv}\n{out.stdout}\n{out.stderr}"
    return out.stdout


def test_wheel_in_a_fresh_venv(client, write_job, tmp_path):
    prefix = tmp_path / "prefix"
    run(["cmake", "--install", os.environ["DLP_BUILD_DIR"], "--prefix", prefix])
    env = dict(os.environ, CMAKE_PREFIX_PATH=str(prefix))
    env.pop("PYTHONPATH", None)  # the build tree's package must not be the one imported
    if shutil.which("ccache"):  # paths under tmp_path hashed relative to it: a rerun hits
        env.update(CMAKE_ARGS="-DCMAKE_CXX_COMPILER_LAUNCHER=ccache", CCACHE_BASEDIR=str(tmp_path),
                   CCACHE_NOHASHDIR="1")
    run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-build-isolation", "--no-deps",
         f"--config-settings=build-dir={tmp_path / 'build'}", "--wheel-dir", tmp_path / "wheels",
         SOURCE_DIR / "python"], env=env)
    wheels = list((tmp_path / "wheels").glob("dlp-*.whl"))
    assert len(wheels) == 1, wheels

    venv = tmp_path / "venv"
    run(["/usr/bin/python3", "-m", "venv", venv])
    run([venv / "bin/pip", "install", "--quiet", "--disable-pip-version-check", "--no-index",
         wheels[0]], env=env)
    probe = ("import sys, dlp\n"
             "assert dlp.__file__.startswith(sys.prefix), dlp.__file__\n"
             "job = dlp.Client().submit(sys.argv[1])\n"
             "print(job.wait(timeout=120), [l.text for l in job.logs()])\n")
    out = run([venv / "bin/python", "-c", probe, write_job("wheel", "echo from the wheel")],
              env=env, cwd=tmp_path)
    assert out == "Succeeded ['from the wheel']\n"
