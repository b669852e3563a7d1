#!/usr/bin/env bash
# run_programs_gpu.sh — whole CUDA programs at real sizes (bench/gpu_run) on an NVIDIA GPU:
# each one plain, under `gpurace run --backend gpu` and under `compute-sanitizer --tool
# racecheck`, timed by the program itself (its GR_TIMES line: kernel time summed over the
# launches by CUDA events, whole-program time by the monotonic clock); prints a markdown table
# last. Builds the programs itself with bench/gpu_run/build.sh (nvcc's default static runtime).
#   tests/device/run_programs_gpu.sh
# Environment: GR (the gpurace binary, default build-gpu/gpurace),
#              OUT (results folder, default a new temporary one): programs.tsv (one row per
#              run), the programs' outputs and gpurace's findings,
#              REPS (runs per program plain and under gpurace, medians reported; default 3),
#              RACECHECK_TIMEOUT (seconds per racecheck run, default 240; "timeout" past it),
#              SKIP_RACECHECK (1: no racecheck runs),
#              GR_TIMEOUT (seconds per gpurace run, default 120), PLAIN_TIMEOUT (default 60);
#              after a timeout the tool's remaining runs of that program are skipped,
#              PROGRAMS (names, default all twelve), ARGS_<name> (the program's arguments,
#              default none: its real size), BIN (a folder of programs already built: no build),
#              COMPUTE_SANITIZER (default compute-sanitizer on PATH or in /usr/local/cuda/bin).
# gpurace keeps its compile cache in a fresh XDG_CACHE_HOME unless one is set: the first
# gpurace run of each program is cold (all runs are in programs.tsv).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
GR=${GR:-build-gpu/gpurace}
case $GR in /*) ;; *) GR="$PWD/$GR" ;; esac
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
REPS=${REPS:-3}
RC_TIMEOUT=${RACECHECK_TIMEOUT:-240}
GR_TIMEOUT=${GR_TIMEOUT:-120}
PLAIN_TIMEOUT=${PLAIN_TIMEOUT:-60}
CS=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}
PROGRAMS=${PROGRAMS:-"backprop gaussian srad blackscholes convolution fwt bfs lu hotspot nbody reduce_racy stencil_racy"}
export XDG_CACHE_HOME=${XDG_CACHE_HOME:-$(mktemp -d)}
script_start=$(date +%s)

echo "== device"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -2
"$CS" --version 2>&1 | tail -1

if [ -n "${BIN:-}" ]; then
    bin=$(cd "$BIN" && pwd)
else
    echo "== build (bench/gpu_run/build.sh)"
    bin="$OUT/bin"
    "$root/bench/gpu_run/build.sh" "$bin" || { echo "build failed" >&2; exit 2; }
fi
[ -x "$GR" ] || echo "warning: no gpurace binary at $GR: its runs will fail" >&2

tsv="$OUT/programs.tsv"
printf 'program\ttool\trep\telements\tlaunches\tkernel_ms\ttotal_ms\twall_ms\texit\tcheck\traces\n' > "$tsv"

now_ms() { date +%s%3N; }
# field NAME FILE: the value of NAME=... on the file's GR_TIMES line (or its elements line).
field() { sed -n "s/.*[ :]$1=\([^ ]*\).*/\1/p" "$2" | tail -1; }

# record PROG TOOL REP STDOUT_FILE WALL_MS EXIT RACES
record() {
    local check
    check=$(sed -n 's/.*check=\([A-Za-z]*\).*/\1/p' "$4" | tail -1)
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" \
        "$(field elements "$4")" "$(field launches "$4")" "$(field kernel_ms "$4")" \
        "$(field total_ms "$4")" "$5" "$6" "${check:-none}" "$7" >> "$tsv"
}

for prog in $PROGRAMS; do
    argvar="ARGS_$prog"
    args=${!argvar:-}
    exe="$bin/$prog"
    dir="$OUT/runs/$prog"
    mkdir -p "$dir"
    echo "== $prog $args"
    for r in $(seq 1 "$REPS"); do
        t0=$(now_ms)
        (cd "$dir" && timeout -k 10 "$PLAIN_TIMEOUT" "$exe" $args > "plain.$r.out" 2> "plain.$r.err")
        status=$?
        t1=$(now_ms)
        case $status in 124 | 137) status=timeout ;; esac
        record "$prog" plain "$r" "$dir/plain.$r.out" $((t1 - t0)) "$status" -
        echo "  plain:     $(grep GR_TIMES "$dir/plain.$r.out" | tail -1) exit=$status"
        [ "$status" = timeout ] && break
    done
    for r in $(seq 1 "$REPS"); do
        t0=$(now_ms)
        (cd "$dir" && timeout -k 10 "$GR_TIMEOUT" "$GR" run --backend gpu --findings "$dir/findings" \
             -- "$exe" $args > "gpurace.$r.out" 2> "gpurace.$r.err")
        status=$?
        t1=$(now_ms)
        # Exit 1 is findings; 0 none; anything else means gpurace did not do its whole job.
        case $status in
        0) races=no ;;
        1) races="yes ($(sed -n 's/^gpurace: \([0-9]*\) finding.*/\1/p' "$dir/gpurace.$r.err" | tail -1))" ;;
        124 | 137) races=timeout status=timeout ;;
        *) races="error $status" ;;
        esac
        record "$prog" gpurace "$r" "$dir/gpurace.$r.out" $((t1 - t0)) "$status" "$races"
        echo "  gpurace:   $(grep GR_TIMES "$dir/gpurace.$r.out" | tail -1) races=$races"
        grep -h "^gpurace run:\|^gpurace: note:\|^gpurace: error:" "$dir/gpurace.$r.err" | sed 's/^/             /' | head -4
        [ "$status" = timeout ] && break
    done
    if [ "${SKIP_RACECHECK:-0}" != 1 ]; then
        t0=$(now_ms)
        (cd "$dir" && timeout -k 10 "$RC_TIMEOUT" "$CS" --tool racecheck "$exe" $args \
             > racecheck.out 2> racecheck.err)
        status=$?
        t1=$(now_ms)
        hazards=$(sed -n 's/.*RACECHECK SUMMARY: \([0-9]*\) hazard.*/\1/p' "$dir/racecheck.out" "$dir/racecheck.err" | tail -1)
        errors=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) error.*/\1/p' "$dir/racecheck.out" "$dir/racecheck.err" | tail -1)
        if [ "$status" = 124 ] || [ "$status" = 137 ]; then
            races=timeout status=timeout
        elif [ -n "$hazards" ] && [ "$hazards" != 0 ]; then
            races="yes ($hazards)"
        elif [ -n "$errors" ] && [ "$errors" != 0 ]; then
            races="yes ($errors)"
        elif [ -n "$hazards$errors" ]; then
            races=no
        else
            races="error $status"
        fi
        record "$prog" racecheck 1 "$dir/racecheck.out" $((t1 - t0)) "$status" "$races"
        echo "  racecheck: $(grep GR_TIMES "$dir/racecheck.out" | tail -1) races=$races ($(( (t1 - t0) / 1000 )) s)"
    fi
done

echo
echo "== results ($tsv; $(( $(date +%s) - script_start )) s in all)"
# The table: medians per program and tool, slowdowns against the plain medians, geometric
# means and maxima over the race-free programs.
awk -F'\t' -v racecheck="$([ "${SKIP_RACECHECK:-0}" = 1 ] && echo 0 || echo 1)" '
function median(list,    n, v, i, j, t) {
    n = split(list, v, " ")
    if (n == 0) return ""
    for (i = 2; i <= n; i++) { t = v[i] + 0; for (j = i - 1; j >= 1 && v[j] + 0 > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
function cell(ms, base) {
    if (ms == "") return "-"
    if (base == "" || base + 0 <= 0) return sprintf("%.3f", ms)
    return sprintf("%.3f (%.2fx)", ms, ms / base)
}
function note(prog, tool, k, v) {
    if (!((prog, tool, k) in sums)) { sums[prog, tool, k] = ""; }
    if (v != "") sums[prog, tool, k] = sums[prog, tool, k] " " v
}
NR == 1 { next }
{
    prog = $1; tool = $2
    if (!(prog in seen)) { seen[prog] = 1; order[++np] = prog }
    if ($4 != "") elements[prog] = $4
    # Only runs that did their whole job count for times: exit 0, or 1 (a failed check, or
    # gpurace findings); not a timeout nor gpurace exit 3 (a kernel it could not check).
    if ($6 != "" && ($9 == 0 || $9 == 1)) { note(prog, tool, "k", $6); note(prog, tool, "t", $7); note(prog, tool, "w", $8) }
    if ($9 == "timeout") timedout[prog, tool] = 1
    if ($3 == 1 || races[prog, tool] == "") races[prog, tool] = $11
    if ($10 != "ok" && ($9 == 0 || $9 == 1)) checks[prog, tool] = checks[prog, tool] " " $10
}
END {
    printf "| program | elements | plain kernel ms | plain total ms | gpurace kernel ms (x) | gpurace total ms (x) | racecheck kernel ms (x) | racecheck total ms (x) | races gpurace | races racecheck |\n"
    printf "|---|---:|---:|---:|---:|---:|---:|---:|---|---|\n"
    for (i = 1; i <= np; i++) {
        p = order[i]
        pk = median(sums[p, "plain", "k"]); pt = median(sums[p, "plain", "t"])
        gk = median(sums[p, "gpurace", "k"]); gt = median(sums[p, "gpurace", "t"])
        rk = median(sums[p, "racecheck", "k"]); rt = median(sums[p, "racecheck", "t"])
        rck = racecheck ? ((p, "racecheck") in timedout ? "timeout" : cell(rk, pk)) : "skipped"
        rct = racecheck ? ((p, "racecheck") in timedout ? "timeout" : cell(rt, pt)) : "skipped"
        printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", p, elements[p], cell(pk, ""), cell(pt, ""),
            cell(gk, pk), cell(gt, pt), rck, rct, races[p, "gpurace"], racecheck ? races[p, "racecheck"] : "skipped"
        if (p ~ /_racy$/) continue
        if (checks[p, "plain"] != "") bad = bad " " p "(plain:" checks[p, "plain"] ")"
        if (checks[p, "gpurace"] != "") bad = bad " " p "(gpurace:" checks[p, "gpurace"] ")"
        if (pk > 0 && gk > 0) { n1++; s1 += log(gk / pk); if (gk / pk > m1) m1 = gk / pk }
        if (pt > 0 && gt > 0) { n2++; s2 += log(gt / pt); if (gt / pt > m2) m2 = gt / pt }
        if (pk > 0 && rk > 0) { n3++; s3 += log(rk / pk); if (rk / pk > m3) m3 = rk / pk }
        if (pt > 0 && rt > 0) { n4++; s4 += log(rt / pt); if (rt / pt > m4) m4 = rt / pt }
        # Wall time (process start to exit) also holds what a tool does before main.
        pw = median(sums[p, "plain", "w"]); gw = median(sums[p, "gpurace", "w"]); rw = median(sums[p, "racecheck", "w"])
        if (pw > 0 && gw > 0) { n5++; s5 += log(gw / pw); if (gw / pw > m5) m5 = gw / pw }
        if (pw > 0 && rw > 0) { n6++; s6 += log(rw / pw); if (rw / pw > m6) m6 = rw / pw }
        if (racecheck && gt > 0) {
            compared++
            if ((p, "racecheck") in timedout || (rt > 0 && gt < rt)) faster++
            if ((p, "racecheck") in timedout || (rw > 0 && gw < rw)) faster_wall++
        }
    }
    printf "\nslowdowns over the %d race-free programs (geometric mean, maximum):\n", (n1 > n3 ? n1 : n3)
    if (n1) printf "  gpurace kernel:    %.2fx, %.2fx (%d programs)\n", exp(s1 / n1), m1, n1
    if (n2) printf "  gpurace total:     %.2fx, %.2fx (%d programs)\n", exp(s2 / n2), m2, n2
    if (n3) printf "  racecheck kernel:  %.2fx, %.2fx (%d programs that finished)\n", exp(s3 / n3), m3, n3
    if (n4) printf "  racecheck total:   %.2fx, %.2fx (%d programs that finished)\n", exp(s4 / n4), m4, n4
    if (n5) printf "  gpurace wall:      %.2fx, %.2fx (%d programs)\n", exp(s5 / n5), m5, n5
    if (n6) printf "  racecheck wall:    %.2fx, %.2fx (%d programs that finished)\n", exp(s6 / n6), m6, n6
    if (compared) printf "  gpurace whole program faster than racecheck on %d of %d programs (total_ms), %d of %d (wall)\n", faster, compared, faster_wall + 0, compared
    if (bad != "") printf "checks not ok:%s\n", bad
}' "$tsv"
exit 0
