#!/usr/bin/env bash
# How runs end on a GPU machine, over thousands of short processes (no Rust needed there):
#
#   cargo build --release            # here
#   scripts/gpu/exit_stress.sh       # there, first thing on a freshly started machine
#
# Each run counts one of INPUTS (the two files that once ended in a crash at exit, empty 16
# and the sample) in one of these modes:
#   default, gpu (--backend gpu), stats (--stats): status 0;
#   closed: stdout's reader gone after the first byte: status 0;
#   sigint, sigterm: the signal at a random moment from 0 to 1 s: 0, or 130 / 143;
#   slow-exit: the default with scripts/gpu/slow_exit.c preloaded, whose destructor makes
#     the exit handlers last SLOW_EXIT_MS after the driver's own: a thread left inside the
#     driver at exit crashes there rather than rarely: status 0.
# on one card (CUDA_VISIBLE_DEVICES=0) or all, with the cards cold (each run starts once
# the last one's processes, the driver's teardown child included, have gone) or warm (runs
# back to back, WORKERS at once). Every answer is compared with --backend cpu's (a run
# stopped by a signal must print a prefix of them). Prints a table of exit statuses per
# mode, cards and temperature; fails (exit 1) on any other status or answer.
#
# RUNS (default 2000) is the number of runs in all, COLD of them cold (default a fifth); BIN the
# build (default target/release/nqueen); WORKERS the warm runs at once (default 8);
# STOP_AFTER, seconds after which no run starts (the table says how many ran); OLD_BIN an
# earlier build whose slow-exit runs on the crash cases are shown beside; OUT the folder for
# results (default target/exit-stress). Every run has scripts/gpu/catch_crash.c preloaded:
# a crash leaves its stacks in $OUT/crashes/crash.PID.txt (CRASH_GDB=/bin/false: the
# crashing thread's only, without cuda-gdb).
set -u
BIN=${BIN:-target/release/nqueen}
OUT=${OUT:-target/exit-stress}
RUNS=${RUNS:-2000}
WORKERS=${WORKERS:-8}
STOP_AFTER=${STOP_AFTER:-100000}
INPUTS=${INPUTS:-"scripts/gpu/exit-cases/judge9.in scripts/gpu/exit-cases/mixed14.in fixtures/bench/empty_16.in fixtures/sample.in"}
MODES="default gpu stats closed sigint sigterm slow-exit"
export NQUEEN_CACHE_DIR=${NQUEEN_CACHE_DIR:-/tmp/nqueen-cache}
mkdir -p "$OUT"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cards=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU')
nvidia-smi -L | tee "$OUT/device.txt"
"$BIN" --version | tee -a "$OUT/device.txt"
cc -shared -fPIC -O2 -o "$work/slow_exit.so" scripts/gpu/slow_exit.c || exit 1
cc -shared -fPIC -O1 -o "$work/catch_crash.so" scripts/gpu/catch_crash.c || exit 1
mkdir -p "$OUT/crashes"
export CRASH_DIR="$OUT/crashes"

# The reference answers, from the CPU.
for f in $INPUTS; do
    "$BIN" --backend cpu "$f" > "$work/$(basename "$f").want" || exit 1
done

# Waits until no nqueen process is left (the teardown child goes right after its parent).
settle() {
    local deadline=$((SECONDS + 10))
    while pgrep -x nqueen > /dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.01; done
}

# One run: mode $1, cards $2 (one or all), temperature $3, input $4, into results file $5.
one() {
    local mode=$1 cards=$2 temp=$3 f=$4 results=$5
    local out err status pid want ok expect
    [ $SECONDS -lt "$STOP_AFTER" ] || return 0
    out=$(mktemp -p "$work")
    err=$(mktemp -p "$work")
    want="$work/$(basename "$f").want"
    local env=(LD_PRELOAD="$work/catch_crash.so")
    [ "$cards" = one ] && env+=(CUDA_VISIBLE_DEVICES=0)
    case $mode in
        default) env "${env[@]}" "$BIN" "$f" > "$out" 2> "$err"; status=$? ;;
        gpu) env "${env[@]}" "$BIN" --backend gpu "$f" > "$out" 2> "$err"; status=$? ;;
        stats) env "${env[@]}" "$BIN" --stats "$f" > "$out" 2> "$err"; status=$? ;;
        slow-exit) env "${env[@]}" LD_PRELOAD="$work/catch_crash.so:$work/slow_exit.so" "$BIN" "$f" > "$out" 2> "$err"; status=$? ;;
        closed)
            env "${env[@]}" "$BIN" "$f" 2> "$err" | head -c 1 > /dev/null
            status=${PIPESTATUS[0]}
            ;;
        sigint | sigterm)
            env "${env[@]}" "$BIN" "$f" > "$out" 2> "$err" &
            pid=$!
            sleep "$(python3 -c 'import random; print(random.random())')"
            kill -s "${mode#sig}" "$pid" 2> /dev/null
            wait "$pid"
            status=$?
            ;;
    esac
    case $mode in
        sigint) expect="0 130" ;;
        sigterm) expect="0 143" ;;
        *) expect="0" ;;
    esac
    # The answers: all of them, or for a run that a signal or a closed pipe stopped, the
    # first ones, each whole.
    case $mode in
        closed) ok=1 ;;
        sigint | sigterm) python3 -c 'import sys; got, want = open(sys.argv[1]).read(), open(sys.argv[2]).read(); sys.exit(0 if want.startswith(got) and (got == "" or got.endswith("\n")) else 1)' "$out" "$want" && ok=1 || ok=0 ;;
        *) cmp -s "$out" "$want" && ok=1 || ok=0 ;;
    esac
    local expected=0
    for e in $expect; do [ "$status" = "$e" ] && expected=1; done
    echo "$mode $cards $temp $(basename "$f") $status $ok $expected" >> "$results"
    if [ "$expected" = 0 ] || [ "$ok" = 0 ]; then
        {
            echo "== $mode $cards $temp $f: status $status, answers $([ "$ok" = 1 ] && echo right || echo WRONG)"
            tail -5 "$err"
        } >> "$OUT/unexpected.log"
    fi
    rm -f "$out" "$err"
}

# The runs, as lines "mode cards temperature input", in a seeded order.
plan() {
    local n=$1 temp=$2
    python3 - "$n" "$temp" "$MODES" "$INPUTS" "$cards" << 'PY'
import random, sys
n, temp, modes, inputs, cards = int(sys.argv[1]), sys.argv[2], sys.argv[3].split(), sys.argv[4].split(), int(sys.argv[5] or 1)
rng = random.Random(58 + (temp == "warm"))
spans = ["one", "all"] if cards > 1 else ["all"]
for i in range(n):
    print(modes[i % len(modes)], spans[(i // len(modes)) % len(spans)], temp, rng.choice(inputs))
PY
}

cold=${COLD:-$((RUNS / 5))}
warm=$((RUNS - cold))
started=$SECONDS
# Cold first: the machine's first runs, when opening the cards takes longest.
plan "$cold" cold > "$work/cold.plan"
while read -r mode span temp f; do
    settle
    one "$mode" "$span" "$temp" "$f" "$work/results.cold"
done < "$work/cold.plan"
echo "cold: $cold runs in $((SECONDS - started)) s"
plan "$warm" warm > "$work/warm.plan"
split -n "r/$WORKERS" "$work/warm.plan" "$work/warm.part."
for part in "$work"/warm.part.*; do
    (while read -r mode span temp f; do one "$mode" "$span" "$temp" "$f" "$part.results"; done < "$part") &
done
wait
cat "$work"/warm.part.*.results > "$work/results.warm"
echo "all: $RUNS runs in $((SECONDS - started)) s"
cat "$work/results.cold" "$work/results.warm" > "$OUT/results.txt"

# An earlier build, where given: its slow exits on the crash cases.
if [ -n "${OLD_BIN:-}" ]; then
    for f in scripts/gpu/exit-cases/judge9.in scripts/gpu/exit-cases/mixed14.in; do
        for _ in 1 2 3 4 5; do
            settle
            LD_PRELOAD="$work/catch_crash.so:$work/slow_exit.so" "$OLD_BIN" "$f" > /dev/null 2>&1
            echo "old slow-exit $f: status $?" | tee -a "$OUT/old.txt"
        done
    done
fi
# The stacks of any crash, the crashing thread's first.
for c in "$OUT"/crashes/crash.*.txt; do
    [ -e "$c" ] && { echo "== $c"; grep -v '^[0-9a-f]*-[0-9a-f]* ' "$c" | grep -E '^===|^\S+\(|^#|^\* ' | head -30; }
done

python3 - "$OUT/results.txt" << 'PY' | tee "$OUT/table.md"
import collections, sys
rows = [l.split() for l in open(sys.argv[1])]
table = collections.OrderedDict()
for mode, span, temp, _, status, ok, expected in rows:
    t = table.setdefault((mode, span, temp), {"runs": 0, "statuses": collections.Counter(), "wrong": 0, "unexpected": 0})
    t["runs"] += 1
    t["statuses"][status] += 1
    t["wrong"] += ok == "0"
    t["unexpected"] += expected == "0"
print("| mode | cards | cards were | runs | exit statuses | unexpected | answers differ |")
print("|---|---|---|---|---|---|---|")
for (mode, span, temp), t in sorted(table.items()):
    statuses = ", ".join(f"{s}: {k}" for s, k in sorted(t["statuses"].items(), key=lambda x: int(x[0])))
    print(f"| {mode} | {span} | {temp} | {t['runs']} | {statuses} | {t['unexpected']} | {t['wrong']} |")
total = len(rows)
bad = sum(r[6] == "0" for r in rows) + sum(r[5] == "0" for r in rows)
print(f"\n{total} runs, {sum(r[6] == '0' for r in rows)} unexpected statuses, {sum(r[5] == '0' for r in rows)} answers that differ")
sys.exit(1 if bad else 0)
PY
