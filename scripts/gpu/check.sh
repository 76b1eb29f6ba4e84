#!/usr/bin/env bash
# The whole GPU check in one go, for one call on a GPU machine (no Rust needed there):
#   1. the GPU backend on every fixture, long ones included, against the expected output;
#   2. the GPU against the CPU on a few hundred random boards (n 4..16, 0..40% obstacles),
#      with and without symmetry; the GPU's table of empty boards 4..19 (totals and unique
#      counts) against OEIS; shards of the random boards on the GPU merged against the CPU;
#      a checkpointed GPU run of empty 21x21 killed twice and resumed;
#   3. compute-sanitizer memcheck and racecheck over the GPU backend on small fixtures;
#   4. timings (process wall clock, compiled module cached, median of 3) of the benchmark
#      boards on the GPU and with the default backend, and (one run each) of the stress
#      file on the CPU and the OpenMP baseline, whose outputs must agree with the GPU's;
#   5. the default backend (auto) against --backend cpu and --backend gpu on boards near
#      its line (median of 5), with the backend it picked for each case.
# Fails (exit 1) on any difference. Results and logs go to $OUT (default target/gpu-check);
# the table is printed last.
#
#   cargo build --release            # here
#   scripts/gpu/check.sh             # there, from the repository root
#
# SKIP_SANITIZER=1 and SKIP_TIMING=1 leave those parts out, SKIP_STRESS_CPU=1 the stress
# file's CPU and baseline runs (about 5 minutes on 16 threads), SKIP_AUTO=1 part 5;
# TIMING_INPUTS and AUTO_INPUTS override the lists of inputs of parts 4 and 5, and
# OLD_BIN adds an earlier build's auto times to part 5.
set -u
BIN=${BIN:-target/release/nqueen}
OUT=${OUT:-target/gpu-check}
RUNS=${RUNS:-3}
mkdir -p "$OUT"
export NQUEEN_CACHE_DIR=${NQUEEN_CACHE_DIR:-/tmp/nqueen-cache}
work=$(mktemp -d)
failures=0
log() { echo "$@" | tee -a "$OUT/check.log"; }
fail() { log "FAIL: $*"; failures=$((failures + 1)); }

nvidia-smi -L | tee "$OUT/device.txt"
"$BIN" --version | tee -a "$OUT/device.txt"

log "== 1. fixtures on the GPU"
for f in fixtures/*.in fixtures/long/*.in fixtures/bench/judge.in; do
    if "$BIN" --backend gpu "$f" > "$work/got" 2>> "$OUT/check.log" && diff -q "$work/got" "${f%.in}.out" > /dev/null; then
        log "ok   $f"
    else
        fail "$f"
    fi
done

log "== 2. GPU against CPU on random boards"
python3 scripts/gen_boards.py --seed 3 --count 300 --n 4-16 --density 0-40 > "$work/random.in"
python3 scripts/gen_boards.py --seed 4 --count 40 --n 14-17 --density 0-20 > "$work/random_big.in"
for input in "$work/random.in" "$work/random_big.in"; do
    for sym in "" "--no-symmetry"; do
        "$BIN" --backend cpu $sym "$input" > "$work/cpu.out"
        if "$BIN" --backend gpu $sym "$input" > "$work/gpu.out" 2>> "$OUT/check.log" && diff -q "$work/cpu.out" "$work/gpu.out" > /dev/null; then
            log "ok   $(basename "$input") $sym: $(wc -l < "$work/gpu.out") cases agree"
        else
            fail "$(basename "$input") $sym: GPU and CPU differ"
            diff "$work/cpu.out" "$work/gpu.out" | head -5 | tee -a "$OUT/check.log"
        fi
    done
done

log "== 2b. unique counts, shards and checkpoints on the GPU"
"$BIN" table 4..19 --backend gpu > "$work/table.out" 2>> "$OUT/check.log"
if python3 - "$work/table.out" << 'PY'
import sys
oeis = lambda name: {int(l.split()[0]): int(l.split()[1]) for l in open(f"fixtures/oeis/{name}.txt") if not l.startswith("#")}
total, unique = oeis("A000170"), oeis("A002562")
rows = [l.split() for l in open(sys.argv[1]).read().splitlines()[1:]]
bad = [r for r in rows if (int(r[1]), int(r[2])) != (total[int(r[0])], unique[int(r[0])])]
sys.exit(1 if bad or len(rows) != 16 else 0)
PY
then
    log "ok   table 4..19 on the GPU matches A000170 and A002562"
else
    fail "table 4..19 on the GPU"
    cat "$work/table.out" | tee -a "$OUT/check.log"
fi
"$BIN" --backend cpu "$work/random_big.in" > "$work/cpu.out"
for k in 0 1 2 3; do "$BIN" --backend gpu --shard "$k/4" "$work/random_big.in" > "$work/part-$k.jsonl" 2>> "$OUT/check.log"; done
if "$BIN" merge "$work"/part-*.jsonl > "$work/merged.out" && diff -q "$work/cpu.out" "$work/merged.out" > /dev/null; then
    log "ok   4 GPU shards of random_big.in merge into the CPU's answers"
else
    fail "GPU shards of random_big.in"
fi
# Units are about two seconds of kernel: empty 21x21 (about 10 s) has several, so the
# kills leave some on disk for the resumed run to skip.
ckpt="$work/e21.ckpt"
for wait in 5 4; do
    "$BIN" --backend gpu --checkpoint "$ckpt" fixtures/bench/empty_21.in > /dev/null 2>&1 &
    sleep "$wait"
    kill -9 $! 2> /dev/null
    wait $! 2> /dev/null
done
units=$(grep -c '"unit"' "$ckpt")
log "checkpoint after two kills: $units units"
if [ "$units" -gt 0 ] && "$BIN" --backend gpu --checkpoint "$ckpt" --stats fixtures/bench/empty_21.in > "$work/e21.out" 2>> "$OUT/check.log" && [ "$(cat "$work/e21.out")" = "Case 1: 314666222712" ]; then
    log "ok   a GPU run killed twice resumes to the right count"
else
    fail "the resumed GPU run of empty_21 ($units units on disk)"
fi

if [ "${SKIP_SANITIZER:-0}" != 1 ]; then
    log "== 3. compute-sanitizer"
    for tool in memcheck racecheck; do
        if compute-sanitizer --tool "$tool" --error-exitcode 9 "$BIN" --backend gpu fixtures/sample.in fixtures/mixed_10_12.in > "$OUT/sanitizer-$tool.log" 2>&1; then
            log "ok   $tool: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitizer-$tool.log" | tail -1)"
        else
            fail "$tool (see sanitizer-$tool.log)"
            tail -20 "$OUT/sanitizer-$tool.log"
        fi
    done
fi

median() { python3 -c 'import statistics,sys; print(f"{statistics.median(float(x) for x in sys.argv[1:]):.3f}")' "$@"; }
# Wall seconds of one run of "$@" (stdout to $work/t.out, stderr to $work/t.err).
wall() {
    local t0 t1
    t0=$(date +%s.%N)
    "$@" > "$work/t.out" 2> "$work/t.err"
    t1=$(date +%s.%N)
    python3 -c "print($t1 - $t0)"
}
# Starts the markdown table in file $1 with the columns $2 ("a | b | c").
new_table() {
    echo "| $2 |" > "$1"
    echo "|$(echo "$2" | sed 's/[^|]*/---/g')|" >> "$1"
}
# Median of $RUNS wall-clock runs, after one run that fills the module cache.
timed() {
    local times=()
    "$@" > /dev/null 2>&1
    for _ in $(seq "$RUNS"); do times+=("$(wall "$@")"); done
    median "${times[@]}"
}

if [ "${SKIP_TIMING:-0}" != 1 ]; then
    log "== 4. timings"
    table="$OUT/table.md"
    new_table "$table" "input | mode | median wall s | kernel s | nodes/s | stats"
    for f in ${TIMING_INPUTS:-fixtures/bench/empty_17.in fixtures/bench/empty_18.in fixtures/bench/empty_19.in fixtures/bench/empty_20.in fixtures/bench/stress.in fixtures/bench/density_19_10.in fixtures/bench/mirror_17.in fixtures/bench/bottom_17.in}; do
        # The default backend too, so that a slow decision in auto shows.
        for mode in "gpu" "gpu --no-symmetry" "auto"; do
            # shellcheck disable=SC2086 # mode holds a backend and maybe an option
            secs=$(timed "$BIN" --backend $mode "$f")
            # shellcheck disable=SC2086
            "$BIN" --backend $mode --stats "$f" > /dev/null 2> "$work/stats"
            kernel=$(grep -o 'kernel=[0-9.]*' "$work/stats" | cut -d= -f2 | python3 -c 'import sys; print(f"{sum(float(x) for x in sys.stdin):.3f}")')
            rate=$(grep -o 'nodes/s=[0-9.e+]*' "$work/stats" | head -1 | cut -d= -f2)
            echo "| $(basename "$f") | $mode | $secs | ${kernel:-} | ${rate:-} | $(head -1 "$work/stats" | cut -c1-160 | tr '|' '/') |" >> "$table"
            log "timed $f $mode: $secs s"
        done
    done
    cc -O2 -fopenmp benches/baseline/nqueen_omp.c -o "$work/omp"
    threads=$(nproc)
    [ "${SKIP_STRESS_CPU:-0}" = 1 ] || for f in fixtures/bench/stress.in; do
        base=$(wall env OMP_NUM_THREADS="$threads" "$work/omp" < "$f")
        cp "$work/t.out" "$OUT/stress-baseline.out"
        cpu=$(wall "$BIN" --backend cpu "$f")
        gpu=$(timed "$BIN" --backend gpu "$f")
        "$BIN" --backend gpu "$f" > "$work/gpu.out"
        diff -q "$work/gpu.out" "$OUT/stress-baseline.out" > /dev/null || fail "stress: nqueen and the baseline differ"
        echo "| $(basename "$f") | OpenMP baseline, $threads threads (1 run) | $base | | | |" >> "$table"
        echo "| $(basename "$f") | nqueen cpu, $threads threads (1 run) | $cpu | | | |" >> "$table"
        echo "| $(basename "$f") | nqueen gpu | $gpu | | | baseline / gpu = $(python3 -c "print(f'{$base / $gpu:.1f}x')") |" >> "$table"
    done
    cat "$table"
fi

if [ "${SKIP_AUTO:-0}" != 1 ]; then
    log "== 5. auto against cpu and gpu"
    table="$OUT/auto.md"
    new_table "$table" "input | ${OLD_BIN:+old auto | }auto | cpu | gpu | auto picked"
    for f in ${AUTO_INPUTS:-fixtures/bench/judge.in fixtures/empty_1_16.in fixtures/bench/empty_16.in fixtures/bench/bottom_17.in fixtures/bench/mirror_17.in fixtures/bench/empty_17.in fixtures/bench/density_18_20.in fixtures/bench/empty_18.in fixtures/bench/density_18_10.in fixtures/bench/empty_19.in fixtures/bench/stress.in}; do
        # One run gives the answer to check and the backend picked for each case.
        "$BIN" --stats "$f" > "$work/auto.out" 2> "$work/auto.stats"
        diff -q "$work/auto.out" "${f%.in}.out" > /dev/null 2>&1 || [ ! -f "${f%.in}.out" ] || fail "$f: auto's answer differs"
        old=${OLD_BIN:+$(RUNS=5 timed "$OLD_BIN" "$f") | }
        picked=$(grep -o 'backend=[a-z]*' "$work/auto.stats" | cut -d= -f2 | sort | uniq -c | awk '{printf "%s%s %s", sep, $1, $2; sep=", "}')
        echo "| $(basename "$f") | $old$(RUNS=5 timed "$BIN" "$f") | $(RUNS=5 timed "$BIN" --backend cpu "$f") | $(RUNS=5 timed "$BIN" --backend gpu "$f") | $picked |" >> "$table"
    done
    cat "$table"
fi

rm -rf "$work"
log "== $failures failure(s)"
[ "$failures" -eq 0 ]
