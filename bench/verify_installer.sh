#!/bin/sh
# Side by side on a multi-GB makeself archive (made here with Debian's makeself from generated
# data, gzip payload, MD5 + SHA-256 recorded): `cudoctor verify-installer` (one read: SHA-256,
# MD5 and the gzip stream decompressed to its trailer, in parallel) against what users run today:
# `sh FILE --check` (makeself's own check: reads the file for its size, then SHA-256, then MD5,
# one after the other; no decompression) and `sha256sum FILE` (one digest, nothing else).
# Page cache warm for all alike; median of N runs; read the ratios, not the absolute times
# (machines here are shared and noisy). Everything made is removed at the end.
#   BENCH_GB=3 N=3 bench/verify_installer.sh [path/to/cudoctor]
set -eu
CUDOCTOR=${1:-build/cudoctor}
GB=${BENCH_GB:-3}
N=${N:-3}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cudoctor-bench-installer.XXXXXX")
trap 'rm -rf "$WORK"' EXIT INT TERM

median_s() {  # runs "$@" N times, prints the median wall time in seconds
  : > "$WORK/times"
  i=0
  while [ $i -lt "$N" ]; do
    s=$(date +%s%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s%N)
    echo $(( (e - s) / 1000000 )) >> "$WORK/times"
    i=$((i + 1))
  done
  sort -n "$WORK/times" | awk '{a[NR]=$1} END {printf "%.2f\n", a[int((NR+1)/2)]/1000}'
}

# Payload: like a toolkit's files, a mix of incompressible bytes (already-compressed fatbins),
# base64 text (partly compressible) and very compressible text, 64 MiB per file.
mkdir -p "$WORK/payload"
printf '#!/bin/sh\necho installed\n' > "$WORK/payload/install.sh"; chmod +x "$WORK/payload/install.sh"
files=$((GB * 16))
i=0
while [ $i -lt $files ]; do
  case $((i % 3)) in
    0) head -c 67108864 /dev/urandom ;;
    1) head -c 50331648 /dev/urandom | base64 -w 120 | head -c 67108864 ;;
    2) seq 1 100000000 | head -c 67108864 ;;
  esac > "$WORK/payload/part$i.bin"
  i=$((i + 1))
done
echo "making a ${GB} GiB makeself archive (gzip -6, MD5 + SHA-256) in $WORK ..."
s=$(date +%s)
makeself --quiet --sha256 --complevel 6 "$WORK/payload" "$WORK/cuda_99.0.0_999.99.99_linux.run" "Bench Installer" ./install.sh >/dev/null
rm -rf "$WORK/payload"
F="$WORK/cuda_99.0.0_999.99.99_linux.run"
echo "  made in $(( $(date +%s) - s )) s: $(stat -c %s "$F") bytes"

"$CUDOCTOR" verify-installer --no-progress "$F" || { echo "cudoctor says the bench archive is bad" >&2; exit 1; }
sha256sum "$F" >/dev/null; sh "$F" --check >/dev/null 2>&1  # warm the page cache for all alike

t_cud=$(median_s "$CUDOCTOR" verify-installer --no-progress "$F")
t_check=$(median_s sh "$F" --check)
t_sha=$(median_s sha256sum "$F")
t_md5=$(median_s md5sum "$F")
printf '%-52s %8s s\n' "cudoctor verify-installer (SHA-256+MD5+gunzip)" "$t_cud"
printf '%-52s %8s s\n' "sh FILE --check (size, SHA-256, MD5 in turn)" "$t_check"
printf '%-52s %8s s\n' "sha256sum FILE" "$t_sha"
printf '%-52s %8s s\n' "md5sum FILE" "$t_md5"
awk -v c="$t_cud" -v k="$t_check" -v s="$t_sha" 'BEGIN {
  printf "ratio: sh --check / cudoctor = %.2fx faster\n", k / c
  printf "ratio: cudoctor / sha256sum  = %.2fx the time\n", c / s }'
