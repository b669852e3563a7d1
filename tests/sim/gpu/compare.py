#!/usr/bin/env python3
"""compare.py SIM_DUMP GPU_DUMP: buffers after each case, simulator vs GPU. Integers must be
equal bit for bit; floats within a relative 1e-5 (f32) / 1e-12 (f64) or 1e-6 absolute (the GPU
contracts a*b+c into fma and its approximate functions differ within their documented error);
half values within one unit in the last place. Exit 1 on any difference."""
import math, struct, sys

FMT = {"i8": ("b", 1), "u8": ("B", 1), "i16": ("h", 2), "u16": ("H", 2), "int": ("i", 4),
       "unsigned": ("I", 4), "i64": ("q", 8), "u64": ("Q", 8), "half": ("e", 2),
       "float": ("f", 4), "double": ("d", 8)}


def load(path):
    out = {}
    for line in open(path):
        parts = line.split()
        if len(parts) < 5:
            continue
        case, mode, arg, typ, count = parts[:5]
        raw = bytes.fromhex(parts[5]) if len(parts) > 5 else b""
        f, size = FMT[typ]
        out[(int(case), mode, int(arg))] = (typ, struct.unpack("<%d%s" % (int(count), f), raw))
    return out


def close(typ, a, b):
    if typ in ("float", "double", "half"):
        if math.isnan(a) and math.isnan(b):
            return True
        if a == b:
            return True
        rel = 1e-12 if typ == "double" else 1e-5 if typ == "float" else 1e-3
        return abs(a - b) <= rel * max(abs(a), abs(b)) + (1e-6 if typ != "double" else 1e-12)
    return a == b


def main():
    sim, gpu = load(sys.argv[1]), load(sys.argv[2])
    bad = 0
    exact = approx = 0
    for key in sorted(set(sim) | set(gpu)):
        if key not in sim or key not in gpu:
            print(f"case {key}: missing on the {'simulator' if key not in sim else 'GPU'} side")
            bad += 1
            continue
        typ, a = sim[key]
        _, b = gpu[key]
        diffs = [i for i in range(len(a)) if not close(typ, a[i], b[i])]
        if diffs:
            bad += 1
            i = diffs[0]
            print(f"case {key} ({typ}): {len(diffs)} of {len(a)} elements differ, first [{i}]: sim {a[i]} gpu {b[i]}")
        elif a == b:
            exact += 1
        else:
            approx += 1
    print(f"{len(set(sim) | set(gpu))} buffers: {exact} bit-identical, {approx} within tolerance, {bad} different")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
