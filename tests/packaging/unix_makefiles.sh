#!/bin/bash
# Packagers build with CMake's default generator: `cmake -S . -B b && cmake --build b` (Unix
# Makefiles), while `make build` uses Ninja. This configures the tree with Unix Makefiles and
# builds the target that once broke it (fixture_roots: 855 fixture paths hold a ':', which a
# Makefile rule cannot name: "target pattern contains no '%'"), then checks a second build is a
# no-op. Usage: unix_makefiles.sh SOURCE_DIR SCRATCH_DIR
set -uo pipefail
src=$1
scratch=$2
fail() { echo "FAIL: $*"; exit 1; }
command -v make >/dev/null || { echo "SKIP: make missing"; exit 77; }
rm -rf "$scratch"
cmake -S "$src" -B "$scratch" -G "Unix Makefiles" >"$scratch.log" 2>&1 || { cat "$scratch.log"; fail "configure"; }
cmake --build "$scratch" --target fixture_roots >>"$scratch.log" 2>&1 || { tail -20 "$scratch.log"; fail "build fixture_roots"; }
grep -q "Building fixture machine roots" "$scratch.log" || fail "the roots were not built"
[[ -s $scratch/roots/toolkits-repo-driver/etc/ld.so.cache ]] || fail "no ld.so.cache written in the toolkits-repo-driver root"
again=$(cmake --build "$scratch" --target fixture_roots 2>&1) || fail "second build: $again"
[[ $again != *"Building fixture machine roots"* ]] || fail "a second build rebuilt the unchanged roots"
rm -rf "$scratch" "$scratch.log"
echo "ok: Unix Makefiles configure and build fixture_roots"
