#!/usr/bin/env bash
# Runs `cudoctor check`, `cudoctor verify` and `cudoctor arch` on a machine with a real NVIDIA GPU
# and saves their JSON (and the text reports, for people) in one folder, ready to be committed as
# a real machine's fixture under tests/fixtures/real-gpu/<machine>/ — the suite replays every
# verify.json there with `verify --snapshot` (tests/integration/verify_machine_test.cpp) and
# check.json with `check --snapshot`.
#
#   bench/gpu-check.sh [OUT_DIR] [CUDOCTOR]
#
# OUT_DIR defaults to $OUT (the device tool's result folder), else ./gpu-check-<hostname>.
# CUDOCTOR defaults to build/cudoctor, then the first cudoctor on PATH. Each command has its
# own time limit; the whole run stays well under five minutes on a healthy machine. A failing
# command does not stop the others: its exit status is recorded in summary.txt.
set -u

out_dir=${1:-${OUT:-./gpu-check-$(hostname -s 2>/dev/null || echo machine)}}
cudoctor=${2:-}
if [[ -z $cudoctor ]]; then
    here=$(cd "$(dirname "$0")/.." && pwd)
    for candidate in "$here/build/cudoctor" "$(command -v cudoctor 2>/dev/null)"; do
        if [[ -n $candidate && -x $candidate ]]; then cudoctor=$candidate; break; fi
    done
fi
if [[ -z $cudoctor || ! -x $cudoctor ]]; then
    echo "gpu-check: no cudoctor binary (build it, or pass its path as the second argument)" >&2
    exit 2
fi
mkdir -p "$out_dir"
summary=$out_dir/summary.txt
: > "$summary"

# run NAME SECONDS ARGS... — saves NAME.json (stdout of the --json run) and NAME.txt (the text run).
run() {
    local name=$1 limit=$2
    shift 2
    local start end status
    start=$(date +%s.%N)
    timeout --kill-after=5 "$limit" "$cudoctor" "$@" --json > "$out_dir/$name.json" 2> "$out_dir/$name.stderr"
    status=$?
    end=$(date +%s.%N)
    timeout --kill-after=5 "$limit" "$cudoctor" "$@" > "$out_dir/$name.txt" 2>> "$out_dir/$name.stderr"
    printf '%-8s exit %-3s %6.1f s   %s %s\n' "$name" "$status" "$(awk -v a="$start" -v b="$end" 'BEGIN{print b-a}')" "$cudoctor" "$*" | tee -a "$summary"
    [[ -s $out_dir/$name.stderr ]] || rm -f "$out_dir/$name.stderr"
}

{
    echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
    nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv,noheader 2>&1 | sed 's/^/# nvidia-smi: /'
} >> "$summary"

run check 120 check
run verify 240 verify

# `arch` may not be built yet in this checkout: the placeholder says "not built yet".
if "$cudoctor" arch --help > /dev/null 2>&1 && ! "$cudoctor" arch 2>&1 | grep -q "not built yet"; then
    # Which architectures the loader's cuBLAS (kernel-heavy) carries, and whether this GPU runs them.
    target=$(ldconfig -p 2>/dev/null | awk '/libcublasLt\.so\.[0-9]+ /{print $NF; exit}')
    [[ -n $target ]] || target=$(ldconfig -p 2>/dev/null | awk '/libcudart\.so\.[0-9]+ /{print $NF; exit}')
    if [[ -n $target ]]; then run arch 120 arch "$target"; else echo "arch     skipped: no libcublasLt / libcudart in the loader cache" | tee -a "$summary"; fi
else
    echo "arch     skipped: \`cudoctor arch\` is not built in this checkout" | tee -a "$summary"
fi

echo "saved in $out_dir:" && ls -l "$out_dir"
