#!/usr/bin/python3
"""Decompress-everything baseline for `cudoctor kernels`, written apart from cudoctor's readers.

Finds every fatbin container of an ELF file (the registered .nv_fatbin / __nv_relfatbin sections
and, as `kernels` does by default, containers embedded in the other data sections, at 8-byte
aligned offsets), decompresses EVERY entry whole (zstd via python3-zstandard, LZ4 via python3-lz4
when present), then lists the entry kernels: a cubin's defined STT_FUNC symbols with
STO_CUDA_ENTRY (0x10) in st_other, and PTX `.entry` names. Prints one JSON line of counts, the
same totals `cudoctor kernels --json` gives, so the bench can check that both agree.
Usage: kernels_baseline.py FILE
"""
import json
import mmap
import re
import struct
import subprocess
import sys

import zstandard

try:
    import lz4.block as lz4block
except ImportError:  # only LZ4-compressed entries need it
    lz4block = None

MAGIC = struct.pack("<I", 0xBA55ED50)
ENTRY_RE = re.compile(rb"\.entry\s+([A-Za-z_$%][A-Za-z0-9_$]*)")


def sections(path):
    out = subprocess.run(["readelf", "-SW", path], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        m = re.match(r"\s*\[\s*\d+\]\s+(\S*)\s+(\S+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+\S+\s*(\S*)", line)
        if m and m.group(2) == "PROGBITS":
            yield m.group(1), int(m.group(4), 16), int(m.group(5), 16), "X" in m.group(6)


def container_entries(data, at, limit):
    """The entries of the container at `at`, or None when it does not validate."""
    if at + 16 > limit or data[at:at + 4] != MAGIC:
        return None
    version, header, size = struct.unpack_from("<HHQ", data, at + 4)
    if version != 1 or header != 16 or at + 16 + size > limit:
        return None
    entries, e, end = [], at + 16, at + 16 + size
    while e < end:
        if end - e < 64:
            return None
        kind, ehs, psize, csize = struct.unpack_from("<H2xIQI", data, e)
        if ehs < 64 or e + ehs + psize > end:
            return None
        arch = struct.unpack_from("<I", data, e + 0x1C)[0]
        flags = struct.unpack_from("<Q", data, e + 0x28)[0]
        usize = struct.unpack_from("<Q", data, e + 0x38)[0]
        entries.append((kind, arch, flags, data[e + ehs:e + ehs + (csize if flags & 0xA000 else psize)], usize))
        e += ehs + psize
    return entries, end


def cubin_kernels(elf):
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shnum, = struct.unpack_from("<H", elf, 0x3C)
    shdrs = [struct.unpack_from("<IIQQQQII", elf, shoff + 64 * i) for i in range(shnum)]
    names = []
    for _, typ, _, _, off, size, link, _ in shdrs:
        if typ != 2:
            continue
        stroff, strsize = shdrs[link][4], shdrs[link][5]
        for s in range(off, off + size, 24):
            name, info, other, shndx = struct.unpack_from("<IBBH", elf, s)
            if info & 0xF == 2 and other & 0x10 and shndx != 0:
                end = elf.index(b"\0", stroff + name)
                names.append(elf[stroff + name:end])
    return names


def main():
    path = sys.argv[1]
    with open(path, "rb") as f:
        data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    dctx = zstandard.ZstdDecompressor()
    kernels, kernel_images, modules, decompressed = set(), 0, 0, 0
    for name, off, size, exe in sections(path):
        registered = name in (".nv_fatbin", "__nv_relfatbin")
        if exe and not registered:
            continue
        at, limit = off, off + size
        while at < limit:
            if registered:
                if data[at:at + 4] == b"\0\0\0\0":
                    at += 8
                    continue
                found = container_entries(data, at, limit)
                if not found:
                    break
            else:
                at = data.find(MAGIC, at, limit)
                if at < 0:
                    break
                if at % 8:
                    at += 8 - at % 8
                    continue
                found = container_entries(data, at, limit)
                if not found or not found[0]:
                    at += 8
                    continue
            entries, end = found
            modules += 1
            at = end if registered else (end + 7) // 8 * 8
            for kind, arch, flags, payload, usize in entries:
                if flags & 0x8000:
                    payload = dctx.decompress(payload, max_output_size=usize)
                elif flags & 0x2000:
                    payload = lz4block.decompress(payload, uncompressed_size=usize)
                else:
                    payload = bytes(payload)
                decompressed += len(payload)
                names = cubin_kernels(payload) if kind == 2 else ENTRY_RE.findall(payload) if kind == 1 else []
                names = set(names)
                kernels.update(names)
                kernel_images += len(names)
    print(json.dumps({"kernels": len(kernels), "kernel_images": kernel_images, "modules": modules,
                      "bytes_decompressed_or_copied": decompressed}))


if __name__ == "__main__":
    main()
