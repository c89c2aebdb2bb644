#!/bin/bash
# fish: the real `complete -C` on the generated file. zsh: the file parses, and compinit
# registers it for cudoctor from its #compdef line.
# Usage: fish_zsh_completion.sh CUDOCTOR_BINARY FISH_FILE ZSH_FILE ROOTS_DIR
set -uo pipefail
binary=$1 fish_file=$2 zsh_file=$3 roots=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ln -s "$binary" "$work/cudoctor"
export PATH=$work:$PATH
failures=0
expect() {  # expect WHAT OUTPUT WANTED
    grep -q -- "$3" <<<"$2" || { echo "FAIL: $1: wanted '$3' in: $2"; failures=$((failures + 1)); }
}

if command -v fish >/dev/null; then
    fish_complete() { fish --no-config -c "source '$fish_file'; complete -C '$1'" 2>&1; }
    expect "fish 'cudoctor ch'" "$(fish_complete 'cudoctor ch')" '^check	'
    expect "fish 'cudoctor check --js'" "$(fish_complete 'cudoctor check --js')" '^--json	'
    expect "fish 'cudoctor check --fail-on '" "$(fish_complete 'cudoctor check --fail-on ')" '^warning'
    expect "fish 'cudoctor --color='" "$(fish_complete 'cudoctor --color=')" 'always'
    expect "fish 'cudoctor use --root ROOT 12.'" "$(fish_complete "cudoctor use --root $roots/server-three-toolkits 12.")" '^12\.4\.'
    expect "fish 'cudoctor opencv '" "$(fish_complete 'cudoctor opencv ')" '^cmake	'
    out=$(fish --no-config -c "source '$fish_file'; __cudoctor_toolkits" 2>&1 </dev/null)  # no --root: this machine
    [[ $? == 0 ]] || { echo "FAIL: fish __cudoctor_toolkits: $out"; failures=$((failures + 1)); }
else
    echo "note: fish not installed"
fi

if command -v zsh >/dev/null; then
    zsh -n "$zsh_file" || { echo "FAIL: zsh -n $zsh_file"; failures=$((failures + 1)); }
    mkdir -p "$work/fpath" && cp "$zsh_file" "$work/fpath/_cudoctor"
    out=$(HOME=$work zsh -f -c "fpath=('$work/fpath' \$fpath); autoload -Uz compinit; compinit -u -d '$work/zcompdump'; print -r -- \${_comps[cudoctor]}" 2>&1)
    expect "zsh compinit" "$out" '^_cudoctor$'
else
    echo "note: zsh not installed"
fi

((failures == 0)) && echo ok
exit $((failures > 0))
