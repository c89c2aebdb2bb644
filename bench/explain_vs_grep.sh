#!/usr/bin/env bash
# cudoctor explain --log on a large generated log, side by side with what people run today:
# grep -E with the same patterns (the regex column of data/error_catalog.tsv, turned into POSIX
# ERE). Both read the whole file; prints each time and the ratio.
#
#   bench/explain_vs_grep.sh [BUILD_DIR] [SIZE_MB]     (defaults: build, 200)
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$here/build}"
size_mb="${2:-200}"
cudoctor="$build/cudoctor"
[ -x "$cudoctor" ] || { echo "no cudoctor binary in $build (build it first)" >&2; exit 2; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
log="$work/big.log"

# The log: ordinary build/test output (words like error, cuda, warning, nvcc) cycling through a
# block, with real error messages from tests/fixtures/errors sprinkled in every ~50 000 lines.
python3 - "$log" "$size_mb" "$here/tests/fixtures/errors" <<'PY'
import os, sys, random
out, size_mb, errors = sys.argv[1], int(sys.argv[2]), sys.argv[3]
random.seed(7)
ordinary = [
    "[%d/2048] Building CUDA object src/kernels/CMakeFiles/kernels.dir/gemm_%d.cu.o",
    "/usr/local/cuda-12.4/bin/nvcc -forward-unknown-to-host-compiler -O3 -arch=sm_89 -c gemm_%d.cu -o gemm_%d.o",
    "tests/test_ops.py::test_matmul[float16-%d] PASSED                                   [ 42%%]",
    "warning: variable 'error_%d' set but not used [-Wunused-but-set-variable]",
    "2024-06-12 06:41:%02d INFO  trainer: epoch 3 step %d loss=0.4312 lr=3e-4 cuda_mem=7.1GiB",
    "Setting up cuda-cudart-12-4 (12.4.127-1) ... done; 0 errors, %d warnings",
    "  File \"/home/alice/project/train.py\", line %d, in <module>",
    "ldd: libcudnn.so.9 => /usr/lib/x86_64-linux-gnu/libcudnn.so.9 (0x00007f%06x)",
]
samples = []
for root, _, files in os.walk(errors):
    if os.path.basename(root) == "none":
        continue
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            samples.append(fh.read().split("\n", 1)[1])
target = size_mb << 20
with open(out, "w") as fh:
    written, n = 0, 0
    while written < target:
        if n % 50000 == 49999:
            block = random.choice(samples)
        else:
            t = ordinary[n % len(ordinary)]
            block = t % ((n,) * (t.count("%") - 2 * t.count("%%"))) + "\n"
        fh.write(block)
        written += len(block)
        n += 1
PY

# The same patterns for grep -E: RE2 → POSIX ERE, shorthands inside brackets too (a sed did
# [^\s], [\w.+-] and [^\n] wrong, so grep matched fewer lines than explain). First, the two
# agree line for line on every log of the corpus.
patterns="$work/patterns.ere"
python3 "$here/bench/re2_to_ere.py" "$here/data/error_catalog.tsv" > "$patterns"
python3 "$here/bench/explain_grep_agree.py" "$build" | tail -n 1

time_of() {  # prints seconds of the best of 3 runs
    local best=""
    for _ in 1 2 3; do
        local s e
        s=$(date +%s.%N)
        "$@" > "$work/out" || true  # not /dev/null: GNU grep stops at the first match when output goes there
        e=$(date +%s.%N)
        best=$(python3 -c "a='$best'; t=$e-$s; print(t if not a or t < float(a) else a)")
    done
    echo "$best"
}

echo "log: $(du -h "$log" | cut -f1), $(wc -l < "$log") lines, $(wc -l < "$patterns") patterns"
cat "$log" > /dev/null  # warm the page cache for both
t_grep=$(time_of env LC_ALL=C grep -E -c -f "$patterns" "$log")
t_explain=$(time_of "$cudoctor" explain --no-machine --json --log "$log")
printf 'grep -E -f patterns   %6.2f s\n' "$t_grep"
printf 'cudoctor explain      %6.2f s\n' "$t_explain"
python3 -c "print('ratio (explain / grep): %.2f' % ($t_explain / $t_grep))"
