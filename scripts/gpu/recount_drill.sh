#!/usr/bin/env bash
# A record-size run in miniature, on one GPU host: an empty n×n board in M shards counted on
# the GPUs (one process per GPU, each a contiguous range of shards, as the tasks of a job
# array would), a share of the shards chosen by `nqueen recheck` counted again on the
# host's CPU, then the merge of both with its status and summary.
#
#   scripts/gpu/recount_drill.sh [N] [M] [SHARE] [DIR]      # defaults: 22 64 0.05 drill
#
# NQUEEN names the program (default target/release/nqueen); BACKEND=cpu counts the first
# pass on the CPU too, to try the drill on a machine without a GPU. Everything lands in DIR: the
# board, parts/, recheck.txt, recount/, status.txt, merge.txt (answers and what the merge
# said) and summary.json.
set -euo pipefail
n=${1:-22} m=${2:-64} share=${3:-0.05} dir=${4:-drill}
nqueen=${NQUEEN:-target/release/nqueen} backend=${BACKEND:-gpu}
mkdir -p "$dir/parts" "$dir/recount"
board=$dir/empty_$n.in
{
    echo "$n"
    for _ in $(seq "$n"); do printf '%*s\n' "$n" '' | tr ' ' '.'; done
} > "$board"
gpus=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU' || true)
[ "$gpus" -gt 0 ] || gpus=1
per=$(((m + gpus - 1) / gpus))
since() { awk "BEGIN { printf \"%.2f\", $(date +%s.%N) - $1 }"; }
started=$(date +%s.%N)
pids=()
for ((g = 0; g < gpus; g++)); do
    first=$((g * per)) last=$((g * per + per - 1))
    [ "$last" -lt "$m" ] || last=$((m - 1))
    CUDA_VISIBLE_DEVICES=$g "$nqueen" --backend "$backend" --shard "$first-$last/$m" "$board" > "$dir/parts/part-$g.jsonl" &
    pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; done
echo "first count: $m shards of empty $n, $backend, $gpus process(es), in $(since "$started") s"
"$nqueen" recheck --share "$share" --seed 1 "$dir"/parts/part-*.jsonl > "$dir/recheck.txt"
echo "recount: $(cat "$dir/recheck.txt")"
started=$(date +%s.%N)
"$nqueen" --backend cpu --shard "$(cat "$dir/recheck.txt")" "$board" > "$dir/recount/part-0.jsonl"
echo "CPU recount in $(since "$started") s"
"$nqueen" status "$dir"/parts/part-*.jsonl "$dir"/recount/part-*.jsonl > "$dir/status.txt" || true
cat "$dir/status.txt"
"$nqueen" merge --summary "$dir/summary.json" "$dir"/parts/part-*.jsonl "$dir"/recount/part-*.jsonl > "$dir/merge.txt" 2>&1
cat "$dir/merge.txt"
