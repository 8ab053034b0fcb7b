#!/usr/bin/env bash
# Installs what is missing, then builds what is stale. Cheap when nothing is.
#   scripts/setup.sh wasm      # Debian packages, npm ci, the two wasm builds (npm start, npm run build)
#   scripts/setup.sh browser   # ... plus headless Chromium (npm run docs, export, soak)
#   scripts/setup.sh all       # ... plus the native builds and every test's tools (npm test)
set -euo pipefail
cd "$(dirname "$0")/.."
what="${1:-all}"
jobs=2

# --- Debian packages ---------------------------------------------------------
# By need (scripts/needs.json, the one table of what each command installs; the README's setup table is
# generated from it): wasm (npm start, build, model) < browser (docs, export, soak) < all (npm test, bench,
# fuzz, train). Each need includes the ones before it, so `npm start` never pays for the test suite's browsers
# or PyTorch.
case $what in wasm|browser|all) ;; *) echo "usage: scripts/setup.sh wasm|browser|all" >&2; exit 2 ;; esac
mapfile -t packages < <(node -e '
  const { needs } = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  const upTo = needs.findIndex((n) => n.id === process.argv[2]);
  for (const n of needs.slice(0, upTo + 1)) for (const p of n.debian) console.log(p);' scripts/needs.json "$what")
((${#packages[@]})) || { echo "posenc: could not read scripts/needs.json" >&2; exit 1; }
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  if [[ $(id -u) -ne 0 ]]; then
    echo "posenc: missing Debian packages: ${missing[*]}" >&2
    echo "Run this as root, then try again:" >&2
    echo "  apt-get update && apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  echo "posenc: installing ${missing[*]} ..."
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# --- npm packages (from the committed lock file) -----------------------------
# (Not through a symlinked node_modules, as a second worktree may have: npm ci would empty the one it points to.)
if [[ -L node_modules ]]; then
  [[ -f node_modules/.package-lock.json ]] || { echo "posenc: node_modules links to a folder without an npm install" >&2; exit 1; }
elif [[ ! -f node_modules/.package-lock.json || package-lock.json -nt node_modules/.package-lock.json ]]; then
  echo "posenc: npm ci ..."
  npm ci --no-audit --no-fund --loglevel=error
fi

# --- builds ------------------------------------------------------------------
# Emscripten 3.1.6 needs acorn from Debian's node path for -O2+ links.
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}

# ccache, where installed (it is in the package list): a build from a clean clone on a machine that built the same
# sources before compiles nothing again. The cache lives outside the tree (~/.cache/ccache).
# Paths are hashed relative to the checkout (CCACHE_BASEDIR), and the debug build's working directory is left out
# (CCACHE_NOHASHDIR), so another clone in another folder hits the same entries: a warm cache leaves only the links.
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=1
fi

# Builds $1 and prints what is not progress; the build's own exit status decides, not the filter's (a failed build
# once passed here with its old modules kept, and under pipefail `| grep ... || true` reset PIPESTATUS to 0 after a
# failed native link, so npm test ran the old binaries). $2 names the build in the one-line failure.
cmake_build() {
  local log status=0
  log=$(mktemp)
  cmake --build "$1" -j"$jobs" >"$log" 2>&1 || status=$?
  grep -vE '^\[ *[0-9]+%\] (Building|Linking)|^Consolidate|^\[[0-9 ]+%\] Built' "$log" || true
  rm -f "$log"
  if ((status)); then
    echo "posenc: $2 failed (exit $status)" >&2
    return 1
  fi
}

wasm_build() {  # $1 = simd | scalar
  local dir="build/wasm-$1" flag=ON
  [[ $1 == scalar ]] && flag=OFF
  if [[ ! -f $dir/CMakeCache.txt ]]; then
    emcmake cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DPOSENC_SIMD=$flag "${launcher[@]}" \
      -DCMAKE_CROSSCOMPILING_EMULATOR=/usr/bin/node >/dev/null
  fi
  cmake_build "$dir" "the $1 wasm build"
}

# the d3 parts the pages import, bundled (the pages use no import map, for a strict CSP)
node scripts/build-dist.js vendor

wasm_build simd
wasm_build scalar
mkdir -p web/wasm
for v in simd scalar; do
  for name in "posenc-$v" "posenc-lm-$v"; do  # the page's module, and the language models' (loaded on demand)
    for ext in mjs wasm; do
      cmp -s "build/wasm-$v/$name.$ext" "web/wasm/$name.$ext" || cp "build/wasm-$v/$name.$ext" web/wasm/
    done
  done
done
# the language models' module on threads (Node, and cross-origin isolated pages), and its Workers' script
for f in posenc-lm-simd-mt.mjs posenc-lm-simd-mt.wasm posenc-lm-simd-mt.worker.js; do
  cmp -s "build/wasm-simd/$f" "web/wasm/$f" || cp "build/wasm-simd/$f" web/wasm/
done
# the encoding registry and config schema, read from the module (web/wasm/registry.js). The committed texts that
# restate the tables (the declarations, the README's lists) are a developer's `npm run generate`, not every setup's:
# serving reads neither, and their tests fail when they drift.
node scripts/registry.js
node scripts/passage.js

# dist/: the npm package, the embed and standalone pages (Vite)
node scripts/build-dist.js

native_build() {  # $1 = build dir, then its configure options (first build only)
  local dir=$1
  shift
  if [[ ! -f $dir/CMakeCache.txt ]]; then
    cmake -S . -B "$dir" "${launcher[@]}" "$@" >/dev/null
  fi
  cmake_build "$dir" "the build in $dir"
}

if [[ $what == all ]]; then
  native_build build/native -DCMAKE_BUILD_TYPE=Release
  # The hardening build (cmake/sanitize.cmake): the GoogleTest suite under ASan+UBSan and
  # the libFuzzer targets; clang only. Debug + the module's -O1 keeps assertions on.
  CC=clang-14 CXX=clang++-14 native_build build/asan -DCMAKE_BUILD_TYPE=Debug -DPOSENC_SANITIZE=ON -DPOSENC_FUZZ=ON
fi
