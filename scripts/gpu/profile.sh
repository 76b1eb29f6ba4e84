#!/usr/bin/env bash
# Profiles the GPU kernel's counting launches with Nsight Compute, on a GPU machine (no Rust
# needed there):
#
#   cargo build --release            # here
#   scripts/gpu/profile.sh           # there, from the repository root
#
# For each board below, ncu profiles a few launches in the steady state (the first ones
# skipped: they pay for module loading and caches), and a table gives, per board and entry
# point, the mean over those launches of: the launch's time, the theoretical occupancy
# and what limits it, the warps active (achieved occupancy), the cycles that issued an
# instruction, the lanes busy per warp instruction (of 32), and the shares of the stall
# samples by reason. ncu replays each launch several times, so keep the launch counts
# small. BIN names the build (default target/release/nqueen), KERNEL a kernel source to
# compile instead of the built-in one (NQUEEN_KERNEL_SOURCE), BOARDS the list (one per
# line: a file under fixtures/bench without .in, the launches to skip and to profile, then
# nqueen options). With SOURCE=1 it also writes each board's per-instruction counters
# (SASS, executed and predicated-on thread instructions, stall samples) as CSV. Raw CSV
# goes to $OUT (default target/gpu-profile); the table is printed last.
set -u
BIN=${BIN:-target/release/nqueen}
OUT=${OUT:-target/gpu-profile}
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
BOARDS=${BOARDS:-"empty_20 10 3
empty_21 40 3
empty_20 10 3 --no-symmetry
density_19_10 4 3"}
mkdir -p "$OUT"
export NQUEEN_CACHE_DIR=${NQUEEN_CACHE_DIR:-/tmp/nqueen-cache}
[ -z "${KERNEL:-}" ] || export NQUEEN_KERNEL_SOURCE=$KERNEL

METRICS=gpu__time_duration.sum,sm__maximum_warps_per_active_cycle_pct,sm__warps_active.avg.pct_of_peak_sustained_active
METRICS=$METRICS,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__thread_inst_executed_per_inst_executed.ratio
METRICS=$METRICS,launch__occupancy_limit_shared_mem,launch__occupancy_limit_registers,launch__registers_per_thread
METRICS=$METRICS,launch__grid_size,launch__block_size,launch__shared_mem_per_block_dynamic,smsp__inst_executed.sum
STALLS="wait not_selected math_pipe_throttle short_scoreboard selected branch_resolving no_instructions long_scoreboard mio_throttle lg_throttle dispatch_stall"
METRICS=$METRICS,smsp__pcsamp_sample_count
for s in $STALLS; do METRICS=$METRICS,smsp__pcsamp_warps_issue_stalled_$s; done

# The first run compiles and caches the kernel, so that no profiled launch pays NVRTC.
"$BIN" --backend gpu fixtures/sample.in > /dev/null || { echo "$BIN does not run on the GPU" >&2; exit 1; }
"$BIN" --version > "$OUT/build.txt"
nvidia-smi -L >> "$OUT/build.txt"
i=0
while IFS= read -r spec; do
    [ -n "$spec" ] || continue
    read -r board skip count opts <<< "$spec"
    i=$((i + 1))
    name="$i-$board"
    echo "$board $opts" > "$OUT/$name.spec"
    # shellcheck disable=SC2086 # opts holds several options
    "$NCU" --clock-control none --kernel-name regex:'^count_prefixes' --launch-skip "$skip" --launch-count "$count" \
        --metrics "$METRICS" --csv --print-units base \
        "$BIN" --backend gpu --quiet $opts "fixtures/bench/$board.in" > "$OUT/$name.csv" 2> "$OUT/$name.log" \
        || { echo "ncu failed on $board $opts (see $OUT/$name.log)" >&2; continue; }
    if [ "${SOURCE:-0}" = 1 ]; then
        # shellcheck disable=SC2086
        "$NCU" --clock-control none --kernel-name regex:'^count_prefixes' --launch-skip "$skip" --launch-count 1 \
            --section SourceCounters -f -o "$OUT/$name" "$BIN" --backend gpu --quiet $opts "fixtures/bench/$board.in" \
            > /dev/null 2>> "$OUT/$name.log" \
            && "$NCU" --import "$OUT/$name.ncu-rep" --page source --csv --print-source sass > "$OUT/$name.source.csv" 2>> "$OUT/$name.log"
        rm -f "$OUT/$name.ncu-rep"
    fi
done <<< "$BOARDS"

python3 - "$OUT" "$STALLS" << 'PY'
import csv, glob, os, sys
from collections import defaultdict

out, stalls = sys.argv[1], sys.argv[2].split()
print("| board | entry point | launches | ms a launch | occupancy, theoretical (limit) | warps active | issue active | lanes of 32 | stalls: " + ", ".join(s.replace("_", " ") for s in stalls[:6]) + " |")
print("|---|---|---|---|---|---|---|---|---|")
for path in sorted(glob.glob(os.path.join(out, "*.csv")), key=lambda p: int(os.path.basename(p).split("-")[0])):
    if path.endswith(".source.csv"):
        continue
    spec = open(path[:-4] + ".spec").read().strip()
    rows = [r for r in csv.reader(l for l in open(path) if l.startswith('"'))]
    if not rows:
        print(f"| {spec} | (no launch profiled) | | | | | | | |")
        continue
    head = rows[0]
    col = {name: i for i, name in enumerate(head)}
    launches = defaultdict(dict)
    kernel = ""
    for r in rows[1:]:
        kernel = r[col["Kernel Name"]].split("(")[0]
        try:
            launches[r[col["ID"]]][r[col["Metric Name"]]] = float(r[col["Metric Value"]].replace(",", ""))
        except ValueError:
            pass
    mean = lambda m: sum(l.get(m, 0.0) for l in launches.values()) / len(launches)
    samples = mean("smsp__pcsamp_sample_count") or 1.0
    limit = "shared memory" if mean("launch__occupancy_limit_shared_mem") < mean("launch__occupancy_limit_registers") else "registers"
    share = ", ".join(f"{100 * mean('smsp__pcsamp_warps_issue_stalled_' + s) / samples:.1f}%" for s in stalls[:6])
    print(f"| {spec} | {kernel} | {len(launches)} | {mean('gpu__time_duration.sum') / 1e6:.2f} | "
          f"{mean('sm__maximum_warps_per_active_cycle_pct'):.1f}% ({limit}) | {mean('sm__warps_active.avg.pct_of_peak_sustained_active'):.1f}% | "
          f"{mean('smsp__issue_active.avg.pct_of_peak_sustained_active'):.1f}% | {mean('smsp__thread_inst_executed_per_inst_executed.ratio'):.2f} | {share} |")
PY
