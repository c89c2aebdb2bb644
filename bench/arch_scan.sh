#!/bin/sh
# `cudoctor arch` on a big CUDA library against reading that file once (`cat FILE >/dev/null`),
# with a cold page cache (the file evicted with posix_fadvise(DONTNEED) before each run: only
# this file, nothing else on the machine) and warm. Two scan depths: --fast reads only the
# headers of the registered fatbins (.nv_fatbin, __nv_relfatbin); the default also searches the
# data sections for embedded fatbins (it reads the bytes between containers, never the
# payloads). Where cuobjdump exists, `cuobjdump --list-elf` is timed too.
# Machines here are shared and noisy: read the ratios, not the absolute times.
set -eu
CUDOCTOR=${1:-build/cudoctor}
FILE=${2:-/usr/local/cuda-13.0/lib/libcublasLt.so.13}
N=${N:-5}
[ -f "$FILE" ] || { echo "arch_scan: $FILE not found (give a CUDA library as the second argument)"; exit 0; }

evict() {  # drop FILE from the page cache (needs no root: fadvise on a file we can read)
  python3 -c 'import os,sys; fd=os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED); os.close(fd)' "$FILE"
}

median_ms() {  # median_ms cold|warm CMD...: median wall time in ms over N runs
  mode=$1; shift
  i=0; : > /tmp/cudoctor-arch-bench.$$
  while [ $i -lt "$N" ]; do
    if [ "$mode" = cold ]; then evict; else "$@" >/dev/null 2>&1 || true; fi
    s=$(date +%s%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s%N)
    echo $(( (e - s) / 1000 )) >> /tmp/cudoctor-arch-bench.$$
    i=$((i + 1))
  done
  sort -n /tmp/cudoctor-arch-bench.$$ | awk '{a[NR]=$1} END {printf "%.1f\n", a[int((NR+1)/2)]/1000}'
  rm -f /tmp/cudoctor-arch-bench.$$
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "n/a" }'; }

size=$(stat -c %s "$FILE")
echo "file: $FILE ($((size / 1000000)) MB), median of $N runs"
for cache in cold warm; do
  t_cat=$(median_ms $cache cat "$FILE")
  t_fast=$(median_ms $cache "$CUDOCTOR" arch --fast --gpu 8.9 "$FILE")
  t_full=$(median_ms $cache "$CUDOCTOR" arch --gpu 8.9 "$FILE")
  printf '%s cache: %-34s %9s ms\n' $cache "cat FILE >/dev/null" "$t_cat"
  printf '%s cache: %-34s %9s ms   ratio to cat %s\n' $cache "cudoctor arch --fast (registered)" "$t_fast" "$(ratio "$t_fast" "$t_cat")"
  printf '%s cache: %-34s %9s ms   ratio to cat %s\n' $cache "cudoctor arch (+ embedded search)" "$t_full" "$(ratio "$t_full" "$t_cat")"
  if command -v cuobjdump >/dev/null 2>&1; then
    t_cuobj=$(median_ms $cache cuobjdump --list-elf "$FILE")
    printf '%s cache: %-34s %9s ms   cudoctor --fast is %sx of it\n' $cache "cuobjdump --list-elf" "$t_cuobj" "$(ratio "$t_fast" "$t_cuobj")"
  else
    echo "$cache cache: cuobjdump not installed here (not in this toolkit): no comparison"
  fi
done
