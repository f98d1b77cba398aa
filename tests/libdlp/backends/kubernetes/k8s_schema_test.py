"""`dlp render --backend kubernetes` against the upstream schemas.

Renders a matrix of specs (several roles, GPUs, env with quotes and newlines,
restart policies, priorities, queues) for every flavour with the real dlp
binary, and validates every object with a real JSON-schema validator
(python3-jsonschema) against the CRDs in tests/data/k8s-schemas/, strictly:
unknown fields fail (k8s_schema_check.py). The YAML output must read back as
the JSON one. Misspelled fields must be rejected, so the check can fail.

Usage: k8s_schema_test.py DLP_BINARY SOURCE_DIR. Exit 77 (skipped) without
python3-jsonschema or PyYAML.
"""

import copy
import json
import os
import subprocess
import sys
import tempfile

try:
    import jsonschema  # noqa: F401
    import yaml
except ImportError as e:
    print("SKIP: %s (install python3-jsonschema and python3-yaml)" % e)
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import k8s_schema_check  # noqa: E402

SPECS = {
    # One role: every flavour takes it.
    "single": """
apiVersion: dlp/v1
kind: Job
metadata: {name: mnist, labels: {team: vision}}
spec:
  framework: pytorch
  image: registry.example.com/ml/train:1.0
  priority: high
  replicas:
    worker:
      count: 4
      command: [python3, train.py, --lr, "0.1"]
      env: {QUOTED: 'say "hi" and ''bye''', MULTILINE: "line one\\nline two", EMPTY: ""}
      resources: {cpu: 3500m, memory: 12Gi, gpu: 2}
  activeDeadlineSeconds: 7200
""",
    # Every role, restarts on signals only, a numeric priority, two success roles.
    "roles": """
apiVersion: dlp/v1
kind: Job
metadata: {name: tf-ps}
spec:
  framework: tensorflow
  priority: -5
  env: {SHARED: "yes", COLON: "a: b # not a comment"}
  replicas:
    chief: {count: 1, command: [python3, chief.py], resources: {cpu: 1, memory: 2Gi}}
    ps: {count: 2, command: [python3, ps.py], resources: {cpu: 2}}
    worker: {count: 3, command: [python3, w.py], resources: {cpu: 4, gpu: 1, gpuType: h200}}
    evaluator: {count: 1, command: [python3, eval.py]}
  restartPolicy: {policy: ExitCode, maxRestarts: 5}
  successPolicy: {roles: [chief, evaluator]}
""",
    # Two roles restarting on any failure, a fractional GPU, a 63-byte name, the
# job ending with its chief.
    "restarts": """
apiVersion: dlp/v1
kind: Job
metadata: {name: %s}
spec:
  framework: jax
  priority: critical
  replicas:
    chief: {count: 1, command: [python3, c.py], resources: {gpu: 0.5}}
    worker: {count: 1024, command: [python3, w.py], env: {"ON": "on", "NULL": "null", "N": "007"}}
  restartPolicy: {policy: OnFailure, maxRestarts: 3, backoffSeconds: 10}
  successPolicy: {roles: [chief]}
""" % ("a" * 20 + "-" + "b" * 42),
    # One role restarting on any failure, the default priority.
    "single-restarts": """
apiVersion: dlp/v1
kind: Job
metadata: {name: 7-bert}
spec:
  replicas:
    worker: {count: 2, command: [sh, -c, 'echo "$RANK"'], resources: {cpu: 0.25}}
  restartPolicy: {policy: OnFailure, maxRestarts: 2}
""",
}

# What a flavour refuses, and the field its message must name.
REFUSED = {
    ("job", "roles"): "spec.replicas",
    ("job", "restarts"): "spec.replicas",
    ("trainjob", "roles"): "spec.replicas",
    ("trainjob", "restarts"): "spec.replicas",
    ("trainjob", "single-restarts"): "spec.restartPolicy.policy",
    ("volcano", "roles"): "spec.restartPolicy.policy",
}

FLAVOURS = ["jobset", "job", "trainjob", "volcano"]
QUEUES = ["", "team-a"]
# Without and with the output volume (the context's output-claim).
CLAIMS = ["", "dlp-outputs"]


def render(dlp, spec_path, flavour, queue, output, claim=""):
    argv = [dlp, "render", "--backend", "kubernetes", spec_path, "-o", output,
            "--field", "flavour=" + flavour, "--field", "namespace=ml",
            "--field", "image=registry.example.com/ml/default:2",
            "--field", "training-runtime=torch-distributed"]
    if queue:
        argv += ["--field", "queue=" + queue]
    if claim:
        argv += ["--field", "output-claim=" + claim]
    env = dict(os.environ, DLP_CONFIG=os.path.join(os.path.dirname(spec_path), "none.yaml"))
    return subprocess.run(argv, capture_output=True, text=True, env=env)


def check_hosts(objects):
    """Every rank's host name (DLP_POD_HOST_PATTERN expanded) has DNS labels of <= 63 bytes."""
    problems = []
    for obj in objects:
        for line in json.dumps(obj).split('"name": "DLP_POD_HOST_PATTERN", "value": "')[1:]:
            pattern = line.split('"', 1)[0]
            for role in ("chief", "ps", "worker", "evaluator", "node"):
                host = pattern.replace("{role}", role).replace("{index}", "1023")
                for label in host.split("."):
                    if len(label) > 63:
                        problems.append("host label %s is %d bytes" % (label, len(label)))
    return problems


def main():
    dlp, source = sys.argv[1], sys.argv[2]
    schemas = k8s_schema_check.load_schemas(os.path.join(source, "tests/data/k8s-schemas"))
    failures = []
    rendered = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in SPECS.items():
            path = os.path.join(tmp, name + ".yaml")
            with open(path, "w") as f:
                f.write(text)
            for flavour in FLAVOURS:
                for queue, claim in [(q, c) for q in QUEUES for c in CLAIMS]:
                    case = "%s/%s/queue=%s/claim=%s" % (name, flavour, queue or "-", claim or "-")
                    result = render(dlp, path, flavour, queue, "json", claim)
                    refused = REFUSED.get((flavour, name))
                    if refused:
                        if result.returncode != 2 or refused not in result.stderr:
                            failures.append("%s: expected exit 2 naming %s, got %d: %s" % (
                                case, refused, result.returncode, result.stderr))
                        continue
                    if result.returncode != 0:
                        failures.append("%s: dlp render failed (%d): %s" % (
                            case, result.returncode, result.stderr))
                        continue
                    objects = json.loads(result.stdout)
                    rendered += len(objects)
                    if [o["kind"] for o in objects][:2] != ["ConfigMap", "Service"]:
                        failures.append("%s: not ConfigMap, Service, workload" % case)
                    for obj in objects:
                        failures += ["%s: %s" % (case, e)
                                     for e in k8s_schema_check.errors(schemas, obj)]
                    failures += ["%s: %s" % (case, e) for e in check_hosts(objects)]
                    as_yaml = render(dlp, path, flavour, queue, "text", claim)
                    docs = [d for d in yaml.safe_load_all(as_yaml.stdout) if d is not None]
                    if docs != objects:
                        failures.append("%s: the YAML output does not read back as the JSON "
                                        "one:\n%s" % (case, as_yaml.stdout[:2000]))

        # The validator must be able to fail: misspelled and mistyped fields.
        spec_path = os.path.join(tmp, "single.yaml")
        base = json.loads(render(dlp, spec_path, "jobset", "team-a", "json").stdout)
        job = json.loads(render(dlp, spec_path, "job", "", "json").stdout)[2]
        volcano = json.loads(render(dlp, spec_path, "volcano", "q", "json").stdout)[2]
        trainjob = json.loads(render(dlp, spec_path, "trainjob", "", "json").stdout)[2]

        def pod(js):
            return js["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]

        mutations = [
            ("JobSet spec.suspnd", base[2], lambda o: o["spec"].update(suspnd=True)),
            ("JobSet container imagePullPolicyy", base[2],
             lambda o: pod(o)["containers"][0].update(imagePullPolicyy="Always")),
            ("JobSet pod restartPolicy wrong type", base[2],
             lambda o: pod(o).update(restartPolicy=["Never"])),
            ("JobSet metadata lables", base[2],
             lambda o: o["metadata"].update(lables={"a": "b"})),
            ("JobSet bad label value", base[2],
             lambda o: o["metadata"]["labels"].update({"dlp.dev/job-id": "not a value"})),
            ("Job spec.completions as text", job,
             lambda o: o["spec"].update(completions="4")),
            ("Job spec.template.spec.containers[0].envv", job,
             lambda o: o["spec"]["template"]["spec"]["containers"][0].update(envv=[])),
            ("Volcano spec.minAvaliable", volcano,
             lambda o: o["spec"].update(minAvaliable=4)),
            ("TrainJob spec.trainer.numNode", trainjob,
             lambda o: o["spec"]["trainer"].update(numNode=2)),
            ("Service spec.clusterIp", base[1], lambda o: o["spec"].update(clusterIp="None")),
            ("ConfigMap kind", base[0], lambda o: o.update(kind="Configmap")),
            ("Service name not DNS-1035", base[1],
             lambda o: o["metadata"].update(name="7-train")),
        ]
        for title, original, mutate in mutations:
            obj = copy.deepcopy(original)
            mutate(obj)
            if not k8s_schema_check.errors(schemas, obj):
                failures.append("the validator accepted a bad object: " + title)
        for original in (base[0], base[1], base[2], job, volcano, trainjob):
            failures += ["unmutated: " + e for e in k8s_schema_check.errors(schemas, original)]

    for f in failures:
        print("FAIL: " + f)
    print("%d objects rendered and validated, %d bad objects tried, %d failures" % (
        rendered, len(mutations), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
