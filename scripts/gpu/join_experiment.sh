#!/usr/bin/env bash
# The GPU join experiment (scripts/gpu/join_experiment.cu) beside nqueen's search kernel, on
# a GPU machine with nvcc, from the repository root, with a built nqueen carried:
#
#   scripts/gpu/join_experiment.sh [OUT_DIR]
#
# First checks the experiment's counts against OEIS A000170 (n 8 to 14, several k, sorted
# and not), then, for each board below (n, the first row's free columns as a hex mask),
# counts it with `nqueen --backend gpu --no-symmetry --stats` (the same tree: no symmetry)
# and with the experiment at each k, and prints a table of the kernel's seconds against
# the experiment's device seconds (expansion, sort and join), each count checked against
# nqueen's. BOARDS overrides the list ("n mask k,k,... G" per line).
set -u
BIN=${BIN:-target/release/nqueen}
OUT_DIR=${1:-${OUT:-/tmp}}
BOARDS=${BOARDS:-"18 0 6,7,8 8,32
19 0 7,8 32
20 3ff 7,8 32
21 3 7,8 32
22 1 7,8 32"}
export NQUEEN_CACHE_DIR=${NQUEEN_CACHE_DIR:-/tmp/nqueen-cache}
exe=/tmp/join_experiment
nvcc -O3 -arch=sm_90 -std=c++17 -Xcompiler -fopenmp -o "$exe" scripts/gpu/join_experiment.cu || exit 1
log=$OUT_DIR/join_experiment.log
: > "$log"
failures=0

oeis=(1 1 0 0 2 10 4 40 92 352 724 2680 14200 73712 365596)
for n in 8 10 12 14; do
    for k in 4 6; do
        for sorted in 1 0; do
            line=$("$exe" "$n" "$k" 0 8 "$sorted") || { echo "experiment failed: $n $k" >&2; failures=$((failures + 1)); continue; }
            echo "$line" >> "$log"
            got=$(grep -o 'count=[0-9]*' <<< "$line" | cut -d= -f2)
            [ "$got" = "${oeis[$n]}" ] || { echo "wrong: n=$n k=$k sorted=$sorted: $got, OEIS ${oeis[$n]}" >&2; failures=$((failures + 1)); }
        done
    done
done
echo "OEIS checks done, $failures failures"

# A board of n whose first row has free cells in the mask's columns only.
board() {
    local n=$1 mask=$((16#$2)) c r
    [ "$mask" -eq 0 ] && mask=$(((1 << n) - 1))
    echo "$n"
    for ((c = 0; c < n; c++)); do if (((mask >> c) & 1)); then printf '.'; else printf '*'; fi; done
    echo
    for ((r = 1; r < n; r++)); do printf '%*s\n' "$n" '' | tr ' ' '.'; done
}

echo "| n | first row | nqueen kernel s | count | k | G | sorted | requests | table MB | build s | device s | expand / sort / join s | device / kernel |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
while read -r n mask ks gs; do
    [ -n "$n" ] || continue
    board "$n" "$mask" > /tmp/board.in
    "$BIN" --backend gpu --no-symmetry --stats /tmp/board.in > /tmp/out 2> /tmp/err
    count=$(sed -n 's/^Case 1: //p' /tmp/out)
    kernel=$(grep -o 'kernel=[0-9.]*' /tmp/err | cut -d= -f2 | awk '{ s += $1 } END { print s + 0 }')
    cat /tmp/err >> "$log"
    for k in ${ks//,/ }; do
        for g in ${gs//,/ }; do
            for sorted in 1 $([ "$k" = 7 ] && [ "$n" = 18 ] && echo 0); do
                line=$(timeout 200 "$exe" "$n" "$k" "$mask" "$g" "$sorted") || { echo "| $n | $mask | $kernel | $count | $k | $g | $sorted | failed or over 200 s |"; continue; }
                echo "$line" >> "$log"
                get() { grep -o " $1=[0-9.]*" <<< "$line" | cut -d= -f2; }
                got=$(get count)
                [ "$got" = "$count" ] || { echo "wrong: $line (nqueen $count)" >&2; failures=$((failures + 1)); }
                echo "| $n | $mask | $kernel | $count | $k | $g | $sorted | $(get requests) | $(awk -v b="$(get table_bytes)" 'BEGIN { printf "%.0f", b / 1e6 }') | $(get build_s) | $(get device_s) | $(get expand_s) / $(get sort_s) / $(get join_s) | $(awk -v d="$(get device_s)" -v k="$kernel" 'BEGIN { printf "%.2f", d / k }') |"
            done
        done
    done
done <<< "$BOARDS"
echo "$failures failures"
[ "$failures" -eq 0 ]
