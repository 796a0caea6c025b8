#!/usr/bin/env python3
"""Every ONNX op docs/ops.md names as mapping to an mlvm op is one `mlvm-onnx --list-ops` lists:
the documentation cannot promise an import the importer does not have. A name counts as an
ONNX op when python3-onnx's schemas know it, or it is one of the ops of opsets 18-23 (newer
than the schemas of Debian's python3-onnx); a line that says the op is "not imported" is
exempt. Exit 0 when all are listed, 1 naming the others.

Usage: docs_ops_test.py MLVM_ONNX DOCS_OPS_MD
"""
import re
import subprocess
import sys

import onnx.defs

# Ops new in opsets 18-23 (onnx/onnx docs/Changelog.md), beyond python3-onnx 1.12's schemas.
NEWER = {"Gelu", "GroupNormalization", "Col2Im", "CenterCropPad", "AffineGrid", "DeformConv",
         "Attention", "RMSNormalization", "RotaryEmbedding", "ImageDecoder", "RegexFullMatch",
         "StringConcat", "StringSplit", "TensorScatter", "Swish"}


def main():
    mlvm_onnx, docs = sys.argv[1], sys.argv[2]
    listed = {line.split()[0] for line in subprocess.run([mlvm_onnx, "--list-ops"], capture_output=True,
                                                         text=True, check=True).stdout.splitlines() if line.strip()}
    known = {s.name for s in onnx.defs.get_all_schemas_with_history() if s.domain == ""} | NEWER
    claimed = {}
    for number, line in enumerate(open(docs, encoding="utf-8"), 1):
        if "not imported" in line:
            continue
        for name in re.findall(r"\b[A-Z][a-z]+[A-Za-z0-9]*\b", line):
            if name in known:
                claimed.setdefault(name, number)
    missing = sorted((n, l) for n, l in claimed.items() if n not in listed)
    print("docs/ops.md names %d ONNX ops; mlvm-onnx lists %d ops" % (len(claimed), len(listed)))
    for name, number in missing:
        print("docs/ops.md:%d: ONNX %s is not in mlvm-onnx --list-ops" % (number, name))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
