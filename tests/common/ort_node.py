"""ONNX Runtime 1.30 as the tests' reference: npm onnxruntime-node under BUILD/bench-node (installed
there with `npm install` when missing), run by tests/onnx/real_models/ort_run.js. Shared by the
real-model corpus (tests/onnx/real_models_test.py) and the opset suite
(tests/onnx/opset_suite_test.py)."""
import json
import os
import shutil
import subprocess

ORT_VERSION = "1.30.0"
ORT_RUN_JS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "onnx", "real_models", "ort_run.js")


def ensure_ort(build, log=print):
    """(node, NODE_PATH) when onnxruntime-node ORT_VERSION can be had, else (None, why)."""
    node = shutil.which("node") or shutil.which("nodejs")
    if not node:
        return None, "node is not installed"
    node_dir = os.path.join(build, "bench-node")
    pkg = os.path.join(node_dir, "node_modules", "onnxruntime-node", "package.json")
    version = json.load(open(pkg)).get("version") if os.path.exists(pkg) else None
    if version != ORT_VERSION:
        npm = shutil.which("npm")
        if not npm:
            return None, "npm is not installed (onnxruntime-node %s needed)" % ORT_VERSION
        log("installing onnxruntime-node@%s into %s" % (ORT_VERSION, node_dir))
        os.makedirs(node_dir, exist_ok=True)
        env = dict(os.environ, ONNXRUNTIME_NODE_INSTALL="skip")
        r = subprocess.run([npm, "install", "--prefix", node_dir, "--no-audit", "--no-fund",
                            "onnxruntime-node@" + ORT_VERSION], env=env, capture_output=True, text=True)
        if r.returncode != 0:
            return None, "npm install onnxruntime-node@%s failed: %s" % (ORT_VERSION, r.stderr.strip()[-400:])
    return (node, os.path.join(node_dir, "node_modules")), None


def run_jobs(ort, jobs_file):
    """Runs ort_run.js on a jobs file (its format: ort_run.js's header); raises when node fails
    as a whole (a run ORT refuses only writes its outdir's error.txt)."""
    node, modules = ort
    r = subprocess.run([node, ORT_RUN_JS, jobs_file], env=dict(os.environ, NODE_PATH=modules),
                       capture_output=True, text=True)
    if r.returncode not in (0, 1):
        raise RuntimeError("ort_run.js failed: " + r.stderr[-2000:])
    return r
