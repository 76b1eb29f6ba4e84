#!/usr/bin/env python3
"""Times one shard of each record-size empty board on the GPU, one process each:

    scripts/gpu/shard_table.py [--nqueen BIN] [--sizes 23:256,24:2048,...] [--dry-run]

For each n:M, runs `nqueen --backend gpu --stats --shard K/M` on empty n (K drawn from a
fixed seed) and prints a markdown row: the process's wall time, the shard's planning and
kernel time, the process's peak RSS and the kernel's nodes per second. The default sizes
give shards of about five seconds of H100 time. With --dry-run, runs `--dry-run` instead
and prints the planning time and peak RSS alone (on any machine).
"""

import argparse
import random
import re
import resource
import subprocess
import tempfile
import time
from pathlib import Path

SIZES = '23:256,24:2048,25:16384,26:131072,27:1048576,28:8388608'


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--nqueen', default='target/release/nqueen')
    ap.add_argument('--sizes', default=SIZES)
    ap.add_argument('--dry-run', action='store_true')
    args = ap.parse_args()
    print('| n | shard | process wall s | plan s | kernel s | peak RSS MB | kernel nodes/s | nodes |')
    print('|---|---|---|---|---|---|---|---|')
    with tempfile.TemporaryDirectory() as tmp:
        for item in args.sizes.split(','):
            n, m = map(int, item.split(':'))
            k = random.Random(n).randrange(m)
            board = Path(tmp) / f'empty_{n}.in'
            board.write_text(f'{n}\n' + ('.' * n + '\n') * n)
            mode = ['--dry-run'] if args.dry_run else ['--backend', 'gpu', '--stats']
            before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
            t0 = time.perf_counter()
            done = subprocess.run([args.nqueen, *mode, '--shard', f'{k}/{m}', str(board)], capture_output=True, text=True)
            wall = time.perf_counter() - t0
            # ru_maxrss of children is the largest of any child so far: sizes go up, so
            # each row's is its own.
            rss = max(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, before) / 1024
            if done.returncode != 0:
                print(f'| {n} | {k}/{m} | failed ({done.returncode}): {done.stderr.strip()[-200:]} |')
                continue
            text = done.stderr + done.stdout
            field = lambda name: (re.search(rf'(?<![_\w]){name}"?[=:]"?([0-9.e+]+)', text) or [None, ''])[1]
            plan = field('plan') if not args.dry_run else field('seconds')
            kernel, nodes = field('kernel'), field('nodes')
            rate = f'{float(nodes) / float(kernel):.2e}' if kernel and nodes and not args.dry_run else ''
            print(f'| {n} | {k}/{m} | {wall:.2f} | {plan} | {kernel} | {rss:.0f} | {rate} | {nodes} |', flush=True)


if __name__ == '__main__':
    main()
