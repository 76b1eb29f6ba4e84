#!/usr/bin/env bash
# A record campaign in miniature, with faults injected at random from a seed, and every
# fault named or repaired: see scripts/campaign_drill.py (or --help) for what it does.
#
#   scripts/campaign_drill.sh --seed 3                        # empty 16 in 4,096 shards
#   scripts/campaign_drill.sh --seed 3 --n 18 --shards 8192 --tasks 64
#   scripts/campaign_drill.sh --slurm --seed 3                # its tasks on Slurm
#
# Exit status 0: the merge printed OEIS A000170's count, and no fault was silent.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
command -v python3 > /dev/null || { echo "campaign_drill: python3 is not installed" >&2; exit 2; }
exec python3 "$here/campaign_drill.py" "$@"
