#!/usr/bin/env python3
"""Never pass silently, on a GPU: every racy kernel of the labeled suite fuzzed with
`gpurace fuzz --backend gpu`, CAMPAIGNS campaigns at a time sharing one GPU (their interleavings
then vary the most). A campaign that printed "new race" must exit 1 and list a race in its JSON
report; none may exit 0 after it saw a finding. Prints a table last; exits 1 on a violation.

    tests/device/never_lose_gpu.py [--gpurace PATH] [--campaigns 10] [--time 15] [PATH ...]

Fixed-launch kernels are fuzzed under a spec that fixes their launch and arguments (the
schedule, which the GPU ignores, is all that varies); search kernels under their own spec."""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, os.path.join(ROOT, "tests", "kernels"))
import check_headers  # noqa: E402
import importlib.machinery  # noqa: E402
import importlib.util  # noqa: E402

loader = importlib.machinery.SourceFileLoader("run_suite", os.path.join(ROOT, "tests", "run_suite"))
spec_ = importlib.util.spec_from_loader("run_suite", loader)
run_suite = importlib.util.module_from_spec(spec_)
loader.exec_module(run_suite)


def racy_kernels(paths):
    for path in run_suite.kernel_files(paths):
        meta, _ = check_headers.read_header(open(path, encoding="utf-8").read())
        if meta["expect"] != "race":
            continue
        if meta["launch"].strip() == "search":
            if "spec" not in meta:
                continue
            text = meta["spec"]
        else:
            text = meta["launch"] + " " + meta.get("args", "")
        modes = meta.get("modes", "both")
        yield dict(path=path, kernel=meta.get("kernel"), spec=text,
                   faithful=modes == "source-faithful")


def campaign(k, opts, scratch):
    name = os.path.splitext(os.path.basename(k["path"]))[0]
    d = tempfile.mkdtemp(prefix=name + "-", dir=scratch)
    spec_path = os.path.join(d, "spec.json")
    with open(spec_path, "w", encoding="utf-8") as f:
        json.dump(run_suite.spec_json(k["spec"], k["kernel"] or name), f)
    report = os.path.join(d, "report.json")
    cmd = [opts.gpurace, "fuzz", k["path"], "--backend", opts.backend, "--spec", spec_path, "--time",
           str(opts.time), "--findings", os.path.join(d, "findings"), "--json", report]
    if k["kernel"]:
        cmd += ["--kernel", k["kernel"]]
    if k["faithful"]:
        cmd.append("--source-faithful")
    start = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=opts.time + 240)
        code, err, out = p.returncode, p.stderr, p.stdout
    except subprocess.TimeoutExpired:
        code, err, out = -1, "timed out", ""
    printed = "fuzz: new race" in err
    races = 0
    try:
        with open(report, encoding="utf-8") as f:
            races = sum(1 for x in json.load(f)["findings"] if x["class"] == "race")
    except (OSError, ValueError, KeyError):
        pass
    ok = not printed or (code == 1 and races > 0)
    ok = ok and code in (0, 1, 2, 3)
    return dict(name=name, code=code, printed=printed, races=races, ok=ok,
                seconds=time.time() - start, tail=(out + err).strip().splitlines()[-3:])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpurace", default=os.path.join(ROOT, "build", "gpurace"))
    ap.add_argument("--campaigns", type=int, default=10)
    ap.add_argument("--backend", default="gpu", help="sim: the same check on the simulator")
    ap.add_argument("--time", type=int, default=15)
    ap.add_argument("paths", nargs="*", default=[os.path.join(ROOT, "tests", "kernels")])
    opts = ap.parse_args()
    kernels = list(racy_kernels(opts.paths))
    scratch = tempfile.mkdtemp(prefix="never-lose-gpu-")
    start = time.time()
    with concurrent.futures.ThreadPoolExecutor(opts.campaigns) as pool:
        results = list(pool.map(lambda k: campaign(k, opts, scratch), kernels))
    bad = [r for r in results if not r["ok"]]
    for r in bad:
        print("VIOLATION %s: exit %d, printed a new race: %s, races in the report: %d; %s"
              % (r["name"], r["code"], r["printed"], r["races"], " | ".join(r["tail"])))
    codes = {}
    for r in results:
        codes[r["code"]] = codes.get(r["code"], 0) + 1
    printed = [r for r in results if r["printed"]]
    print("| campaigns | at once | printed a new race | of those exit 1 | violations | exit statuses | seconds |")
    print("|---|---|---|---|---|---|---|")
    print("| %d | %d | %d | %d | %d | %s | %.0f |" % (
        len(results), opts.campaigns, len(printed), sum(1 for r in printed if r["code"] == 1),
        len(bad), ", ".join("%d: %d" % kv for kv in sorted(codes.items())), time.time() - start))
    print("logs in", scratch)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
