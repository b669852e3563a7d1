#!/bin/sh
# Regenerates the sample PTX from the .cu files here (CUDA 12/13 nvcc, no GPU needed):
# k_X.ptx with -lineinfo (optimized) and k_X.G.ptx with -G (debug). nvcc writes absolute paths
# into .file and the DWARF compile directory; they are rewritten so the data do not depend on
# where the repository lives (same-length replacement keeps DWARF offsets valid).
set -e
cd "$(dirname "$0")"
here=$(pwd)
for f in k_*.cu; do
    b=${f%.cu}
    nvcc -ptx -arch=compute_90 -lineinfo "$f" -o "$b.ptx"
    nvcc -ptx -arch=compute_90 -G "$f" -o "$b.G.ptx"
done
python3 - "$here" k_*.ptx <<'PY'
import re, sys
here = sys.argv[1].encode()
neutral = (b"/src" + b"/" * len(here))[:len(here)]
for fn in sys.argv[2:]:
    s = open(fn).read().replace('"%s/' % here.decode(), '"')
    toks = []
    for lm in re.finditer(r'^\.b8 ([0-9,]+)$', s, re.M):
        for m in re.finditer(r'\d+', lm.group(1)):
            toks.append((lm.start(1) + m.start(), lm.start(1) + m.end(), int(m.group())))
    data = bytes(t[2] & 255 for t in toks)
    repl = {}
    i = data.find(here)
    while i >= 0:
        for k in range(len(here)): repl[i + k] = neutral[k]
        i = data.find(here, i + 1)
    out, last = [], 0
    for idx, t in enumerate(toks):
        if idx in repl:
            out += [s[last:t[0]], str(repl[idx])]
            last = t[1]
    out.append(s[last:])
    open(fn, 'w').write(''.join(out))
PY
