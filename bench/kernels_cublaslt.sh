#!/bin/sh
# `cudoctor kernels` on cuBLASLt (the largest library of the toolkit: ~5,700 fatbin entries,
# all zstd) against a decompress-everything baseline written apart from cudoctor's readers
# (bench/kernels_baseline.py: every entry decompressed whole, then its kernels listed). Both
# must count the same kernels; the times are medians of N warm runs (the file read once before).
# Needs /usr/bin/python3 with python3-zstandard (Debian) for the baseline.
# Machines here are shared and noisy: read the ratio, not the absolute times.
set -eu
CUDOCTOR=${1:-build/cudoctor}
FILE=${2:-/usr/local/cuda-13.0/lib64/libcublasLt.so.13}
N=${N:-3}
HERE=$(dirname "$0")
[ -f "$FILE" ] || { echo "kernels_cublaslt: $FILE not found (give a CUDA library as the second argument)"; exit 0; }
/usr/bin/python3 -c 'import zstandard' 2>/dev/null || { echo "kernels_cublaslt: needs python3-zstandard (apt-get install python3-zstandard)"; exit 0; }
cat "$FILE" >/dev/null

median_s() {  # median_s CMD...: median wall time in seconds over N runs
  : > /tmp/cudoctor-kernels-bench.$$
  i=0
  while [ $i -lt "$N" ]; do
    s=$(date +%s%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s%N)
    echo $(( (e - s) / 1000000 )) >> /tmp/cudoctor-kernels-bench.$$
    i=$((i + 1))
  done
  sort -n /tmp/cudoctor-kernels-bench.$$ | awk '{a[NR]=$1} END {printf "%.2f\n", a[int((NR+1)/2)]/1000}'
  rm -f /tmp/cudoctor-kernels-bench.$$
}

ours=$("$CUDOCTOR" kernels --json "$FILE" | /usr/bin/python3 -c '
import json, sys
t = json.load(sys.stdin)["files"][0]["totals"]
print(t["kernels"], t["kernel_images"], t["modules"], t["decompressed_bytes"])')
base=$(/usr/bin/python3 "$HERE/kernels_baseline.py" "$FILE" | /usr/bin/python3 -c '
import json, sys
t = json.load(sys.stdin)
print(t["kernels"], t["kernel_images"], t["modules"], t["bytes_decompressed_or_copied"])')
set -- $ours; ok=$1 oi=$2 om=$3 od=$4
set -- $base; bk=$1 bi=$2 bm=$3 bd=$4
echo "file: $FILE"
echo "cudoctor kernels: $ok kernels, $oi in all images, $om modules, $od bytes decompressed"
echo "baseline:         $bk kernels, $bi in all images, $bm modules, $bd bytes decompressed or copied"
[ "$ok" = "$bk" ] && [ "$oi" = "$bi" ] && [ "$om" = "$bm" ] || { echo "kernels_cublaslt: the counts DISAGREE"; exit 1; }
t_ours=$(median_s "$CUDOCTOR" kernels --totals "$FILE")
t_base=$(median_s /usr/bin/python3 "$HERE/kernels_baseline.py" "$FILE")
echo "median of $N warm runs: cudoctor kernels ${t_ours} s, decompress-everything baseline ${t_base} s"
