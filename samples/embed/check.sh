#!/usr/bin/env bash
# Installs a built mlvm tree into a temporary prefix, then configures, builds and runs the
# embedding sample against that installed package (find_package(mlvm)), as a host would.
#   samples/embed/check.sh [BUILD_DIR]      # default: build (relative to the current directory)
# The build tree must be built already (cmake --build BUILD_DIR).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="$(cd "${1:-build}" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
# The installed tree is the public API alone: every header compiles on its own against the
# prefix, with no source or build directory on the include path.
for h in "$tmp/prefix/include/mlvm/"*.hpp; do
  echo "#include <mlvm/$(basename "$h")>" |
    c++ -std=c++20 -Wall -Wextra -Werror -fsyntax-only -I"$tmp/prefix/include" -x c++ -
done
echo "#include <mlvm/mlvm.h>" |
  cc -std=c99 -Wall -Wextra -pedantic -Werror -fsyntax-only -I"$tmp/prefix/include" -x c -
cmake -S "$here" -B "$tmp/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/build" -j2
"$tmp/build/embed"
