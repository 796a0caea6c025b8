#!/usr/bin/env bash
# The pip path end to end (ctest python.install_wheel, label install): builds a wheel from the
# source tree as `python3 -m build --wheel --no-isolation` does, installs it into a fresh venv
# and runs the ONNX digits sample from outside the tree, then checks `pip uninstall` removes
# every file. The CMake build is setup.py's build-pip/, which ccache fills from build/'s
# objects, so this costs a link and a wheel, not a compile of mlvm.
# Usage: install_from_wheel.sh PYTHON SOURCE_DIR. Exit 77 (skipped) without python3-build or
# python3-venv.
set -euo pipefail
python=${1:?PYTHON}
src=$(cd "${2:?SOURCE_DIR}" && pwd)
if ! "$python" -c "import build, venv, ensurepip, setuptools, wheel" 2>/dev/null; then
  echo "skipped: needs python3-build, python3-venv, python3-setuptools, python3-wheel" >&2
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$python" -m build --wheel --no-isolation --outdir "$work/dist" "$src" > "$work/build.log" 2>&1 || {
  tail -n 40 "$work/build.log" >&2
  exit 1
}
wheel=$(ls "$work"/dist/mlvm-*.whl)
echo "built $(basename "$wheel")"
# What the wheel must hold: the extension, the Python layer, the stubs, py.typed.
"$python" - "$wheel" <<'PY'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
for want in ("mlvm/__init__.py", "mlvm/__init__.pyi", "mlvm/py.typed"):
    assert want in names, (want, names)
assert any(n.startswith("mlvm/_mlvm.") and n.endswith(".so") for n in names), names
PY

# NumPy is Debian's: the venv sees the system's packages, or pip would download numpy.
"$python" -m venv --system-site-packages "$work/venv"
venv_py=$work/venv/bin/python
"$venv_py" -m pip install -q --no-index --no-build-isolation "$wheel"

cd "$work"  # outside the source tree: the installed package, not python/mlvm
"$venv_py" - "$src" <<'PY'
import os, sys
import numpy as np
import mlvm

src = sys.argv[1]
assert mlvm.__file__.startswith(sys.prefix), mlvm.__file__
prog = mlvm.load(os.path.join(src, "samples/onnx/digits_cnn.onnx"))
data = os.path.join(src, "samples/digits/data")
out = prog.run(images=np.load(os.path.join(data, "test_x.npy")),
               labels=np.load(os.path.join(data, "test_y.npy")))
print(f"mlvm {mlvm.__version__}: digits_cnn.onnx correct {int(out['correct'][0])} / 360, "
      f"accuracy {float(out['accuracy'][0]):.2f} %")
assert int(out["correct"][0]) == 357, out["correct"]
PY

# pip uninstall leaves nothing of the package behind.
site=$("$venv_py" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
"$venv_py" -m pip uninstall -q -y mlvm
left=$(ls -d "$site"/mlvm "$site"/mlvm-* 2>/dev/null || true)
if [[ -n "$left" ]]; then
  echo "pip uninstall left: $left" >&2
  exit 1
fi
echo "installed, ran and uninstalled"
