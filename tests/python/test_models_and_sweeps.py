"""The model registry's round trip and a sweep, through dlp.Client."""

import hashlib

import pytest

import dlp


def test_model_register_get_list_download(client, write_job, tmp_path):
    script = """
        import dlp
        (dlp.output_dir() / "model.bin").write_bytes(b"weights " * 100)
        (dlp.checkpoint_dir() / "step-1").write_text("resume here")
        dlp.log_metric("accuracy", 0.9)
        """
    job = client.submit(write_job("trainer", script, python=True))
    assert job.wait(timeout=120) == "Succeeded", list(job.logs())
    first = client.models.register("pymodel", job, "model.bin", alias="staging")
    assert (first["name"], first["version"], first["job"]) == ("pymodel", 1, job.id)
    assert first["sha256"] == hashlib.sha256(b"weights " * 100).hexdigest()
    assert first["metrics"] == {"accuracy": 0.9}
    second = client.models.register("pymodel", job.id, "checkpoint/step-1")
    assert second["version"] == 2
    assert client.models.get("pymodel")["version"] == 2
    assert client.models.get("pymodel@staging")["version"] == 1
    assert [(m["name"], m["version"]) for m in client.models.list() if m["name"] == "pymodel"] == [
        ("pymodel", 1), ("pymodel", 2)]
    fetched = client.models.download("pymodel:1", tmp_path / "fetched")
    assert open(fetched["file"], "rb").read() == b"weights " * 100
    try:
        client.models.get("pymodel:3")
        raise AssertionError("version 3 should not exist")
    except dlp.NotFound as e:
        assert e.exit_code == 3


def test_sweep_from_a_dict_wait_and_trials(client):
    # Two trials, each reporting its score = a·10 as the objective.
    worker = {"command": ["/bin/sh", "-c", 'echo "DLP_METRIC score=${params.a}0 step=1"'],
              "resources": {"cpu": "100m"}}
    spec = {"apiVersion": "dlp/v1", "kind": "Sweep", "metadata": {"name": "pysweep"},
            "spec": {"objective": {"metric": "score", "goal": "maximize"},
                     "search": {"algorithm": "grid"}, "parallelism": 2,
                     "parameters": {"a": {"type": "int", "min": 1, "max": 2}},
                     "template": {"workdir": "/tmp", "replicas": {"worker": worker}}}}
    sweep = client.submit(spec)
    assert isinstance(sweep, dlp.Sweep)
    assert sweep.wait(timeout=180) == "Succeeded"
    assert sorted(t["objective"] for t in sweep.trials) == [10, 20]
    assert sweep.id in [s.id for s in client.sweeps()]
    assert client.sweep(sweep.id).state == "Succeeded"
    assert sweep.delete() == "Succeeded"
    assert sweep.id not in [s.id for s in client.sweeps()]
    with pytest.raises(dlp.NotFound):
        client.sweep(sweep.id)
