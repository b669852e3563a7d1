#!/usr/bin/env python3
"""Validate the headers of the labeled kernel suite (see README.md in this folder).

Usage: check_headers.py [--compile] [--jobs N] [--gpurace PATH] [PATH...]
  PATH      .cu files or folders (default: this folder and ../../examples)
  --compile also compile every kernel with NVRTC in both modes (optimized and -G) and check
            that each `// mark: KIND` line and each race line has a matching PTX instruction.
  --gpurace PATH  compile through `gpurace ptx` (the compiler gpurace picks, and its cache)
Exit status: 0 when every header is valid, 1 otherwise. Python 3 standard library only.
"""
import ctypes
import ctypes.util
import glob
import multiprocessing
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

VERDICTS = {"race", "no-race", "barrier-divergence", "out-of-bounds", "hang"}
RACE_CLASSES = {"race", "scoped-race", "volatile-race"}
WARP_MODELS = {"its", "lockstep", "both"}
MODES = {"both", "optimized", "source-faithful"}
MARK_KINDS = {"store", "load", "atomic", "barrier"}
ELEM_TYPES = {"i8", "u8", "i16", "u16", "int", "unsigned", "i64", "u64", "half", "float", "double"}
KNOWN_KEYS = ["category", "expect", "race-class", "race-lines", "also-races", "launch", "args",
              "spec", "baseline", "witness", "warp-model", "expect-lockstep", "modes",
              "expect-optimized", "kernel", "note"]
REQUIRED = ["category", "expect", "launch", "warp-model", "modes", "note"]

INT = r"-?\d+"
RANGE = r"(?:-?\d+\.\.-?\d+|\{-?\d+(?:,-?\d+)*\}|-?\d+)"
COUNT = r"(?:\d+|[A-Za-z_]\w*(?:[+*]\d+)?)"
GEN_FIXED = r"(?:zeros|ones|iota|random|const:-?\d+(?:\.\d+)?|values:-?\d+(?:\.\d+)?(?:;-?\d+(?:\.\d+)?)*)"
GEN_SPEC = GEN_FIXED[:-1] + r"|range:-?\d+\.\.-?\d+|index_into:" + COUNT + r"|permutation|csr_offsets:" + COUNT + ")"
FIXED_BUFFER = re.compile(r"buffer\((\w+),(\d+)(?:," + GEN_FIXED + r")?\)$")
SPEC_BUFFER = re.compile(r"buffer\((\w+),(" + COUNT + r")(?:," + GEN_SPEC + r")?\)$")
FIXED_DIM = re.compile(r"\d+(?:,\d+){0,2}$")
SPEC_DIM = re.compile(RANGE + r"(?:," + RANGE + r"){0,2}$")
SCALAR = re.compile(r"-?(?:\d+(?:\.\d+)?|0x[0-9a-fA-F]+)$")
MARK = re.compile(r"//\s*mark:\s*(\w+)\s*$")


def read_header(text):
    """Return ({key: value}, header_line_count) or raise ValueError."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "/* gpurace-suite":
        raise ValueError("line 1: header must start with '/* gpurace-suite'")
    meta = {}
    for number, line in enumerate(lines[1:], start=2):
        if line.strip() == "*/":
            return meta, number
        m = re.match(r"^ \* ([a-z-]+): (.+)$", line)
        if not m:
            raise ValueError("line %d: expected ' * key: value'" % number)
        key, value = m.group(1), m.group(2).strip()
        if key in meta:
            raise ValueError("line %d: key '%s' repeated" % (number, key))
        meta[key] = value
    raise ValueError("header comment is not closed")


def kernel_signatures(code):
    """{name: [param names]} for every __global__ function of the file."""
    sigs = {}
    pattern = re.compile(r"__global__\s+void\s+([A-Za-z_]\w*)\s*\(([^)]*)\)\s*\{", re.S)
    for m in pattern.finditer(code):
        params = []
        for p in m.group(2).split(","):
            p = p.strip()
            if p:
                params.append(re.findall(r"[A-Za-z_]\w*", p)[-1])
        sigs[m.group(1)] = params
    return sigs


def parse_assignments(text, where, errors):
    items = {}
    for token in text.split():
        if "=" not in token:
            errors.append("%s: '%s' is not name=value" % (where, token))
            continue
        k, v = token.split("=", 1)
        if k in items:
            errors.append("%s: '%s' given twice" % (where, k))
        items[k] = v
    return items


def check_launch_args(items, params, where, fixed, errors):
    """Validate grid/block/shared plus one entry per kernel parameter."""
    dim = FIXED_DIM if fixed else SPEC_DIM
    for key in ("grid", "block"):
        if key not in items:
            errors.append("%s: missing %s=" % (where, key))
        elif not dim.match(items[key]):
            errors.append("%s: bad %s=%s" % (where, key, items[key]))
    if fixed and "shared" not in items:
        errors.append("%s: missing shared=" % where)
    if "shared" in items and not re.match((r"\d+$" if fixed else RANGE + "$"), items["shared"]):
        errors.append("%s: bad shared=%s" % (where, items["shared"]))
    check_params(items, params, where, fixed, errors)


def check_params(items, params, where, fixed, errors):
    names = [k for k in items if k not in ("grid", "block", "shared")]
    for p in params:
        if p not in items:
            errors.append("%s: parameter '%s' not given" % (where, p))
    for k in names:
        if k not in params:
            errors.append("%s: '%s' is not a kernel parameter" % (where, k))
            continue
        v = items[k]
        if v.startswith("buffer("):
            m = (FIXED_BUFFER if fixed else SPEC_BUFFER).match(v)
            if not m:
                errors.append("%s: bad buffer for '%s': %s" % (where, k, v))
            elif m.group(1) not in ELEM_TYPES:
                errors.append("%s: unknown element type '%s'" % (where, m.group(1)))
        elif not (SCALAR.match(v) if fixed else re.match(RANGE + "$", v)):
            errors.append("%s: bad scalar for '%s': %s" % (where, k, v))


def check_file(path):
    """Return (meta, errors, lines) for one kernel file."""
    errors = []
    text = open(path, encoding="utf-8").read()
    try:
        meta, header_end = read_header(text)
    except ValueError as e:
        return None, ["%s:%s" % (path, e)], []
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines = lines[:-1]
    where = path
    for key in meta:
        if key not in KNOWN_KEYS:
            errors.append("%s: unknown key '%s'" % (where, key))
    for key in REQUIRED:
        if key not in meta:
            errors.append("%s: missing key '%s'" % (where, key))
    if errors:
        return meta, errors, lines
    if not re.match(r"^[a-z0-9-]+/[a-z0-9-]+$", meta["category"]):
        errors.append("%s: category must be category/subcategory" % where)
    expect = meta["expect"]
    if expect not in VERDICTS:
        errors.append("%s: bad expect '%s'" % (where, expect))
    if meta["warp-model"] not in WARP_MODELS:
        errors.append("%s: bad warp-model" % where)
    if meta["modes"] not in MODES:
        errors.append("%s: bad modes" % where)
    for extra in ("expect-lockstep", "expect-optimized"):
        if extra in meta and meta[extra] not in VERDICTS:
            errors.append("%s: bad %s" % (where, extra))
    if "expect-lockstep" in meta and meta["warp-model"] != "its":
        errors.append("%s: expect-lockstep needs warp-model: its" % where)
    if "expect-optimized" in meta and meta["modes"] != "source-faithful":
        errors.append("%s: expect-optimized needs modes: source-faithful" % where)

    # Race keys.
    code_lines = set(range(header_end + 1, len(lines) + 1))
    race_pairs = []
    if expect == "race":
        if meta.get("race-class") not in RACE_CLASSES:
            errors.append("%s: expect: race needs race-class in %s" % (where, sorted(RACE_CLASSES)))
        pairs = [meta.get("race-lines", "")]
        if "also-races" in meta:
            pairs += [p.strip() for p in meta["also-races"].split(",")]
        for p in pairs:
            m = re.match(r"^(\d+) (\d+)$", p)
            if not m:
                errors.append("%s: race pair '%s' is not two line numbers" % (where, p))
                continue
            a, b = int(m.group(1)), int(m.group(2))
            for n in (a, b):
                if n not in code_lines or not lines[n - 1].strip() or lines[n - 1].strip().startswith("//"):
                    errors.append("%s: race line %d is not a code line of the file" % (where, n))
            race_pairs.append((a, b))
    else:
        for key in ("race-class", "race-lines", "also-races"):
            if key in meta:
                errors.append("%s: %s only belongs to expect: race" % (where, key))

    # Kernel and its parameters.
    sigs = kernel_signatures("\n".join(lines))
    if not sigs:
        errors.append("%s: no __global__ function found" % where)
        return meta, errors, lines
    if "kernel" in meta:
        short = re.sub(r"<.*>$", "", meta["kernel"]).split("::")[-1]
        if short not in sigs:
            errors.append("%s: kernel '%s' not found" % (where, meta["kernel"]))
            return meta, errors, lines
        params = sigs[short]
    else:
        if len(sigs) != 1:
            errors.append("%s: several kernels; name one with 'kernel:'" % where)
            return meta, errors, lines
        name, params = next(iter(sigs.items()))
        if "extern \"C\"" not in text:
            errors.append("%s: kernel with a C++ name needs 'kernel:'" % where)
        if os.path.splitext(os.path.basename(path))[0] != name and "/examples/" not in path:
            errors.append("%s: file name and kernel name '%s' differ" % (where, name))

    if meta["launch"] == "search":
        if "spec" not in meta:
            errors.append("%s: launch: search needs spec:" % where)
        else:
            check_launch_args(parse_assignments(meta["spec"], where + " spec", errors), params,
                              where + " spec", False, errors)
        if "baseline" not in meta:
            errors.append("%s: launch: search needs baseline:" % where)
        if expect != "no-race" and "witness" not in meta:
            errors.append("%s: launch: search with expect: %s needs witness:" % (where, expect))
        for key in ("baseline", "witness"):
            if key in meta:
                check_launch_args(parse_assignments(meta[key], where + " " + key, errors), params,
                                  where + " " + key, True, errors)
        if "args" in meta:
            errors.append("%s: launch: search takes spec:, not args:" % where)
    else:
        for key in ("spec", "baseline", "witness"):
            if key in meta:
                errors.append("%s: %s only belongs to launch: search" % (where, key))
        launch = parse_assignments(meta["launch"], where + " launch", errors)
        args = parse_assignments(meta.get("args", ""), where + " args", errors)
        clash = set(launch) & set(args)
        if clash:
            errors.append("%s: args repeat launch keys %s" % (where, sorted(clash)))
        if set(launch) - {"grid", "block", "shared"}:
            errors.append("%s: launch takes only grid, block, shared" % where)
        check_launch_args(dict(launch, **args), params, where + " launch/args", True, errors)

    # Markers.
    marks = {}
    for number, line in enumerate(lines, start=1):
        if "// mark:" in line:
            m = MARK.search(line)
            if not m or m.group(1) not in MARK_KINDS:
                errors.append("%s:%d: marker must be '// mark: KIND' with KIND in %s" % (where, number, sorted(MARK_KINDS)))
            else:
                marks[number] = m.group(1)
    if not marks:
        errors.append("%s: no '// mark:' line" % where)
    meta["_marks"] = marks
    meta["_races"] = race_pairs
    return meta, errors, lines


# ---- optional compile check -------------------------------------------------------------

def find_cuda():
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if root and os.path.exists(os.path.join(root, "include", "cuda.h")):
            return root
    return None


def has_host_code(source):
    return re.search(r"\bint\s+main\s*\(|<<<", source) is not None


def compile_ptx_nvcc(path, source_faithful):
    """Files with host code go through `nvcc -ptx`, as gpurace's compiler fallback does."""
    import subprocess
    import tempfile
    nvcc = os.path.join(find_cuda(), "bin", "nvcc")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "k.ptx")
        cmd = [nvcc, "-ptx", "-arch=compute_90", "-lineinfo", "-std=c++17", "-o", out, path]
        if source_faithful:
            cmd.insert(1, "-G")
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode != 0:
            return None, run.stderr
        return open(out).read(), run.stderr


GPURACE = None  # --gpurace PATH: compile through `gpurace ptx` (its compiler choice and cache)


def compile_ptx_gpurace(path, source_faithful):
    import subprocess
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "k.ptx")
        cmd = [GPURACE, "ptx", path, "-o", out] + (["--source-faithful"] if source_faithful else [])
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode != 0:
            return None, run.stderr
        return open(out).read(), run.stderr


def compile_ptx(path, source_faithful):
    if GPURACE:
        return compile_ptx_gpurace(path, source_faithful)
    cuda = find_cuda()
    if has_host_code(open(path, encoding="utf-8").read()):
        return compile_ptx_nvcc(path, source_faithful)
    lib_path = None
    for cand in glob.glob(os.path.join(cuda, "lib64", "libnvrtc.so*")) + [ctypes.util.find_library("nvrtc")]:
        if cand and "builtins" not in cand and "alt" not in cand:
            lib_path = cand
            break
    nvrtc = ctypes.CDLL(lib_path)
    src = open(path, "rb").read()
    prog = ctypes.c_void_p()
    if nvrtc.nvrtcCreateProgram(ctypes.byref(prog), src, os.path.basename(path).encode(), 0, None, None):
        return None, "nvrtcCreateProgram failed"
    opts = [b"-arch=compute_90", b"-lineinfo", b"-std=c++17",
            ("-I" + os.path.join(cuda, "include")).encode(),
            ("-I" + os.path.join(cuda, "include", "cccl")).encode()]
    if source_faithful:
        opts.append(b"-G")
    arr = (ctypes.c_char_p * len(opts))(*opts)
    rc = nvrtc.nvrtcCompileProgram(prog, len(opts), arr)
    size = ctypes.c_size_t()
    nvrtc.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    nvrtc.nvrtcGetProgramLog(prog, log)
    ptx = None
    if rc == 0:
        nvrtc.nvrtcGetPTXSize(prog, ctypes.byref(size))
        buf = ctypes.create_string_buffer(size.value)
        nvrtc.nvrtcGetPTX(prog, buf)
        ptx = buf.value.decode()
    nvrtc.nvrtcDestroyProgram(ctypes.byref(prog))
    return ptx, log.value.decode(errors="replace")


def instruction_class(opcode):
    if opcode.startswith(("ld.param", "st.param", "ld.local", "st.local")):
        return None
    if opcode.startswith("ld.") or opcode == "ld":
        return "load"
    if opcode.startswith("st.") or opcode == "st":
        return "store"
    if opcode.startswith(("atom.", "red.")):
        return "atomic"
    if opcode.startswith(("bar.", "barrier.")):
        return "barrier"
    return None


def line_classes(ptx, source_name):
    """{source line: set of instruction classes}, by the innermost location in the source file.

    A call counts with the classes of everything its callee executes: in -G builds the CUDA
    headers' atomic and warp intrinsics stay separate functions, so the user's line holds only
    the call.
    """
    files = {}
    for m in re.finditer(r'^\s*\.file\s+(\d+)\s+"([^"]*)"', ptx, re.M):
        files[int(m.group(1))] = os.path.basename(m.group(2))
    main = {k for k, v in files.items() if v == source_name}
    sites = {}
    current = None
    function = None
    direct = {}        # source line -> classes of instructions located there
    calls = {}         # source line -> callee names called there
    func_classes = {}  # function -> classes of its own instructions
    func_calls = {}    # function -> callee names
    statements = []
    pending = None
    for raw in ptx.split("\n"):
        line = raw.strip()
        if pending is not None:
            pending += " " + line
            if ";" in line:
                statements.append(pending)
                pending = None
        elif re.match(r"^(?:@!?%\w+\s+)?call", line) and ";" not in line:
            pending = line
        else:
            statements.append(line)
    returns_open = False  # gpurace's printer: ".func (" / return params / ") NAME("
    for line in statements:
        m = re.match(r"^(?:\.visible\s+|\.weak\s+|\.extern\s+)*\.(?:func|entry)\s+(?:\([^)]*\)\s*)?([\w$]+)", line)
        if not m and returns_open:
            m = re.match(r"^\)\s*([\w$]+)\s*\(", line)
        if re.match(r"^(?:\.visible\s+|\.weak\s+|\.extern\s+)*\.func\s*\($", line):
            returns_open = True
            continue
        if m:
            function = m.group(1)
            current = None
            returns_open = False
            continue
        if line.startswith(".loc"):
            m = re.match(r"\.loc\s+(\d+)\s+(\d+)\s+(\d+)(?:.*inlined_at\s+(\d+)\s+(\d+)\s+(\d+))?", line)
            if not m:
                continue
            here = (int(m.group(1)), int(m.group(2)), int(m.group(3)))
            parent = (int(m.group(4)), int(m.group(5)), int(m.group(6))) if m.group(4) else None
            sites[here] = parent
            loc, seen = here, 0
            while loc is not None and loc[0] not in main and seen < 64:
                loc, seen = sites.get(loc), seen + 1
            current = loc[1] if loc is not None and loc[0] in main else None
            continue
        line = line.strip("{} \t")   # inline asm arrives as "{ atom.add... ; }"
        if not line or line.startswith(("//", ".", "$")):
            continue
        body = re.sub(r"^@!?%\w+\s+", "", line)
        words = body.split()
        if not words:
            continue
        opcode = words[0]
        if opcode.startswith("call"):
            m = re.match(r"call(?:\.uni)?\s*(?:\([^)]*\)\s*,)?\s*([\w$]+)", body)
            if m and function is not None:
                func_calls.setdefault(function, set()).add(m.group(1))
                if current is not None:
                    calls.setdefault(current, set()).add(m.group(1))
            continue
        cls = instruction_class(opcode)
        if cls:
            if function is not None:
                func_classes.setdefault(function, set()).add(cls)
            if current is not None:
                direct.setdefault(current, set()).add(cls)

    def reachable_classes(name, seen):
        if name in seen:
            return set()
        seen.add(name)
        out = set(func_classes.get(name, set()))
        for callee in func_calls.get(name, set()):
            out |= reachable_classes(callee, seen)
        return out

    result = {k: set(v) for k, v in direct.items()}
    for line_no, callees in calls.items():
        for callee in callees:
            result.setdefault(line_no, set()).update(reachable_classes(callee, set()))
    return result


def compile_check(task):
    path, marks, races, modes = task
    errors = []
    for faithful in (False, True):
        mode = "source-faithful" if faithful else "optimized"
        ptx, log = compile_ptx(path, faithful)
        if ptx is None:
            errors.append("%s: does not compile (%s):\n%s" % (path, mode, log))
            continue
        classes = line_classes(ptx, os.path.basename(path))
        for line, kind in marks.items():
            if kind not in classes.get(line, set()):
                errors.append("%s:%d: marker '%s' has no such instruction (%s)" % (path, line, kind, mode))
        if modes in ("both", mode):
            for a, b in races:
                for n in (a, b):
                    if not classes.get(n, set()) & {"load", "store", "atomic"}:
                        errors.append("%s:%d: race line has no memory instruction (%s)" % (path, n, mode))
    return errors


def main(argv):
    do_compile = "--compile" in argv
    jobs = 2
    paths = []
    i = 1
    while i < len(argv):
        if argv[i] == "--jobs":
            jobs = int(argv[i + 1])
            i += 1
        elif argv[i] == "--gpurace":
            global GPURACE
            GPURACE = argv[i + 1]
            i += 1
        elif argv[i] != "--compile":
            paths.append(argv[i])
        i += 1
    if not paths:
        paths = [HERE, os.path.join(REPO, "examples")]
    files = []
    for p in paths:
        if os.path.isdir(p):
            files += sorted(glob.glob(os.path.join(p, "**", "*.cu"), recursive=True))
        else:
            files.append(p)
    all_errors = []
    table = {}
    tasks = []
    for f in files:
        meta, errors, _ = check_file(f)
        all_errors += errors
        if meta is None or errors:
            continue
        category = meta["category"].split("/")[0]
        if "/examples/" in f:
            category = "examples"
        verdict = meta["expect"] if meta["expect"] != "race" else meta["race-class"]
        table.setdefault(category, {}).setdefault(verdict, 0)
        table[category][verdict] += 1
        tasks.append((f, meta["_marks"], meta["_races"], meta["modes"]))
    if do_compile:
        if find_cuda() is None:
            print("--compile: no CUDA toolkit found (set CUDA_HOME)", file=sys.stderr)
            return 1
        with multiprocessing.Pool(jobs) as pool:
            for errors in pool.imap(compile_check, tasks):
                all_errors += errors
    verdicts = ["race", "scoped-race", "volatile-race", "no-race", "barrier-divergence", "out-of-bounds", "hang"]
    heads = ["race", "scoped", "volatile", "no-race", "diverge", "oob", "hang"]
    print("%-10s" % "category" + "".join("%9s" % h for h in heads) + "%7s" % "total")
    totals = [0] * len(verdicts)
    for cat in sorted(table):
        row = [table[cat].get(v, 0) for v in verdicts]
        totals = [a + b for a, b in zip(totals, row)]
        print("%-10s" % cat + "".join("%9d" % n for n in row) + "%7d" % sum(row))
    print("%-10s" % "total" + "".join("%9d" % n for n in totals) + "%7d" % sum(totals))
    for e in all_errors:
        print("error: " + e, file=sys.stderr)
    print("%d files, %d errors%s" % (len(files), len(all_errors), ", compiled in both modes" if do_compile else ""))
    return 1 if all_errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
