"""Validates Kubernetes objects against upstream CRD schemas, strictly.

A structural CRD schema prunes unknown fields on the API server instead of
refusing them; here an unknown field is an error, so that a misspelled field
in dlp's manifests fails the test rather than vanishing on a real cluster:
every object schema without x-kubernetes-preserve-unknown-fields (and without
its own additionalProperties) gets additionalProperties: false. The CRDs leave
the top-level metadata open, and ConfigMap, Service and batch/v1 Job have no
CRD: ObjectMeta, ConfigMap and Service get the small schemas below (the fields
dlp writes, with the API server's name and label syntax); a batch/v1 Job is
checked with the JobTemplateSpec that JobSet's CRD embeds. CEL rules
(x-kubernetes-validations) are not evaluated.
"""

import copy
import os

import jsonschema
import yaml

DNS1123_LABEL = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
DNS1035_LABEL = r"^[a-z]([-a-z0-9]*[a-z0-9])?$"
DNS1123_SUBDOMAIN = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
LABEL_KEY = (r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
             r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$")
LABEL_VALUE = r"^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$"


def object_meta(name_pattern, name_max):
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["name", "namespace", "labels"],
        "properties": {
            "name": {"type": "string", "pattern": name_pattern, "maxLength": name_max},
            "namespace": {"type": "string", "pattern": DNS1123_LABEL, "maxLength": 63},
            "labels": {
                "type": "object",
                "propertyNames": {"pattern": LABEL_KEY, "maxLength": 317},
                "additionalProperties": {"type": "string", "pattern": LABEL_VALUE,
                                         "maxLength": 63},
            },
            "annotations": {"type": "object", "additionalProperties": {"type": "string"}},
        },
    }


def fixed(value):
    return {"type": "string", "enum": [value]}


def strict(schema):
    """A copy of `schema` where objects refuse fields they do not declare."""
    schema = copy.deepcopy(schema)

    def walk(node):
        if isinstance(node, dict):
            if (node.get("type") == "object" and "properties" in node
                    and "additionalProperties" not in node
                    and not node.get("x-kubernetes-preserve-unknown-fields")):
                node["additionalProperties"] = False
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    return schema


def crd_schema(path, version):
    with open(path) as f:
        crd = yaml.load(f, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    for v in crd["spec"]["versions"]:
        if v["name"] == version:
            return crd["spec"]["group"], crd["spec"]["names"]["kind"], v["schema"]["openAPIV3Schema"]
    raise KeyError("%s has no version %s" % (path, version))


def workload(group, version, kind, spec_schema):
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["apiVersion", "kind", "metadata", "spec"],
        "properties": {
            "apiVersion": fixed("%s/%s" % (group, version) if group else version),
            "kind": fixed(kind),
            # Workloads are Services' namesakes: DNS-1035 labels.
            "metadata": object_meta(DNS1035_LABEL, 63),
            "spec": strict(spec_schema),
        },
    }


CRDS = [
    ("jobset.x-k8s.io_jobsets.yaml", "v1alpha2"),
    ("trainer.kubeflow.org_trainjobs.yaml", "v1alpha1"),
    ("batch.volcano.sh_jobs.yaml", "v1alpha1"),
]


def load_schemas(schema_dir):
    """Schemas by (apiVersion, kind)."""
    schemas = {}
    for name, version in CRDS:
        group, kind, schema = crd_schema(os.path.join(schema_dir, name), version)
        schemas[("%s/%s" % (group, version), kind)] = workload(
            group, version, kind, schema["properties"]["spec"])
        if kind == "JobSet":
            template = schema["properties"]["spec"]["properties"]["replicatedJobs"]["items"][
                "properties"]["template"]
            schemas[("batch/v1", "Job")] = workload("batch", "v1", "Job",
                                                    template["properties"]["spec"])
    schemas[("v1", "ConfigMap")] = {
        "type": "object",
        "additionalProperties": False,
        "required": ["apiVersion", "kind", "metadata", "data"],
        "properties": {
            "apiVersion": fixed("v1"),
            "kind": fixed("ConfigMap"),
            "metadata": object_meta(DNS1123_SUBDOMAIN, 253),
            "data": {
                "type": "object",
                "propertyNames": {"pattern": r"^[-._a-zA-Z0-9]+$"},
                "additionalProperties": {"type": "string"},
            },
        },
    }
    schemas[("v1", "Service")] = {
        "type": "object",
        "additionalProperties": False,
        "required": ["apiVersion", "kind", "metadata", "spec"],
        "properties": {
            "apiVersion": fixed("v1"),
            "kind": fixed("Service"),
            "metadata": object_meta(DNS1035_LABEL, 63),
            "spec": {
                "type": "object",
                "additionalProperties": False,
                "required": ["clusterIP", "selector"],
                "properties": {
                    "clusterIP": {"type": "string", "enum": ["None"]},
                    "publishNotReadyAddresses": {"type": "boolean"},
                    "selector": {
                        "type": "object",
                        "minProperties": 1,
                        "propertyNames": {"pattern": LABEL_KEY},
                        "additionalProperties": {"type": "string", "pattern": LABEL_VALUE},
                    },
                },
            },
        },
    }
    return schemas


def errors(schemas, obj):
    """Every problem with `obj` as "path: message" lines; empty when valid."""
    key = (obj.get("apiVersion"), obj.get("kind"))
    if key not in schemas:
        return ["%s/%s: no schema for this kind" % key]
    validator = jsonschema.Draft7Validator(schemas[key])
    out = []
    for e in sorted(validator.iter_errors(obj), key=lambda e: list(e.path)):
        path = ".".join(str(p) for p in e.absolute_path) or "(object)"
        out.append("%s %s: %s: %s" % (obj["kind"], obj.get("metadata", {}).get("name"), path,
                                      e.message[:300]))
    return out
