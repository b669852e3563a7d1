#!/usr/bin/env python3
"""Fuzzes the kernels of tests/infer/kernels with no spec and prints, per kernel, the
error-level findings that are false alarms, the true ones and the warnings, for one or two
gpurace builds (before / after), as a Markdown table.

A kernel's header says what it holds: `expect: clean` (every error-level finding is a false
alarm) or `expect: race L1 [L2]` (an error-level race with a location on one of those lines is
true; any other error-level finding is a false alarm).

    bench/infer/infer_suite.py --after build/gpurace [--before OLD/gpurace] [--time 20]
                               [--kernels tests/infer/kernels] [--only NAME ...]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile


def expectation(path):
    with open(path) as f:
        head = f.read(2000)
    m = re.search(r"expect:\s*(clean|race((?:\s+\d+)+))", head)
    if not m:
        sys.exit(f"{path}: no 'expect:' line in its header")
    if m.group(1) == "clean":
        return set()
    return {int(x) for x in m.group(2).split()}


def fuzz(gpurace, kernel, seconds, extra):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "report.json")
        cmd = [gpurace, "fuzz", kernel, "--time", str(seconds), "--jobs", "1",
               "--findings", os.path.join(tmp, "findings"), "--json", out] + extra
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        problem = None
        if proc.returncode not in (0, 1):
            problem = (proc.stderr.strip().splitlines()[-1:] or ["exit %d" % proc.returncode])[0]
        if not os.path.exists(out):
            return None, problem
        with open(out) as f:
            return json.load(f).get("findings", []), problem


def classify(findings, race_lines):
    false_err = true_err = warn = 0
    for f in findings:
        if f.get("severity") == "warning":
            warn += 1
            continue
        lines = {loc.get("line") for loc in f.get("locations", [])}
        if race_lines and f.get("class") == "race" and lines & race_lines:
            true_err += 1
        else:
            false_err += 1
    return false_err, true_err, warn


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--after", required=True, help="the gpurace build to measure")
    ap.add_argument("--before", help="a build to compare with (the branch point)")
    ap.add_argument("--time", type=int, default=20, help="seconds of fuzzing per kernel")
    ap.add_argument("--kernels", default=os.path.join(os.path.dirname(__file__), "..", "..",
                                                      "tests", "infer", "kernels"))
    ap.add_argument("--only", nargs="*", help="kernel file names to run (default: all)")
    args = ap.parse_args()
    files = sorted(f for f in os.listdir(args.kernels) if f.endswith(".cu"))
    if args.only:
        files = [f for f in files if f in args.only or f[:-3] in args.only]
    builds = [("before", args.before)] if args.before else []
    builds.append(("after", args.after))
    head = "| kernel | expected |"
    rule = "|---|---|"
    for name, _ in builds:
        head += f" {name}: false errors | {name}: true errors | {name}: warnings |"
        rule += "---|---|---|"
    print(head)
    print(rule)
    totals = {name: [0, 0, 0] for name, _ in builds}
    found = {name: 0 for name, _ in builds}
    seeded = 0
    for fname in files:
        path = os.path.join(args.kernels, fname)
        race_lines = expectation(path)
        seeded += bool(race_lines)
        row = f"| {fname[:-3]} | {'race ' + ' '.join(map(str, sorted(race_lines))) if race_lines else 'clean'} |"
        for name, binary in builds:
            findings, problem = fuzz(binary, path, args.time, [])
            if findings is None:
                row += f" failed: {problem[:60]} | | |"
                continue
            fe, te, w = classify(findings, race_lines)
            for i, v in enumerate((fe, te, w)):
                totals[name][i] += v
            found[name] += te > 0
            mark = " (run incomplete: exit 3)" if problem else ""
            row += f" {fe}{mark} | {te} | {w} |"
        print(row, flush=True)
    row = f"| **total** ({len(files)} kernels) | {seeded} seeded |"
    for name, _ in builds:
        t = totals[name]
        row += f" {t[0]} | {t[1]} ({found[name]} of {seeded} seeded found) | {t[2]} |"
    print(row)
    print(f"\n{args.time} s of `gpurace fuzz` per kernel and build, one worker, no spec.")


if __name__ == "__main__":
    main()
