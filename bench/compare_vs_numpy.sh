#!/bin/sh
# `cudoctor compare` against the same metrics computed by a NumPy script (what people run today),
# on two folders of float32 .npy tensors (REF and TEST, SIZE_MB each; default 1024 MB a side: 2 GB
# of tensors read per run), page cache warm (each is run once before timing), median of N runs.
# Machines here are shared and noisy: read the ratio, not the absolute times.
#   bench/compare_vs_numpy.sh [build/cudoctor]     SIZE_MB=2048 N=3 DIR=/tmp/x bench/compare_vs_numpy.sh
set -eu
CUDOCTOR=${1:-build/cudoctor}
SIZE_MB=${SIZE_MB:-1024}
N=${N:-3}
DIR=${DIR:-/tmp/cudoctor-compare-bench}
PYTHON=${PYTHON:-/usr/bin/python3}  # Debian's, with numpy
HERE=$(dirname "$0")

if [ ! -f "$DIR/.made-$SIZE_MB" ]; then
  rm -rf "$DIR"
  mkdir -p "$DIR"
  "$PYTHON" "$HERE/compare_numpy_metrics.py" --make "$DIR" "$SIZE_MB"
  touch "$DIR/.made-$SIZE_MB"
fi

median_ms() {  # median wall time in ms of CMD... over N runs (after one warm-up run)
  "$@" >/dev/null 2>&1 || true
  i=0; : > "$DIR/times"
  while [ $i -lt "$N" ]; do
    s=$(date +%s%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s%N)
    echo $(( (e - s) / 1000000 )) >> "$DIR/times"
    i=$((i + 1))
  done
  sort -n "$DIR/times" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

bytes=$(du -sb "$DIR/ref" "$DIR/test" | awk '{s += $1} END {printf "%d", s}')
echo "tensors: $(ls "$DIR/ref" | wc -l) pairs of float32, $((bytes / 1000000)) MB read per run; $(nproc) CPUs; median of $N runs, warm cache"
t_np=$(median_ms "$PYTHON" "$HERE/compare_numpy_metrics.py" "$DIR/ref" "$DIR/test")
t_cd=$(median_ms "$CUDOCTOR" compare "$DIR/ref" "$DIR/test")
t_cd1=$(median_ms "$CUDOCTOR" compare --threads 1 "$DIR/ref" "$DIR/test")
t_cat=$(median_ms cat "$DIR"/ref/*.npy "$DIR"/test/*.npy)
printf '%-44s %8s ms\n' "cat REF TEST >/dev/null (reading alone)" "$t_cat"
printf '%-44s %8s ms\n' "NumPy script (same metrics, float64)" "$t_np"
printf '%-44s %8s ms   %sx faster than NumPy, %s GB/s\n' "cudoctor compare" "$t_cd" \
  "$(awk -v a="$t_np" -v b="$t_cd" 'BEGIN { printf "%.1f", a / b }')" "$(awk -v s="$bytes" -v t="$t_cd" 'BEGIN { printf "%.2f", s / t / 1e6 }')"
printf '%-44s %8s ms   %sx faster than NumPy\n' "cudoctor compare --threads 1" "$t_cd1" \
  "$(awk -v a="$t_np" -v b="$t_cd1" 'BEGIN { printf "%.1f", a / b }')"
