#!/usr/bin/env python3
"""Runs every fixed-launch kernel of tests/kernels on the simulator (`sim_check`, i.e.
`gpurace check --backend sim`) and compares the verdict with the kernel's header.

usage: run_suite.py SIM_CHECK [--detector fsm|hb] [--filter SUBSTRING] [--mode both|optimized|source-faithful]
                    [--include DIR]...   (default: the CUDA toolkit's include and include/cccl)
Prints one line per run that disagrees, then a summary; exits 1 when any verdict is wrong."""
import json, os, re, shutil, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
def cuda_root():
    if os.environ.get("CUDA_HOME"):
        return os.environ["CUDA_HOME"]
    nvcc = shutil.which("nvcc")
    return os.path.dirname(os.path.dirname(os.path.realpath(nvcc))) if nvcc else ""


CUDA = cuda_root()


def header(path):
    text = open(path).read()
    m = re.search(r"/\* gpurace-suite\n(.*?)\n \*/", text, re.S)
    if not m:
        return None
    h = {}
    for line in m.group(1).splitlines():
        mm = re.match(r" \* ([a-z-]+): (.*)$", line)
        if mm:
            h[mm.group(1)] = mm.group(2).strip()
    return h


def split_args(s):
    # name=buffer(int,32,values:1;2) items separated by spaces (no spaces inside buffer())
    return [a for a in s.split() if a]


def verdict(findings):
    classes = {f["class"] for f in findings}
    for c in ("out-of-bounds", "barrier-divergence", "hang", "fault"):
        if c in classes:
            return c
    return "race" if "race" in classes else "no-race"


def main():
    exe = sys.argv[1]
    detector = "fsm"
    filt = ""
    only_mode = "both"
    includes = []
    args = sys.argv[2:]
    while args:
        a = args.pop(0)
        if a == "--detector":
            detector = args.pop(0)
        elif a == "--filter":
            filt = args.pop(0)
        elif a == "--mode":
            only_mode = args.pop(0)
        elif a == "--include":
            includes.append(args.pop(0))
    if not includes and CUDA:
        includes = [os.path.join(CUDA, "include"), os.path.join(CUDA, "include", "cccl")]
    incflags = [x for d in includes for x in ("-I", d)]
    files = []
    for d, _, fs in os.walk(os.path.join(ROOT, "tests", "kernels")):
        files += [os.path.join(d, f) for f in fs if f.endswith(".cu")]
    files.sort()
    runs = wrong = errors = line_mismatch = skipped = 0
    for path in files:
        if filt and filt not in path:
            continue
        h = header(path)
        if not h or not h.get("launch", "").startswith("grid"):
            continue
        launch = dict(kv.split("=", 1) for kv in h["launch"].split())
        modes = {"both": [False, True], "optimized": [False], "source-faithful": [True]}[h.get("modes", "both")]
        for sf in modes:
            if only_mode == "optimized" and sf or only_mode == "source-faithful" and not sf:
                continue
            models = ["its"] if h.get("warp-model", "its") in ("its", "both") else ["lockstep"]
            for model in models:
                expect = h["expect"]
                if not sf and h.get("expect-optimized") and h.get("modes") == "source-faithful":
                    expect = h["expect-optimized"]
                with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as tf:
                    jpath = tf.name
                cmd = [exe, "check", path, "--grid", launch["grid"], "--block", launch["block"],
                       "--detector", detector, "--warp-model", model, "--json", jpath,
                       "--step-budget", "20000000"] + incflags
                if launch.get("shared", "0") != "0":
                    cmd += ["--shared", launch["shared"]]
                if "kernel" in h:
                    cmd += ["--kernel", h["kernel"]]
                if sf:
                    cmd.append("--source-faithful")
                for a in split_args(h.get("args", "")):
                    cmd += ["--arg", a]
                runs += 1
                p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
                name = os.path.relpath(path, ROOT) + (" -G" if sf else "") + ("" if model == "its" else " lockstep")
                if p.returncode not in (0, 1):
                    msg = (p.stderr.strip().splitlines() or ["?"])[-1]
                    if "no single kernel matches" in p.stderr:
                        # C++ name expressions are resolved by jit/signature, not the simulator
                        skipped += 1
                        print(f"SKIP  {name}: --kernel {h.get('kernel')} not resolved")
                    else:
                        errors += 1
                        print(f"ERROR {name}: exit {p.returncode}: {msg}")
                    os.unlink(jpath)
                    continue
                doc = json.load(open(jpath))
                os.unlink(jpath)
                got = verdict(doc["findings"])
                if got != expect:
                    wrong += 1
                    first = doc["findings"][0]["message"] if doc["findings"] else ""
                    print(f"WRONG {name}: expected {expect}, got {got} {first}")
                elif expect == "race":
                    want = set()
                    for pair in [h.get("race-lines", "")] + h.get("also-races", "").split(","):
                        nums = pair.split()
                        if len(nums) == 2:
                            want.add(tuple(sorted(int(x) for x in nums)))
                    for f in doc["findings"]:
                        if f["class"] != "race":
                            continue
                        lines = tuple(sorted(l.get("line", 0) for l in f["locations"]))
                        if len(lines) == 2 and lines not in want:
                            line_mismatch += 1
                            print(f"LINES {name}: race reported at {lines}, header says {sorted(want)}")
                            break
    print(f"{runs} runs: {runs - wrong - errors - skipped} right verdicts, {wrong} wrong, "
          f"{errors} errors, {skipped} skipped, {line_mismatch} with race lines outside the header")
    return 1 if wrong or errors else 0


if __name__ == "__main__":
    sys.exit(main())
