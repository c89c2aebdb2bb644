#!/bin/bash
# One cudoctor snapshot per node of a Slurm allocation, into a shared folder, then the fleet
# report. Run from a login node with a folder every node can write (NFS, Lustre, …):
#
#   sbatch --nodes=16 slurm.sh            # or: salloc --nodes=16 ./slurm.sh
#
#SBATCH --job-name=cudoctor-fleet
#SBATCH --ntasks-per-node=1
#SBATCH --time=00:05:00
#SBATCH --output=cudoctor-fleet-%j.log
set -euo pipefail
dir=${FLEET_DIR:-$PWD/snapshots}
mkdir -p "$dir"

# cudoctor names each file after the node it ran on (%h). Exit 1 only means findings.
srun --nodes="${SLURM_JOB_NUM_NODES:-1}" --ntasks-per-node=1 \
    cudoctor check --json --output "$dir/%h.json" || true

# The same with srun's own file naming (%N = node name), cudoctor writing to stdout:
#   srun --ntasks-per-node=1 --output "$dir/%N.json" --error "$dir/%N.err" cudoctor check --json
# (--error apart, so that a warning on stderr cannot land inside the JSON file)

cudoctor fleet "$dir"
