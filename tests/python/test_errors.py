"""Failures as Python exceptions carrying dlp's exit-code classes."""

import pytest

import dlp
from dlp import _native, errors


def test_exit_codes_are_libdlps():
    assert _native.EXIT_CODES == {
        "JOB_FAILED": errors.EXIT_JOB_FAILED, "USAGE": errors.EXIT_USAGE,
        "NOT_FOUND": errors.EXIT_NOT_FOUND, "BACKEND": errors.EXIT_BACKEND,
        "CANCELLED": errors.EXIT_CANCELLED, "DENIED": errors.EXIT_DENIED,
        "INTERRUPTED": errors.EXIT_INTERRUPTED}


def test_unknown_job_is_not_found(client):
    with pytest.raises(dlp.NotFound) as raised:
        client.job("987654")
    assert raised.value.exit_code == 3 and raised.value.code == "NOT_FOUND"
    assert "987654" in str(raised.value)


def test_invalid_spec_names_file_line_and_column(client, tmp_path):
    spec = tmp_path / "bad.yaml"
    spec.write_text("apiVersion: dlp/v1\nkind: Job\nmetadata: {name: bad}\nspec:\n"
                    "  replicas:\n    worker:\n      count: two\n      command: [true]\n")
    with pytest.raises(dlp.InvalidSpec) as raised:
        client.submit(spec)
    e = raised.value
    assert (e.file, e.line, e.column) == (str(spec), 7, 14), str(e)
    assert e.field == "spec.replicas.worker.count"
    assert e.exit_code == 2 and isinstance(e, dlp.UsageError)


def test_bad_override_and_missing_file_are_invalid_specs(client, tmp_path):
    with pytest.raises(dlp.InvalidSpec):
        client.submit(tmp_path / "missing.yaml")
    with pytest.raises(dlp.InvalidSpec) as raised:
        client.submit({"apiVersion": "dlp/v1", "kind": "Job", "metadata": {"name": "d"},
                       "spec": {"replicas": {"worker": {"command": ["true"]}}}},
                      overrides=["spec.replicas.worker.count=-1"])
    assert "count" in str(raised.value)


def test_unknown_context_is_not_found(dlp_home):
    with pytest.raises(dlp.NotFound) as raised:
        dlp.Client(context="nowhere")
    assert "nowhere" in str(raised.value)
