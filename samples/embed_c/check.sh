#!/usr/bin/env bash
# Installs a built mlvm tree into a temporary prefix, then builds and runs the C embedding
# sample against that installed package twice, as C hosts would: with CMake
# (find_package(mlvm), mlvm::mlvm) and with pkg-config (`pkg-config --cflags --libs mlvm`).
#   samples/embed_c/check.sh [BUILD_DIR]      # default: build (relative to the current directory)
# The build tree must be built already (cmake --build BUILD_DIR).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="$(cd "${1:-build}" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
# The C header alone, as strict C99.
echo "#include <mlvm/mlvm.h>" |
  cc -std=c99 -Wall -Wextra -pedantic -Werror -fsyntax-only -I"$tmp/prefix/include" -x c -

echo "-- CMake: find_package(mlvm)"
cmake -S "$here" -B "$tmp/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/build" -j2
"$tmp/build/embed_c"

echo "-- pkg-config: mlvm.pc"
pcdir="$(dirname "$(find "$tmp/prefix" -name mlvm.pc | head -n1)")"
flags="$(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs mlvm)"
libdir="$(PKG_CONFIG_PATH="$pcdir" pkg-config --variable=libdir mlvm)"
# shellcheck disable=SC2086  # the flags are words
cc -std=c99 -Wall -Werror "$here/main.c" -o "$tmp/embed_c_pc" $flags -Wl,-rpath,"$libdir"
"$tmp/embed_c_pc"
