#!/bin/sh
# sim_check.sh — runs every program of bench/gpu_run at a tiny size under gpurace's CPU
# simulator (`gpurace run`): each race-free program must print check=ok and give no finding;
# each racy one must give a race finding at a line marked `// RACE`.
#   bench/gpu_run/sim_check.sh GPURACE_BINARY [WORKDIR]
# Needs nvcc (the programs are built with -cudart shared, as `gpurace run` requires).
# Environment: GR_OPTS (more `gpurace run` options, e.g. --schedule random:7:1).
# Exit status 0 when every program behaves, 1 otherwise, 2 when it cannot run.
set -u
if [ $# -lt 1 ]; then
    echo "usage: $0 GPURACE_BINARY [WORKDIR]" >&2
    exit 2
fi
gr=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
src=$(cd "$(dirname "$0")" && pwd)
work=${2:-$(mktemp -d)}
mkdir -p "$work"
"$src/build.sh" "$work/bin" -cudart shared || exit 2
cd "$work" || exit 2
failed=0
# program, tiny arguments (sizes not multiples of the tile where the program allows it)
while read -r prog args; do
    "$gr" run --findings "$work/findings" ${GR_OPTS:-} -- "./bin/$prog" $args > "$prog.out" 2> "$prog.err"
    status=$?
    race_lines=$(grep -E '^ *[0-9]+ \|.*// RACE' "$prog.err" | wc -l)
    case $prog in
    *_racy)
        if [ "$status" = 1 ] && grep -q 'data race' "$prog.err" && [ "$race_lines" -gt 0 ]; then
            verdict=ok
        else
            verdict=FAILED
        fi ;;
    *)
        if [ "$status" = 0 ] && grep -q 'check=ok' "$prog.out" && grep -q 'GR_TIMES ' "$prog.out"
        then
            verdict=ok
        else
            verdict=FAILED
        fi ;;
    esac
    [ "$verdict" = ok ] || failed=1
    printf '%-13s %-14s gpurace exit %s, %s, %s\n' "$prog" "$args" "$status" \
        "$(grep -o 'check=[A-Za-z]*' "$prog.out" || echo 'no check')" "$verdict"
    [ "$verdict" = ok ] || sed 's/^/    /' "$prog.err" | tail -20
done <<'LIST'
backprop 500
gaussian 37
srad 40 56 3
blackscholes 3000 2
convolution 40 56 2
fwt 12
bfs 700
lu 64
hotspot 30 41 5
nbody 300 2
reduce_racy 3000
stencil_racy 32 40 2
LIST
exit $failed
