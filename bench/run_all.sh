#!/bin/sh
# `make bench`: every side-by-side measurement, one after another, each against the peer users
# run today in the same loop. Output goes to the terminal and to BUILD/bench/<name>.txt.
# Machines here are shared and noisy: read the ratios, not the absolute times.
#   bench/run_all.sh [BUILD_DIR]          ONLY="check fleet" bench/run_all.sh build
set -u
BUILD=${1:-build}
OUT=$BUILD/bench
mkdir -p "$OUT"
here=$(cd "$(dirname "$0")" && pwd)
failed=""
run() {  # run NAME COMMAND...
  name=$1; shift
  case " ${ONLY:-$name} " in *" $name "*) ;; *) return 0 ;; esac
  echo "== $name: $*"
  # The script's own status, not tee's: kept in a file beside its output.
  { "$@" 2>&1; echo $? > "$OUT/$name.rc"; } | tee "$OUT/$name.txt"
  [ "$(cat "$OUT/$name.rc")" = 0 ] || failed="$failed $name"
  echo
}
run check      "$here/check_vs_collect_env.sh" "$BUILD/cudoctor"
run fleet      "$here/fleet_scale.sh" "$BUILD"
run explain    "$here/explain_vs_grep.sh" "$BUILD"
run compare    "$here/compare_vs_numpy.sh" "$BUILD/cudoctor"
run verify     "$here/verify_installer.sh" "$BUILD/cudoctor"
run arch       "$here/arch_scan.sh" "$BUILD/cudoctor"
run kernels    "$here/kernels_cublaslt.sh" "$BUILD/cudoctor"
run generalise python3 "$here/explain_generalisation.py" --binary "$BUILD/cudoctor"
[ -z "$failed" ] || { echo "bench: failed:$failed" >&2; exit 1; }
echo "bench: all done; results in $OUT/"
