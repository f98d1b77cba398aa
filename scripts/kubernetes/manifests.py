#!/usr/bin/python3
"""Rewrites JobSet's and Kueue's shipped CRDs and webhook configurations for
the loopback test cluster, with the patches their kustomizations apply to
the webhooks (which pods and namespaces each one sees): every webhook
(admission and CRD conversion) is reached by URL on 127.0.0.1 with the CA
generated at start, instead of by an in-cluster Service. Prints one multi-document YAML for `kubectl apply`.

usage: manifests.py COMPONENTS_DIR CA_FILE JOBSET_PORT KUEUE_PORT
"""
import base64
import glob
import os
import re
import sys

import yaml


def client_config(port, path, ca_bundle):
    return {"url": f"https://127.0.0.1:{port}{path}", "caBundle": ca_bundle}


def json6902(doc, ops):
    # Only what the shipped patches use: "replace" of a list item or a key.
    for op in ops:
        if op["op"] != "replace":
            sys.exit(f"manifests: unsupported patch op {op['op']}")
        *parents, last = op["path"].strip("/").split("/")
        node = doc
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        node[int(last) if isinstance(node, list) else last] = op["value"]


def merge_webhooks(doc, patch):
    # A strategic merge of webhooks by name, one level deep (namespaceSelector).
    by_name = {hook["name"]: hook for hook in doc.get("webhooks", [])}
    for hook in patch.get("webhooks", []):
        by_name[hook["name"]].update(hook)


def kustomize_patches(docs, kustomization):
    folder = os.path.dirname(kustomization)
    for entry in yaml.safe_load(open(kustomization)).get("patches", []):
        text = entry.get("patch") or open(os.path.join(folder, entry["path"])).read()
        patch = yaml.safe_load(text)
        if isinstance(patch, list):
            name = entry["target"]["name"]
            json6902(next(d for d in docs if d["metadata"]["name"] == name), patch)
        else:
            name = patch["metadata"]["name"]
            merge_webhooks(next(d for d in docs if d["metadata"]["name"] == name), patch)


def webhook_configs(folder, prefix, port, ca_bundle):
    out = []
    docs = [d for d in yaml.safe_load_all(open(os.path.join(folder, "webhook", "manifests.yaml"))) if d]
    kustomize_patches(docs, os.path.join(folder, "webhook", "kustomization.yaml"))
    for doc in docs:
        doc["metadata"]["name"] = f"{prefix}-{doc['metadata']['name']}"
        for hook in doc.get("webhooks", []):
            service = hook["clientConfig"]["service"]
            hook["clientConfig"] = client_config(port, service.get("path", "/"), ca_bundle)
        out.append(doc)
    return out


def converted_resources(kustomization):
    # The uncommented "- path: patches/webhook_in_RESOURCE.yaml" lines.
    text = open(kustomization).read()
    return set(re.findall(r"^- path: patches/webhook_in_(\w+)\.yaml", text, re.M))


def crds(folder, port, ca_bundle, converted):
    out = []
    for path in sorted(glob.glob(os.path.join(folder, "*_*.yaml"))):
        doc = yaml.safe_load(open(path))
        if not doc or doc.get("kind") != "CustomResourceDefinition":
            continue
        if doc["spec"]["names"]["plural"] in converted:
            doc["spec"]["conversion"] = {
                "strategy": "Webhook",
                "webhook": {
                    "clientConfig": client_config(port, "/convert", ca_bundle),
                    "conversionReviewVersions": ["v1"],
                },
            }
        out.append(doc)
    return out


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    components, ca_file, jobset_port, kueue_port = sys.argv[1:]
    ca_bundle = base64.b64encode(open(ca_file, "rb").read()).decode()
    docs = crds(os.path.join(components, "jobset"), jobset_port, ca_bundle, set())
    kueue_converted = converted_resources(os.path.join(components, "kueue", "crd-kustomization.yaml"))
    docs += crds(os.path.join(components, "kueue"), kueue_port, ca_bundle, kueue_converted)
    docs += webhook_configs(os.path.join(components, "jobset"), "jobset", jobset_port, ca_bundle)
    docs += webhook_configs(os.path.join(components, "kueue"), "kueue", kueue_port, ca_bundle)
    yaml.safe_dump_all(docs, sys.stdout, sort_keys=False)


if __name__ == "__main__":
    main()
