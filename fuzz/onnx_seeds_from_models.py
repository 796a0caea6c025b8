#!/usr/bin/env python3
"""Seeds for onnx_import_fuzzer from the real-model corpus (tests/onnx/real_models_test.py):
each cached model (scripts/fetch_models.sh's cache) with its weights taken out, so that the
graph a shipping application uses (Silero's If branches, PaddleOCR's and ISNet's convolution
stacks, openWakeWord's classifiers) is what the fuzzer mutates, in a few KB instead of MB.

Every initializer and Constant value of more than 64 elements, in the main graph or in any
subgraph, becomes an input of the main graph with its dtype and dims (a subgraph sees the outer
graph's values), so the importer still lowers every node with the shapes known; small ones
(shapes, axes, scales) stay constants. Seeds over --max-bytes are left out. The models are
third-party and stay in the cache: the seeds are made at fuzzing time, never committed.

Usage: onnx_seeds_from_models.py CACHE OUTDIR [--max-bytes N]
"""
import argparse
import os
import sys


def numel(t):
    n = 1
    for d in t.dims:
        n *= d
    return n


def strip_weights(model):
    from onnx import helper
    top = model.graph
    lifted = {i.name for i in top.input}

    def lift(name, t):
        if name not in lifted:
            lifted.add(name)
            top.input.append(helper.make_tensor_value_info(name, t.data_type, list(t.dims)))

    def walk(g):
        small = [t for t in g.initializer if numel(t) <= 64]
        for t in g.initializer:
            if numel(t) > 64:
                lift(t.name, t)
        del g.initializer[:]
        g.initializer.extend(small)
        nodes = []
        for n in g.node:
            value = [a.t for a in n.attribute if a.name == "value" and a.HasField("t")]
            if n.op_type == "Constant" and value and numel(value[0]) > 64:
                lift(n.output[0], value[0])
                continue
            for a in n.attribute:
                if a.HasField("g"):
                    walk(a.g)
                for sub in a.graphs:
                    walk(sub)
            n.doc_string = ""
            nodes.append(n)
        del g.node[:]
        g.node.extend(nodes)
        del g.value_info[:]

    walk(top)
    model.doc_string = ""
    return model


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cache")
    ap.add_argument("outdir")
    ap.add_argument("--max-bytes", type=int, default=65536)
    args = ap.parse_args()
    try:
        import onnx
    except ImportError:
        print("no python3-onnx: no seeds from the model cache", file=sys.stderr)
        return 0
    made = 0
    for root, _, files in os.walk(args.cache):
        for f in sorted(files):
            if not f.endswith(".onnx"):
                continue
            try:
                data = strip_weights(onnx.load(os.path.join(root, f))).SerializeToString()
            except Exception as e:  # a model this onnx cannot read is simply not a seed
                print("%s: %s" % (f, e), file=sys.stderr)
                continue
            if len(data) <= args.max_bytes:
                with open(os.path.join(args.outdir, "model_" + f), "wb") as out:
                    out.write(data)
                made += 1
    print("%d seeds from the model cache %s" % (made, args.cache))
    return 0


if __name__ == "__main__":
    sys.exit(main())
