#!/bin/sh
# The tree's two linters, with the configurations checked in at the top (.clang-format,
# .clang-tidy), both clang 14. Exit 1 when either finds something; it prints what.
#   scripts/lint.sh format          clang-format: every C/C++ file we wrote is formatted
#   scripts/lint.sh format --fix    … and rewrite the ones that are not
#   scripts/lint.sh tidy [BUILD]    clang-tidy over BUILD/compile_commands.json (default: build)
#   scripts/lint.sh                 both
# clang-tidy reads the unity translation units the build compiles (16 sources each), so the
# heavy headers are parsed ~20 times, not ~260: the whole tree takes minutes, not an hour.
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
}

lint_tidy() {
    build=${1:-build}
    [ -f "$build/compile_commands.json" ] || { echo "lint: no $build/compile_commands.json (build first)" >&2; exit 2; }
    log=$(mktemp)
    trap 'rm -f "$log"' EXIT
    # The C++ translation units: unity units where the build makes them, else the sources.
    # clang 14 spells C++23 as c++2b. Findings in the .cpp files a unity unit includes are kept
    # by the header filter; the unit including .cpp files is no finding.
    python3 - "$build/compile_commands.json" <<'EOF' >"$log.files"
import json, sys
for e in json.load(open(sys.argv[1])):
    f = e["file"]
    if f.endswith((".cpp", ".cxx")) and "/generated/" not in f:
        print(f)
EOF
    root=$(pwd)
    jobs=$(nproc)
    xargs -P "$jobs" -n 1 "$TIDY" -p "$build" --quiet --extra-arg=-std=c++2b --extra-arg=-Wno-unknown-warning-option \
        "--header-filter=^$root/(src|tests|fuzz)/" --checks=-bugprone-suspicious-include <"$log.files" >"$log" 2>/dev/null || true
    rm -f "$log.files"
    # One line per finding (a header seen by several units reports it once).
    findings=$(grep -E '^/[^:]+:[0-9]+:[0-9]+: (warning|error):' "$log" | sort -u || true)
    if [ -n "$findings" ]; then
        echo "$findings"
        echo "lint: clang-tidy: $(echo "$findings" | wc -l) finding(s)" >&2
        return 1
    fi
    echo "lint: clang-tidy: clean ($(wc -l <"$log") lines of output, no findings)"
}

case "${1:-all}" in
    format) shift; lint_format "$@" ;;
    tidy) shift; lint_tidy "$@" ;;
    all) lint_format && lint_tidy "${2:-build}" ;;
    *) echo "usage: $0 [format [--fix] | tidy [BUILD] ]" >&2; exit 2 ;;
esac
