#!/usr/bin/env bash
# Times GPU kernels side by side, for kernel work on a GPU machine (no Rust needed):
#
#   cargo build --release                                  # here
#   scripts/gpu/kernel-ab.sh kernels/count.cu my-variant.cu    # there, from the repository root
#   scripts/gpu/kernel-ab.sh old/nqueen target/release/nqueen  # two builds, each with its kernel
#
# Each argument is a kernel file, compiled by NVRTC through NQUEEN_KERNEL_SOURCE and run by
# BIN (default target/release/nqueen), or a built nqueen, run as it is. Each is run with
# `--backend gpu --stats` on each board; they alternate within each of ROUNDS rounds
# (default 5) so that drift on the machine hits them alike. Prints, per board and kernel,
# the median process wall clock and the median kernel time (the sum of the kernel times
# that --stats reports), the kernel time against the first one's, and a checksum of the
# output. Exits 1 if two of them print different outputs for one board. BOARDS overrides
# the list of boards (one per line: a file under fixtures/bench without .in, then nqueen
# options).
set -u
BIN=${BIN:-target/release/nqueen}
ROUNDS=${ROUNDS:-5}
BOARDS=${BOARDS:-"empty_19 --no-symmetry
empty_19
empty_20
density_19_10
stress"}
[ $# -ge 1 ] || { echo "usage: $0 KERNEL.cu|NQUEEN [KERNEL.cu|NQUEEN ...]" >&2; exit 2; }
export NQUEEN_CACHE_DIR=${NQUEEN_CACHE_DIR:-/tmp/nqueen-cache}
work=$(mktemp -d)
failures=0
trap 'rm -rf "$work"' EXIT

# Runs nqueen with the kernel `$1` (a kernel file or a build) and the options after it.
run() {
    local k=$1
    shift
    case $k in
        *.cu) NQUEEN_KERNEL_SOURCE=$k "$BIN" "$@" ;;
        *) "$k" "$@" ;;
    esac
}

for k in "$@"; do
    # The first run compiles and caches the module, so that no timed run pays NVRTC.
    run "$k" --backend gpu fixtures/sample.in > /dev/null || { echo "$k: does not run" >&2; exit 1; }
done
echo "| board | kernel | wall s | kernel s | kernel / first | output |"
echo "|---|---|---|---|---|---|"
while IFS= read -r spec; do
    [ -n "$spec" ] || continue
    read -r board opts <<< "$spec"
    : > "$work/runs"
    for _ in $(seq "$ROUNDS"); do
        for k in "$@"; do
            start=$(date +%s%N)
            # shellcheck disable=SC2086 # opts holds several options
            run "$k" --backend gpu --stats $opts "fixtures/bench/$board.in" > "$work/out" 2> "$work/err"
            end=$(date +%s%N)
            kernel=$(grep -o 'kernel=[0-9.]*' "$work/err" | cut -d= -f2 | awk '{ s += $1 } END { print s + 0 }')
            echo "$k $(( (end - start) / 1000 )) $kernel $(md5sum < "$work/out" | cut -c1-8)" >> "$work/runs"
        done
    done
    python3 - "$spec" "$work/runs" <<'PY'
import collections, statistics, sys
spec, path = sys.argv[1], sys.argv[2]
runs, sums = collections.defaultdict(list), collections.defaultdict(set)
for line in open(path):
    kernel, wall_us, kernel_s, checksum = line.split()
    runs[kernel].append((int(wall_us) / 1e6, float(kernel_s)))
    sums[kernel].add(checksum)
first = None
for kernel, xs in runs.items():
    wall = statistics.median(x[0] for x in xs)
    time = statistics.median(x[1] for x in xs)
    first = time if first is None else first
    ratio = f"{time / first:.3f}" if first else "-"
    print(f"| {spec} | {kernel} | {wall:.3f} | {time:.3f} | {ratio} | {','.join(sorted(sums[kernel]))} |")
if len(set().union(*sums.values())) > 1:
    print(f"DIFFERENT OUTPUT: {spec}", file=sys.stderr)
    sys.exit(1)
PY
    [ $? -eq 0 ] || failures=1
done <<< "$BOARDS"
exit "$failures"
