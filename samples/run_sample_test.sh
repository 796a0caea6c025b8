#!/usr/bin/env bash
# Runs one sample program through the real tools and checks its outputs (used by ctest; needs
# no Python).
#
#   run_sample_test.sh --run MLVM_RUN --compare NPY_COMPARE [--asm MLVM_ASM [--asm-flag F]...]
#                      [--onnx MLVM_ONNX] [--input NAME=FILE ...]
#                      PROGRAM(.mlasm|.onnx) NAME=EXPECTED.npy[@TOLERANCE] ...
#
# 1. `mlvm-run PROGRAM.mlasm` alone (the README's command) must succeed and print every
#    checked output's name.
# 2. `mlvm-run PROGRAM.mlasm --output NAME=tmp/NAME.npy ...`; each file must match its
#    expected .npy (npy_compare: same dtype and shape, integers exact, floats within TOLERANCE).
# 3. With --asm: `mlvm-asm PROGRAM.mlasm -o tmp/p.mlbc [flags]`, then the .mlbc must give the
#    same results as in 2 (the bytecode path, and e.g. --strict-precision).
# 4. With --onnx (an .onnx PROGRAM): `mlvm-onnx PROGRAM -o tmp/m.mlbc`, then the module must
#    give the same results as in 2.
# --input bindings are passed to every mlvm-run.
set -u

run="" compare="" asm="" onnx="" asm_flags=() inputs=()
while [[ $# -gt 0 && $1 == --* ]]; do
  case $1 in
    --run) run=$2; shift 2 ;;
    --compare) compare=$2; shift 2 ;;
    --asm) asm=$2; shift 2 ;;
    --asm-flag) asm_flags+=("$2"); shift 2 ;;
    --onnx) onnx=$2; shift 2 ;;
    --input) inputs+=(--input "$2"); shift 2 ;;
    *) echo "run_sample_test.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
if [[ -z $run || -z $compare || $# -lt 2 ]]; then
  echo "usage: run_sample_test.sh --run MLVM_RUN --compare NPY_COMPARE [--asm MLVM_ASM" \
       "[--asm-flag F]...] PROGRAM NAME=EXPECTED.npy[@TOL]..." >&2
  exit 2
fi
program=$1
shift
checks=("$@")

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mlvm-sample.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
failed=0

# 1. the plain command prints every output
echo "== $run $program"
"$run" "$program" "${inputs[@]}" >"$tmp/printed.txt" 2>&1
status=$?
if [[ $status -ne 0 ]]; then
  cat "$tmp/printed.txt"
  echo "FAIL: '$run $program' exited with status $status"
  exit 1
fi
head -c 4000 "$tmp/printed.txt"
for check in "${checks[@]}"; do
  name=${check%%=*}
  if ! grep -q -w -- "$name" "$tmp/printed.txt"; then
    echo "FAIL: the printed outputs do not mention '$name'"
    failed=1
  fi
done

# 2./3. write the outputs to files and compare them
run_and_compare() {  # $1 = module or program to run, $2 = label
  local target=$1 label=$2 outputs=() check name rest expected tol
  mkdir -p "$tmp/$label"
  for check in "${checks[@]}"; do
    outputs+=(--output "${check%%=*}=$tmp/$label/${check%%=*}.npy")
  done
  echo "== $run $target ${outputs[*]}"
  if ! "$run" "$target" "${inputs[@]}" "${outputs[@]}"; then
    echo "FAIL ($label): mlvm-run exited with an error"
    failed=1
    return
  fi
  for check in "${checks[@]}"; do
    name=${check%%=*}
    rest=${check#*=}
    expected=${rest%@*}
    tol=0
    [[ $rest == *@* ]] && tol=${rest##*@}
    if ! "$compare" "$tmp/$label/$name.npy" "$expected" "$tol"; then
      echo "FAIL ($label): output '$name' differs from $expected"
      failed=1
    fi
  done
}

run_and_compare "$program" text
if [[ -n $onnx ]]; then
  echo "== $onnx $program -o $tmp/model.mlbc"
  if "$onnx" "$program" -o "$tmp/model.mlbc"; then
    run_and_compare "$tmp/model.mlbc" imported
  else
    echo "FAIL: mlvm-onnx rejected $program"
    failed=1
  fi
fi
if [[ -n $asm ]]; then
  echo "== $asm $program -o $tmp/program.mlbc ${asm_flags[*]}"
  if "$asm" "$program" -o "$tmp/program.mlbc" "${asm_flags[@]}"; then
    run_and_compare "$tmp/program.mlbc" bytecode
  else
    echo "FAIL: mlvm-asm rejected $program"
    failed=1
  fi
fi

if [[ $failed -ne 0 ]]; then
  echo "FAILED: $program"
  exit 1
fi
echo "PASSED: $program"
