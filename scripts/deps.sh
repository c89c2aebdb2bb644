#!/bin/sh
# Installs the Debian/Ubuntu packages cudoctor needs to build and test (only the missing ones).
# Used by `make run` and `make test`; safe to run again. Needs root or sudo for apt-get.
set -eu
# build: what `make run` and `make test` need; fuzz: clang 14 with its libFuzzer runtime.
case "${1:-build}" in
  build) PACKAGES="build-essential cmake ninja-build pkg-config libcli11-dev libfmt-dev nlohmann-json3-dev \
libgtest-dev libgmock-dev zlib1g-dev liblzma-dev libzstd-dev libssl-dev libre2-dev pci.ids makeself \
python3-numpy python3-torch python3-opencv environment-modules lmod zsh fish ansible-core slurm-wlm time man-db git" ;;
  fuzz) PACKAGES="clang-14 libclang-rt-14-dev" ;;
  *) echo "usage: $0 [build|fuzz]" >&2; exit 2 ;;
esac
missing=""
for p in $PACKAGES; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "cudoctor: installing missing Debian packages:$missing"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
