#!/usr/bin/env python3
"""The error catalog's RE2 patterns as POSIX ERE, for `grep -E -f` side by side with explain.

Reads data/error_catalog.tsv (or argv[1]) and prints one ERE per row, in catalog order. RE2's
shorthands become POSIX classes, inside brackets too ([^\\s] -> [^[:space:]], [\\w.+-] ->
[[:alnum:]_.+-]); an escaped character inside brackets loses its backslash (a bracket in ERE takes
'\\' literally); \\n can never occur inside a line, so [^\\n] is any character; (?: is (. A pattern
POSIX cannot say exactly is an error, not a silent approximation.
"""
import sys

SHORT = {"d": "[:digit:]", "s": "[:space:]", "w": "[:alnum:]_", "D": None, "S": None, "W": None}
NEG = {"D": "[^[:digit:]]", "S": "[^[:space:]]", "W": "[^[:alnum:]_]"}


def bracket(p: str, i: int) -> (str, int):
    """Converts the bracket expression starting at p[i] == '['; returns (ere, index after ']')."""
    j = i + 1
    negated = p.startswith("^", j)
    if negated:
        j += 1
    members, first = [], True
    while j < len(p) and (p[j] != "]" or first):
        first = False
        c = p[j]
        if c == "\\":
            e = p[j + 1]
            j += 2
            if e in "dsw":
                members.append(SHORT[e])
            elif e == "n":
                members.append("\n")
            elif e in "DSW":
                raise ValueError("negated shorthand inside brackets: " + p)
            else:
                members.append(e)
            continue
        members.append(c)
        j += 1
    if j >= len(p):
        raise ValueError("unclosed bracket: " + p)
    real = [m for m in members if m != "\n"]
    if not real:  # [^\n]: any character of a line
        return (".", j + 1) if negated else ("(a^)", j + 1)
    # ']' first, '-' last, '^' not first: the places ERE reads them literally.
    body = "".join(m for m in real if m not in "]-^")
    if "]" in real:
        body = "]" + body
    if "^" in real:
        body += "^"
    if "-" in real:
        body += "-"
    if body.startswith("^"):
        raise ValueError("bracket of only '^': " + p)
    return ("[^" if negated else "[") + body + "]", j + 1


def convert(p: str) -> str:
    out, i = [], 0
    while i < len(p):
        c = p[i]
        if c == "[":
            s, i = bracket(p, i)
            out.append(s)
        elif c == "\\":
            e = p[i + 1]
            if e in "dsw":
                out.append("[" + SHORT[e] + "]")
            elif e in "DSW":
                out.append(NEG[e])
            elif e == "n":
                raise ValueError("a newline outside brackets cannot match within a line: " + p)
            else:
                out.append("\\" + e)
            i += 2
        elif p.startswith("(?:", i):
            out.append("(")
            i += 3
        elif i == 0 and p.startswith("(?m)"):
            i += 4  # ^ and $ at line ends: what grep does anyway, one line at a time
        elif p.startswith("(?", i):
            raise ValueError("group flags: " + p)
        else:
            out.append(c)
            i += 1
    return "".join(out)


def main() -> int:
    path = sys.argv[1] if len(sys.argv) > 1 else "data/error_catalog.tsv"
    rows = [l.rstrip("\n").split("\t") for l in open(path, encoding="utf-8") if not l.startswith("#")][1:]
    bad = 0
    for r in rows:
        try:
            print(convert(r[4]))
        except ValueError as e:
            print("cannot convert %s: %s" % (r[0], e), file=sys.stderr)
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
