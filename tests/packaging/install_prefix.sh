#!/bin/bash
# `make install` with a prefix other than /usr (cmake --install with DESTDIR staging, as a packager
# or `make install PREFIX=/usr/local DESTDIR=…` does): the zsh completion lands in
# PREFIX/share/zsh/site-functions, a folder on the fpath of the real zsh, and the systemd units in
# PREFIX/lib/systemd/system, a folder systemd reads.
# Usage: install_prefix.sh CMAKE BUILD_DIR      (exit 77 = skipped: no zsh here)
set -euo pipefail
cmake=$1 build=$2
command -v zsh >/dev/null || { echo "SKIP: zsh missing"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

for prefix in /usr/local /opt/cudoctor; do
    stage=$work/stage${prefix//\//_}
    DESTDIR=$stage "$cmake" --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 ||
        { cat "$work/install.log"; fail "cmake --install --prefix $prefix"; }
    [[ -s $stage$prefix/share/zsh/site-functions/_cudoctor ]] || fail "$prefix: no share/zsh/site-functions/_cudoctor"
    [[ ! -e $stage$prefix/share/zsh/vendor-completions ]] || fail "$prefix: Debian's vendor-completions folder used outside /usr"
    [[ -s $stage$prefix/lib/systemd/system/cudoctor-check.timer ]] || fail "$prefix: no lib/systemd/system/cudoctor-check.timer"
    [[ -s $stage$prefix/share/doc/cudoctor/examples/slurm/cudoctor-healthcheck.sh ]] || fail "$prefix: no examples"
done

# zsh finds what went to /usr/local: its own default fpath names the folder, and with the staged
# copy in that place `compinit` loads cudoctor's completion function.
zsh -fc 'print -l $fpath' | grep -qx /usr/local/share/zsh/site-functions ||
    fail "/usr/local/share/zsh/site-functions is not on zsh's fpath"
site=$work/stage_usr_local/usr/local/share/zsh/site-functions
out=$(HOME=$work zsh -fc "fpath=(\"$site\" \${fpath:#/usr/local/share/zsh/site-functions}); autoload -Uz compinit; compinit -u -d $work/zcompdump; print -r -- \$_comps[cudoctor]")
[[ $out == _cudoctor ]] || fail "zsh's compinit did not register _cudoctor for cudoctor: '$out'"

if command -v systemd-analyze >/dev/null; then
    systemd-analyze --system unit-paths | grep -qx /usr/local/lib/systemd/system ||
        fail "systemd does not read /usr/local/lib/systemd/system"
fi
echo "ok"
