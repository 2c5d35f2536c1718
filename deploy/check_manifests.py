#!/usr/bin/env python3
"""Checks rendered Kubernetes manifests of chess-arbiter for the properties the
deployment relies on (deploy/README.md), so that a regression in deploy/
fails scripts/check-deploy. Schema validity is kubernetes-validate's job;
this checks what a schema cannot: security settings, probes, shutdown timing,
networking and that no real-looking secret is committed.

    check_manifests.py render  KIND FILE   # KIND: base, dev or production
    check_manifests.py example FILE        # the Secret template
    check_manifests.py self-test FILE      # FILE: rendered production; every
                                           # seeded regression must be caught

Exits non-zero naming every finding.
"""

from __future__ import annotations

import copy
import re
import sys
from typing import Any, Callable

import yaml

ARBITER = {"app.kubernetes.io/name": "chess-arbiter", "app.kubernetes.io/component": "server"}
GRPC_PORT = 50051
METRICS_PORT = 9090
DEFAULT_SHUTDOWN_GRACE = 10  # ARBITER_SHUTDOWN_GRACE_SECONDS when unset
SECRET_KEYS = ("ARBITER_ADMIN_TOKEN", "ARBITER_TOKEN_SECRET")
SECRETISH = re.compile(r"TOKEN|SECRET|PASSWORD|PASSWD|_KEY$", re.I)
PLACEHOLDER = re.compile(r"REPLACE-ME", re.I)
DEV_FAKE = re.compile(r"dev-only.*insecure|insecure.*dev-only", re.I)
DEV_LABEL = "chess-arbiter/dev-only"
WORKLOADS = ("Deployment", "StatefulSet", "DaemonSet", "Job", "CronJob")


class Findings:
    def __init__(self) -> None:
        self.items: list[str] = []

    def add(self, where: str, what: str) -> None:
        self.items.append(f"{where}: {what}")

    def require(self, ok: bool, where: str, what: str) -> None:
        if not ok:
            self.add(where, what)


def name_of(doc: dict) -> str:
    return f"{doc.get('kind')}/{doc.get('metadata', {}).get('name')}"


def dig(obj: Any, *path: Any, default: Any = None) -> Any:
    for key in path:
        if isinstance(obj, dict):
            obj = obj.get(key)
        elif isinstance(obj, list) and isinstance(key, int) and -len(obj) <= key < len(obj):
            obj = obj[key]
        else:
            return default
        if obj is None:
            return default
    return obj


def pod_spec(doc: dict) -> dict | None:
    if doc.get("kind") == "CronJob":
        return dig(doc, "spec", "jobTemplate", "spec", "template", "spec")
    if doc.get("kind") in WORKLOADS:
        return dig(doc, "spec", "template", "spec")
    if doc.get("kind") == "Pod":
        return doc.get("spec")
    return None


def selects(selector: dict | None, labels: dict) -> bool:
    """Whether a matchLabels selector (or a Service's plain selector) picks labels."""
    if not selector:
        return False
    match = selector.get("matchLabels", selector) if "matchExpressions" not in selector else None
    if match is None:
        return False
    return all(labels.get(k) == v for k, v in match.items())


# --- every workload -----------------------------------------------------------


def check_workload(doc: dict, f: Findings) -> None:
    where = name_of(doc)
    spec = pod_spec(doc)
    if spec is None:
        f.add(where, "no pod template")
        return
    f.require(spec.get("automountServiceAccountToken") is False, where,
              "pod must set automountServiceAccountToken: false")
    f.require(not spec.get("hostNetwork") and not spec.get("hostPID") and not spec.get("hostIPC"),
              where, "pod must not share the host's network, PID or IPC namespace")
    pod_sc = spec.get("securityContext") or {}
    f.require(dig(pod_sc, "seccompProfile", "type") == "RuntimeDefault", where,
              "pod securityContext.seccompProfile.type must be RuntimeDefault")
    containers = (spec.get("initContainers") or []) + (spec.get("containers") or [])
    f.require(bool(spec.get("containers")), where, "no containers")
    for c in containers:
        cw = f"{where} container {c.get('name')}"
        sc = c.get("securityContext") or {}
        non_root = sc.get("runAsNonRoot", pod_sc.get("runAsNonRoot"))
        f.require(non_root is True, cw, "runAsNonRoot must be true (pod or container)")
        uid = sc.get("runAsUser", pod_sc.get("runAsUser"))
        f.require(uid is None or (isinstance(uid, int) and uid > 0), cw,
                  f"runAsUser must be a non-zero uid, found {uid!r}")
        f.require(sc.get("readOnlyRootFilesystem") is True, cw, "readOnlyRootFilesystem must be true")
        f.require(sc.get("allowPrivilegeEscalation") is False, cw,
                  "allowPrivilegeEscalation must be false")
        f.require(not sc.get("privileged"), cw, "must not be privileged")
        drops = dig(sc, "capabilities", "drop", default=[])
        f.require("ALL" in drops, cw, "capabilities.drop must include ALL")
        f.require(not dig(sc, "capabilities", "add"), cw, "must add no capabilities")
        ctype = dig(sc, "seccompProfile", "type", default=dig(pod_sc, "seccompProfile", "type"))
        f.require(ctype == "RuntimeDefault", cw, "seccompProfile must be RuntimeDefault")
        for kind in ("requests", "limits"):
            for res in ("cpu", "memory"):
                f.require(dig(c, "resources", kind, res) is not None, cw,
                          f"resources.{kind}.{res} must be set")
        image = str(c.get("image", ""))
        tag = image.rsplit("/", 1)[-1]
        f.require(("@sha256:" in image) or (":" in tag and not tag.endswith(":latest")), cw,
                  f"image must be pinned by a tag other than latest, found {image!r}")
        for env in c.get("env") or []:
            if SECRETISH.search(env.get("name", "")) and "value" in env:
                f.add(cw, f"env {env['name']} holds a literal value: take it from a Secret")


# --- the arbiter ------------------------------------------------------------------


def env_value(container: dict, config_maps: dict[str, dict], key: str) -> str | None:
    """The value the container sees for key: env wins over envFrom, and among
    envFrom sources the later wins (only ConfigMaps are resolved here)."""
    for env in container.get("env") or []:
        if env.get("name") == key and "value" in env:
            return str(env["value"])
    value = None
    for source in container.get("envFrom") or []:
        ref = dig(source, "configMapRef", "name")
        if ref and ref in config_maps and key in (config_maps[ref].get("data") or {}):
            value = str(config_maps[ref]["data"][key])
    return value


def check_arbiter(doc: dict, docs: list[dict], kind: str, f: Findings) -> None:
    where = name_of(doc)
    spec = pod_spec(doc) or {}
    containers = spec.get("containers") or []
    c = next((c for c in containers if c.get("name") == "chess-arbiter"), None)
    if c is None:
        f.add(where, "no container named chess-arbiter")
        return
    config_maps = {d["metadata"]["name"]: d for d in docs if d.get("kind") == "ConfigMap"}
    secrets = {d["metadata"]["name"]: d for d in docs if d.get("kind") == "Secret"}

    min_replicas = 1 if kind == "dev" else 2
    f.require(int(dig(doc, "spec", "replicas", default=1)) >= min_replicas, where,
              f"at least {min_replicas} replica(s) in {kind}")

    ports = {p.get("containerPort"): p for p in c.get("ports") or []}
    f.require(dig(ports, GRPC_PORT, "name") == "grpc", where,
              f"container port {GRPC_PORT} must be named grpc")
    f.require(env_value(c, config_maps, "ARBITER_LISTEN") == f"0.0.0.0:{GRPC_PORT}", where,
              f"ARBITER_LISTEN must be 0.0.0.0:{GRPC_PORT} in a pod")
    f.require(env_value(c, config_maps, "ARBITER_LOG_FORMAT") == "json", where,
              "ARBITER_LOG_FORMAT must be json in the cluster")

    # Probes: native gRPC on the health service names.
    for probe, service, required in (("livenessProbe", "liveness", True),
                                     ("readinessProbe", "readiness", True),
                                     ("startupProbe", "liveness", False)):
        p = c.get(probe)
        if p is None:
            f.require(not required, where, f"{probe} is missing")
            continue
        f.require(dig(p, "grpc", "port") == GRPC_PORT and dig(p, "grpc", "service") == service,
                  where, f"{probe} must be grpc on port {GRPC_PORT}, service {service!r}")

    # Shutdown: preStop sleep, then SIGTERM and the server's grace, inside the
    # termination grace period.
    sleep = dig(c, "lifecycle", "preStop", "sleep", "seconds")
    f.require(isinstance(sleep, int) and sleep > 0, where,
              "lifecycle.preStop.sleep.seconds must be set (no shell in the image)")
    grace_raw = env_value(c, config_maps, "ARBITER_SHUTDOWN_GRACE_SECONDS")
    grace = int(grace_raw) if grace_raw is not None else DEFAULT_SHUTDOWN_GRACE
    tgps = int(spec.get("terminationGracePeriodSeconds", 30))
    f.require(tgps > (sleep or 0) + grace, where,
              f"terminationGracePeriodSeconds ({tgps}) must exceed preStop sleep ({sleep}) "
              f"+ ARBITER_SHUTDOWN_GRACE_SECONDS ({grace})")

    f.require(bool(spec.get("topologySpreadConstraints")), where,
              "topologySpreadConstraints must spread the replicas")

    # Configuration sources: the ConfigMap exists; the Secret is referenced and,
    # outside dev, not rendered (it is created out of band).
    refs = c.get("envFrom") or []
    cm_refs = [dig(r, "configMapRef", "name") for r in refs if "configMapRef" in r]
    sec_refs = [dig(r, "secretRef", "name") for r in refs if "secretRef" in r]
    f.require(bool(cm_refs) and all(n in config_maps for n in cm_refs), where,
              "envFrom must name a ConfigMap that the manifests define")
    f.require(bool(sec_refs), where, "envFrom must name the Secret with the tokens")
    for n in sec_refs:
        if kind == "dev":
            f.require(n in secrets, where, f"dev Secret {n} is not rendered")
        else:
            f.require(n not in secrets, where, f"Secret {n} must be created out of band in {kind}")
    for n in cm_refs:
        data = (config_maps.get(n) or {}).get("data") or {}
        for key in data:
            f.require(not (SECRETISH.search(key) and key != "ARBITER_REDIS_TLS_KEY_FILE"),
                      f"ConfigMap/{n}", f"{key} looks secret: it belongs in a Secret")
        url = data.get("ARBITER_REDIS_URL", "")
        f.require(not re.search(r"://[^/@]*:[^/@]*@", url), f"ConfigMap/{n}",
                  "ARBITER_REDIS_URL carries a password: put it in the Secret")

    if kind == "production":
        url = env_value(c, config_maps, "ARBITER_REDIS_URL") or ""
        f.require(url.startswith(("rediss://", "rediss+cluster://")), where,
                  "production must reach Redis over TLS (rediss:// or rediss+cluster://)")
        wait = env_value(c, config_maps, "ARBITER_REDIS_WAIT_REPLICAS")
        f.require(wait is not None and wait.isdigit() and int(wait) >= 1, where,
                  "production must set ARBITER_REDIS_WAIT_REPLICAS >= 1")
        ca = env_value(c, config_maps, "ARBITER_REDIS_TLS_CA_FILE") or ""
        secret_volumes = {v["name"] for v in spec.get("volumes") or [] if "secret" in v}
        mounted = any(
            m.get("name") in secret_volumes and ca.startswith(m.get("mountPath", "").rstrip("/") + "/")
            for m in c.get("volumeMounts") or []
        )
        f.require(bool(ca) and mounted, where,
                  "ARBITER_REDIS_TLS_CA_FILE must lie in a volume mounted from a Secret")
    if kind == "dev":
        url = env_value(c, config_maps, "ARBITER_REDIS_URL") or ""
        f.require(url.startswith("redis://"), where, "dev must point at its Redis")


def pod_labels(doc: dict) -> dict:
    return dig(doc, "spec", "template", "metadata", "labels", default={})


def check_arbiter_peers(arbiter: dict, docs: list[dict], kind: str, f: Findings) -> None:
    labels = pod_labels(arbiter)
    services = [d for d in docs if d.get("kind") == "Service" and selects(dig(d, "spec", "selector"), labels)]
    grpc_ok = [
        s for s in services
        if any(p.get("name") == "grpc" and p.get("port") == GRPC_PORT and p.get("appProtocol") == "grpc"
               and p.get("targetPort") in ("grpc", GRPC_PORT) for p in dig(s, "spec", "ports", default=[]))
    ]
    f.require(any(dig(s, "spec", "clusterIP") != "None" for s in grpc_ok), "Service",
              "a cluster-IP Service must expose port grpc (50051, appProtocol grpc)")
    f.require(any(dig(s, "spec", "clusterIP") == "None" for s in grpc_ok), "Service",
              "a headless Service (clusterIP: None) must expose port grpc for client-side balancing")

    pdbs = [d for d in docs if d.get("kind") == "PodDisruptionBudget" and selects(dig(d, "spec", "selector"), labels)]
    f.require(len(pdbs) == 1, "PodDisruptionBudget", "exactly one must select the arbiter's pods")

    hpas = [d for d in docs if d.get("kind") == "HorizontalPodAutoscaler"
            and dig(d, "spec", "scaleTargetRef", "name") == arbiter["metadata"]["name"]]
    if kind == "dev":
        f.require(not hpas, "HorizontalPodAutoscaler", "dev runs one replica without autoscaling")
    else:
        f.require(len(hpas) == 1, "HorizontalPodAutoscaler", "exactly one must scale the arbiter")
        for h in hpas:
            f.require(h.get("apiVersion") == "autoscaling/v2", name_of(h), "must be autoscaling/v2")
            f.require(any(dig(m, "resource", "name") == "cpu" for m in dig(h, "spec", "metrics", default=[])),
                      name_of(h), "must scale on CPU")
            f.require(int(dig(h, "spec", "minReplicas", default=1)) >= 2, name_of(h),
                      "minReplicas must be at least 2")

    sa_name = dig(arbiter, "spec", "template", "spec", "serviceAccountName")
    sas = [d for d in docs if d.get("kind") == "ServiceAccount" and d["metadata"]["name"] == sa_name]
    f.require(len(sas) == 1 and sas[0].get("automountServiceAccountToken") is False, "ServiceAccount",
              f"the arbiter's own ServiceAccount ({sa_name}) must exist with automountServiceAccountToken: false")

    check_network_policy(labels, docs, f)


def port_numbers(rule: dict) -> set[Any]:
    return {(p.get("port"), p.get("protocol", "TCP")) for p in rule.get("ports") or []}


def check_network_policy(labels: dict, docs: list[dict], f: Findings) -> None:
    nps = [d for d in docs if d.get("kind") == "NetworkPolicy" and selects(dig(d, "spec", "podSelector"), labels)]
    if len(nps) != 1:
        f.add("NetworkPolicy", f"exactly one must select the arbiter's pods, found {len(nps)}")
        return
    np = nps[0]
    where = name_of(np)
    types = set(dig(np, "spec", "policyTypes", default=[]))
    f.require(types == {"Ingress", "Egress"}, where, "policyTypes must be Ingress and Egress")
    ingress = dig(np, "spec", "ingress", default=[])
    f.require(bool(ingress), where, "must admit the labelled clients")
    grpc_rules = 0
    for i, rule in enumerate(ingress):
        f.require(bool(rule.get("from")), where, f"ingress rule {i} admits every source: name the clients")
        ports = port_numbers(rule)
        if ports in ({("metrics", "TCP")}, {(METRICS_PORT, "TCP")}):
            # Prometheus: from the namespace it runs in, the metrics port only.
            for peer in rule.get("from") or []:
                f.require(bool(dig(peer, "namespaceSelector", "matchLabels")), where,
                          f"ingress rule {i} must admit Prometheus's namespace only")
            continue
        grpc_rules += 1
        for peer in rule.get("from") or []:
            f.require("podSelector" in peer and bool(dig(peer, "podSelector", "matchLabels")), where,
                      f"ingress rule {i} must admit labelled pods only")
        f.require(ports == {("grpc", "TCP")} or ports == {(GRPC_PORT, "TCP")},
                  where, f"ingress rule {i} must admit the gRPC port only (a metrics port is a rule of its own)")
    f.require(grpc_rules >= 1, where, "must admit the labelled clients on the gRPC port")
    egress = dig(np, "spec", "egress", default=[])
    allowed = set().union(*(port_numbers(r) for r in egress)) if egress else set()
    f.require({(53, "UDP"), (53, "TCP")} <= allowed, where, "egress must allow DNS (53/UDP and 53/TCP)")
    f.require(any(p in allowed for p in ((6379, "TCP"), (6380, "TCP"), (26379, "TCP"))), where,
              "egress must allow Redis")
    for i, rule in enumerate(egress):
        f.require(bool(rule.get("to")) and bool(rule.get("ports")), where,
                  f"egress rule {i} must name both its destinations and its ports")


# --- secrets ------------------------------------------------------------------------


def secret_values(doc: dict) -> dict[str, str]:
    import base64

    values = {k: str(v) for k, v in (doc.get("stringData") or {}).items()}
    for k, v in (doc.get("data") or {}).items():
        try:
            values[k] = base64.b64decode(v).decode("utf-8", "replace")
        except Exception:  # noqa: BLE001 - undecodable data is still data
            values[k] = str(v)
    return values


def check_secrets(docs: list[dict], kind: str, f: Findings) -> None:
    for doc in docs:
        if doc.get("kind") != "Secret":
            continue
        where = name_of(doc)
        if kind != "dev":
            f.add(where, f"no Secret may be rendered in {kind}: create it out of band")
            continue
        f.require(dig(doc, "metadata", "labels", DEV_LABEL) == "true", where,
                  f"a dev Secret must be labelled {DEV_LABEL}: \"true\"")
        for key, value in secret_values(doc).items():
            f.require(bool(DEV_FAKE.search(value)), where,
                      f"{key} must be an obviously fake dev value (containing dev-only and insecure)")


def check_render(kind: str, docs: list[dict]) -> Findings:
    f = Findings()
    for doc in docs:
        if pod_spec(doc) is not None:
            check_workload(doc, f)
    arbiters = [d for d in docs if d.get("kind") == "Deployment"
                and all(pod_labels(d).get(k) == v for k, v in ARBITER.items())]
    if len(arbiters) != 1:
        f.add("Deployment", f"exactly one arbiter Deployment expected, found {len(arbiters)}")
    for a in arbiters:
        check_arbiter(a, docs, kind, f)
        check_arbiter_peers(a, docs, kind, f)
    check_secrets(docs, kind, f)
    if kind == "dev":
        check_dev_redis(docs, f)
    return f


def check_dev_redis(docs: list[dict], f: Findings) -> None:
    conf = "\n".join(
        str(v) for d in docs if d.get("kind") == "ConfigMap" for k, v in (d.get("data") or {}).items()
        if k == "redis.conf"
    )
    settings = {}
    for line in conf.splitlines():
        parts = line.split(None, 1)
        if parts and not parts[0].startswith("#"):
            settings[parts[0].lower()] = parts[1].strip() if len(parts) > 1 else ""
    for key, want in (("appendonly", "yes"), ("appendfsync", "everysec"), ("maxmemory-policy", "noeviction")):
        f.require(settings.get(key) == want, "dev Redis", f"redis.conf must set {key} {want}")
    stateful = [d for d in docs if d.get("kind") == "StatefulSet" and pod_labels(d).get("app.kubernetes.io/name") == "redis"]
    f.require(len(stateful) == 1 and bool(dig(stateful[0], "spec", "volumeClaimTemplates")), "dev Redis",
              "one Redis StatefulSet with a persistent volume claim")


def check_example(path: str) -> Findings:
    f = Findings()
    with open(path, encoding="utf-8") as fh:
        docs = [d for d in yaml.safe_load_all(fh) if d]
    f.require(len(docs) == 1 and docs[0].get("kind") == "Secret", path, "must hold one Secret")
    for doc in docs:
        values = secret_values(doc)
        for key in SECRET_KEYS:
            f.require(key in values, path, f"must show the key {key}")
        for key, value in values.items():
            f.require(bool(PLACEHOLDER.search(value)), path,
                      f"{key} must stay a placeholder (containing REPLACE-ME), not a real value")
    return f


# --- self-test: seeded regressions must be caught ---------------------------------------


def arbiter_container(docs: list[dict]) -> dict:
    for d in docs:
        if d.get("kind") == "Deployment":
            return d["spec"]["template"]["spec"]["containers"][0]
    raise SystemExit("self-test: no Deployment in the rendered file")


def arbiter_spec(docs: list[dict]) -> dict:
    return next(d for d in docs if d.get("kind") == "Deployment")["spec"]["template"]["spec"]


def kind_docs(docs: list[dict], kind: str) -> list[dict]:
    return [d for d in docs if d.get("kind") == kind]


def config_data(docs: list[dict]) -> dict:
    return next(d for d in docs if d.get("kind") == "ConfigMap" and "ARBITER_LISTEN" in (d.get("data") or {}))["data"]


MUTATIONS: list[tuple[str, Callable[[list[dict]], None]]] = [
    ("writable root filesystem", lambda d: arbiter_container(d)["securityContext"].update(readOnlyRootFilesystem=False)),
    ("root user", lambda d: arbiter_spec(d)["securityContext"].update(runAsUser=0)),
    ("runAsNonRoot dropped", lambda d: (arbiter_spec(d)["securityContext"].pop("runAsNonRoot"),
                                        arbiter_container(d)["securityContext"].pop("runAsNonRoot"))),
    ("privilege escalation", lambda d: arbiter_container(d)["securityContext"].update(allowPrivilegeEscalation=True)),
    ("capabilities kept", lambda d: arbiter_container(d)["securityContext"]["capabilities"].update(drop=[])),
    ("no seccomp", lambda d: (arbiter_spec(d)["securityContext"].pop("seccompProfile"))),
    ("token automounted", lambda d: arbiter_spec(d).update(automountServiceAccountToken=True)),
    ("readiness on liveness", lambda d: arbiter_container(d)["readinessProbe"]["grpc"].update(service="liveness")),
    ("http liveness probe", lambda d: arbiter_container(d).update(livenessProbe={"httpGet": {"port": 8080, "path": "/"}})),
    ("no preStop", lambda d: arbiter_container(d).pop("lifecycle")),
    ("grace too short", lambda d: arbiter_spec(d).update(terminationGracePeriodSeconds=12)),
    ("shutdown grace too long", lambda d: config_data(d).update(ARBITER_SHUTDOWN_GRACE_SECONDS="60")),
    ("text logs", lambda d: config_data(d).update(ARBITER_LOG_FORMAT="text")),
    ("loopback listen", lambda d: config_data(d).update(ARBITER_LISTEN="127.0.0.1:50051")),
    ("no limits", lambda d: arbiter_container(d)["resources"].pop("limits")),
    ("latest image", lambda d: arbiter_container(d).update(image="registry.example.com/chess-arbiter:latest")),
    ("no spread", lambda d: arbiter_spec(d).pop("topologySpreadConstraints")),
    ("one replica", lambda d: next(x for x in d if x.get("kind") == "Deployment")["spec"].update(replicas=1)),
    ("plain redis", lambda d: config_data(d).update(ARBITER_REDIS_URL="redis://redis.example.com:6379/0")),
    ("no WAIT", lambda d: config_data(d).pop("ARBITER_REDIS_WAIT_REPLICAS")),
    ("password in ConfigMap", lambda d: config_data(d).update(
        ARBITER_REDIS_URL="rediss://arbiter:hunter2@redis.example.com:6380/0")),
    ("token in ConfigMap", lambda d: config_data(d).update(ARBITER_ADMIN_TOKEN="x")),
    ("literal token env", lambda d: arbiter_container(d).setdefault("env", []).append(
        {"name": "ARBITER_TOKEN_SECRET", "value": "s3cr3t-s3cr3t-s3cr3t-s3cr3t-s3cr3t"})),
    ("secret rendered", lambda d: d.append({"apiVersion": "v1", "kind": "Secret",
                                             "metadata": {"name": "chess-arbiter-secrets"},
                                             "stringData": {"ARBITER_ADMIN_TOKEN": "Zx8v-real-looking"}})),
    ("no headless service", lambda d: [s["spec"].pop("clusterIP", None) for s in kind_docs(d, "Service")]),
    ("no appProtocol", lambda d: [p.pop("appProtocol", None) for s in kind_docs(d, "Service") for p in s["spec"]["ports"]]),
    ("no PDB", lambda d: d.remove(kind_docs(d, "PodDisruptionBudget")[0])),
    ("no HPA", lambda d: d.remove(kind_docs(d, "HorizontalPodAutoscaler")[0])),
    ("open ingress", lambda d: kind_docs(d, "NetworkPolicy")[0]["spec"]["ingress"][0].pop("from")),
    ("ingress on every port", lambda d: kind_docs(d, "NetworkPolicy")[0]["spec"]["ingress"][0].pop("ports")),
    ("no DNS egress", lambda d: kind_docs(d, "NetworkPolicy")[0]["spec"]["egress"].pop(0)),
    ("ingress only policy", lambda d: kind_docs(d, "NetworkPolicy")[0]["spec"].update(policyTypes=["Ingress"])),
]


def self_test(path: str) -> int:
    docs = load(path)
    base = check_render("production", docs)
    if base.items:
        print("check_manifests: self-test needs a clean production render; findings:", *base.items, sep="\n  ")
        return 1
    missed = []
    for label, mutate in MUTATIONS:
        mutated = copy.deepcopy(docs)
        mutate(mutated)
        if not check_render("production", mutated).items:
            missed.append(label)
    if missed:
        print("check_manifests: self-test: these seeded regressions went unnoticed:", *missed, sep="\n  ")
        return 1
    print(f"check_manifests: self-test: all {len(MUTATIONS)} seeded regressions caught")
    return 0


def load(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return [d for d in yaml.safe_load_all(fh) if d]


def report(label: str, f: Findings) -> int:
    if f.items:
        print(f"check_manifests: {label}: {len(f.items)} finding(s):", *f.items, sep="\n  ", file=sys.stderr)
        return 1
    print(f"check_manifests: {label}: ok")
    return 0


def main(argv: list[str]) -> int:
    if len(argv) == 3 and argv[0] == "render" and argv[1] in ("base", "dev", "production"):
        return report(f"{argv[1]} ({argv[2]})", check_render(argv[1], load(argv[2])))
    if len(argv) == 2 and argv[0] == "example":
        return report(argv[1], check_example(argv[1]))
    if len(argv) == 2 and argv[0] == "self-test":
        return self_test(argv[1])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
