#!/bin/sh
# The tree's two linters, with the configurations checked in at the top (.clang-format,
# .clang-tidy), both clang 14. Exit 1 when either finds something; it prints what.
#   scripts/lint.sh format                clang-format: every C/C++ file we wrote is formatted
#   scripts/lint.sh format --fix          … and rewrite the ones that are not
#   scripts/lint.sh tidy [BUILD [REGEX]]  clang-tidy over BUILD/compile_commands.json (default:
#                                         build); only the units whose path matches REGEX if given
#   scripts/lint.sh                       both, the whole tree
# clang-tidy reads the unity translation units the build compiles (16 sources each), so the
# heavy headers are parsed ~20 times, not ~260: the whole tree takes ~7 CPU-minutes, not an hour.
# CI runs `tidy build cudoctor_formats` (the parsers of outside input, ~25 CPU-seconds).
set -eu
cd "$(dirname "$0")/.."
FORMAT=${CLANG_FORMAT:-clang-format-14}
TIDY=${CLANG_TIDY:-clang-tidy-14}

# What we wrote: src/, tests/ (the fixture machines' copies of NVIDIA headers excepted), fuzz/.
sources() {
    git ls-files 'src/*.cpp' 'src/*.hpp' 'src/*.h' 'src/*.c' 'tests/*.cpp' 'tests/*.hpp' 'tests/*.h' 'tests/*.c' \
        'fuzz/*.cpp' | grep -v '^tests/fixtures/'
}

lint_format() {
    if [ "${1:-}" = --fix ]; then
        sources | xargs "$FORMAT" -i
        return 0
    fi
    # --dry-run -Werror prints each misformatted spot as a warning and fails.
    sources | xargs "$FORMAT" --dry-run -Werror
    echo "lint: clang-format: clean ($(sources | wc -l) files)"
}

# The C++ translation units of a compile database (unity units where the build makes them),
# without the generated tables, those whose path matches $2.
units() {
    python3 -c '
import json, re, sys
for e in json.load(open(sys.argv[1])):
    f = e["file"]
    if f.endswith((".cpp", ".cxx")) and "/generated/" not in f and re.search(sys.argv[2], f):
        print(f)' "$1" "$2"
}

lint_tidy() {
    build=${1:-build}
    pattern=${2:-.}
    [ -f "$build/compile_commands.json" ] || { echo "lint: no $build/compile_commands.json (build first)" >&2; exit 2; }
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    units "$build/compile_commands.json" "$pattern" >"$work/units"
    [ -s "$work/units" ] || { echo "lint: no translation unit in $build matches '$pattern'" >&2; exit 2; }
    root=$(pwd)
    # clang 14 spells C++23 as c++2b. Findings in the .cpp files a unity unit includes pass the
    # header filter; a unity unit including .cpp files is itself no finding.
    # Every finding is an error, so a unit with one (or a clang-tidy that crashed) exits non-zero.
    command -v "$TIDY" >/dev/null || { echo "lint: $TIDY not found (scripts/deps.sh lint)" >&2; exit 2; }
    rc=0
    xargs -P "$(nproc)" -n 1 "$TIDY" -p "$build" --quiet --warnings-as-errors='*' --extra-arg=-std=c++2b \
        --extra-arg=-Wno-unknown-warning-option "--header-filter=^$root/(src|tests|fuzz)/" \
        --checks=-bugprone-suspicious-include <"$work/units" >"$work/out" 2>"$work/err" || rc=$?
    # One line per finding (a header that several units include reports it once).
    findings=$(grep -E '^/[^:]+:[0-9]+:[0-9]+: (warning|error):' "$work/out" | sort -u || true)
    if [ -n "$findings" ]; then
        echo "$findings"
        echo "lint: clang-tidy: $(echo "$findings" | wc -l) finding(s)" >&2
        return 1
    fi
    if [ "$rc" -ne 0 ]; then
        tail -n 20 "$work/err" >&2
        echo "lint: clang-tidy failed (exit $rc) without a finding" >&2
        return 1
    fi
    echo "lint: clang-tidy: clean ($(wc -l <"$work/units") translation units)"
}

case "${1:-all}" in
    format) shift; lint_format "$@" ;;
    tidy) shift; lint_tidy "$@" ;;
    all) lint_format && lint_tidy "${2:-build}" ;;
    *) echo "usage: $0 [format [--fix] | tidy [BUILD [REGEX]]]" >&2; exit 2 ;;
esac
