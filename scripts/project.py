#!/usr/bin/env python3
"""Projects what counting an empty n x n board takes, from a seeded random sample of its shards.

    scripts/project.py run N M S [--seed 1] [--nqueen BIN] [--backend gpu] --out FILE
    scripts/project.py run N M --shards 0-127 [...] --out FILE
    scripts/project.py report FILE... [--sample S] [--seed 1] [--json]
    scripts/project.py parts FILE... > parts.jsonl        # then: nqueen merge parts.jsonl

`run` counts S shards of the M shards of empty N, drawn at random from the seed (or the
listed shards), in one nqueen process (`--shard k1,k2,.../M --stats`), and appends one JSON
line per shard to FILE: its count, nodes, kernel seconds, the shard's seconds from its
planning to its end, the device and the shard's part record; `parts` prints those
records back, for `nqueen merge`.

`report` groups the lines by (n, M) and, from each group's sample (all its lines, or, of
a group that holds every shard, S of them drawn by the seed), projects the whole board: device-hours (M times the mean
kernel time a shard on a GPU, or the mean time a shard on a CPU), search nodes and the count, each with a 95% interval from Student's t over
the sample. Where the lines hold every shard of M, it prints the measured totals beside
the projection; and where OEIS A000170 (fixtures/oeis/) knows the count, the known count.
With --json, it writes the projections as JSON lines instead (for scripts/plots.py).
"""

import argparse
import json
import math
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path

# Student's t, two-sided 95%, by degrees of freedom.
T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
       2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def t95(df):
    return T95[df - 1] if df <= len(T95) else 1.96 + 2.4 / df


def shard_list(text):
    out = []
    for item in text.split(','):
        a, _, b = item.partition('-')
        out.extend(range(int(a), int(b or a) + 1))
    return out


def sample(m, s, seed):
    return sorted(random.Random(seed).sample(range(m), min(s, m)))


def run(args):
    shards = shard_list(args.shards) if args.shards else sample(args.m, args.s, args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        board = Path(tmp) / f'empty_{args.n}.in'
        board.write_text(f'{args.n}\n' + ('.' * args.n + '\n') * args.n)
        listed = ','.join(map(str, shards))
        cmd = [args.nqueen, '--backend', args.backend, '--stats', '--shard', f'{listed}/{args.m}', str(board)]
        errors = Path(tmp) / 'stderr'
        with open(errors, 'w') as err, open(args.out, 'a') as out:
            proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, text=True)
            pending, written = [], 0

            def write(final):
                # A shard's stats line follows its record, so it is in by the next record.
                nonlocal pending, written
                stats = {int(m.group(1)): m.group(2) for m in re.finditer(r'shard (\d+)/\d+: (.*)', errors.read_text())}
                for r, line in pending:
                    s = stats.get(r['shard'])
                    if s is None and not final:
                        continue
                    out.write(json.dumps(row(args, r, s or '', line)) + '\n')
                    written += 1
                out.flush()
                pending = [(r, line) for r, line in pending if r['shard'] not in stats and not final]

            ends = []
            # Records are kept as the lines nqueen wrote: their digests are of those lines.
            for line in proc.stdout:
                r = json.loads(line)
                if r['record'] == 'case':
                    write(False)
                    pending.append((r, line.rstrip('\n')))
                else:
                    ends.append(line.rstrip('\n'))
            status = proc.wait()
            write(True)
            # The end of the input, for each shard: what a merge needs besides the cases.
            for r in ends:
                out.write(json.dumps({'n': args.n, 'shards': args.m, 'end': r}) + '\n')
        if status:
            sys.stderr.write(errors.read_text())
        print(f'{written} of {len(shards)} shards of empty {args.n} / {args.m} counted into {args.out}', file=sys.stderr)
        return status


def row(args, record, stats, line):
    """One shard's line of the results file, from its part record (parsed, and as the
    `line` nqueen wrote) and --stats line."""
    kernel = re.search(r'kernel=([0-9.]+)s', stats)
    device = re.search(r'backend=(\w+)\(([^;)]*)', stats)
    return {'n': args.n, 'shards': args.m, 'shard': record['shard'], 'count': record['count'], 'nodes': record['nodes'],
            'seconds': record['seconds'], 'kernel': float(kernel.group(1)) if kernel else None,
            'device': f'{device.group(1)}: {device.group(2)}' if device else record['backend'], 'seed': args.seed,
            'part': line}


def mean_ci(xs):
    n = len(xs)
    mean = sum(xs) / n
    if n < 2:
        return mean, float('nan'), float('nan')
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
    return mean, sd, t95(n - 1) * sd / math.sqrt(n)


def known_counts():
    path = Path(__file__).resolve().parent.parent / 'fixtures/oeis/A000170.txt'
    return {int(l.split()[0]): int(l.split()[1]) for l in path.read_text().splitlines() if l and not l.startswith('#')}


def report(args):
    rows = [r for f in args.files for l in open(f) if l.strip() for r in [json.loads(l)] if 'count' in r]
    groups = {}
    for r in rows:
        groups.setdefault((r['n'], r['shards']), {})[r['shard']] = r
    known = known_counts()
    out = []
    for (n, m), by_shard in sorted(groups.items()):
        drawn = sample(m, args.sample, args.seed) if args.sample and len(by_shard) == m else sorted(by_shard)
        missing = [k for k in drawn if k not in by_shard]
        if missing:
            print(f'empty {n} / {m}: the sample lacks shards {missing[:8]}...', file=sys.stderr)
            continue
        picked = [by_shard[k] for k in drawn]
        # The GPU's busy time, or a CPU count's whole time.
        kernel = [r['seconds'] if r['kernel'] is None else r['kernel'] for r in picked]
        k_mean, k_sd, k_ci = mean_ci(kernel)
        c_mean, _, c_ci = mean_ci([r['count'] for r in picked])
        n_mean, _, n_ci = mean_ci([r['nodes'] for r in picked])
        o_mean = sum(r['seconds'] - k for r, k in zip(picked, kernel)) / len(picked)
        p = {'n': n, 'shards': m, 'sample': len(picked), 'device': picked[0]['device'],
             'kernel_mean_s': k_mean, 'kernel_spread': k_sd / k_mean,
             'gpu_hours': m * k_mean / 3600, 'gpu_hours_ci': m * k_ci / 3600,
             'overhead_s': o_mean, 'nodes': m * n_mean, 'nodes_ci': m * n_ci,
             'nodes_per_s': sum(r['nodes'] for r in picked) / sum(kernel),
             'count': m * c_mean, 'count_ci': m * c_ci, 'known': known.get(n)}
        if len(by_shard) == m:
            every = by_shard.values()
            p['measured_gpu_hours'] = sum(r['seconds'] if r['kernel'] is None else r['kernel'] for r in every) / 3600
            p['measured_count'] = sum(r['count'] for r in every)
            p['measured_nodes'] = sum(r['nodes'] for r in every)
        out.append(p)
    if args.json:
        for p in out:
            print(json.dumps(p))
        return 0
    head = ['n', 'M', 'sample', 'device', 'seconds a shard (spread)', 'hours, projected (95%)', 'measured', 'nodes/s',
            'count, projected (95%)', 'known or measured']
    print('| ' + ' | '.join(head) + ' |')
    print('|' + '---|' * len(head))
    for p in out:
        measured = f"{p['measured_gpu_hours']:.4g}" if 'measured_gpu_hours' in p else ''
        truth = p.get('measured_count') or p['known']
        count = f"{p['count']:.4e} ± {p['count_ci'] / p['count']:.1%}"
        if truth:
            count += f" ({p['count'] / truth - 1:+.1%})"
        print(f"| {p['n']} | {p['shards']} | {p['sample']} | {p['device']} | {p['kernel_mean_s']:.2f} ({p['kernel_spread']:.0%}) | "
              f"{p['gpu_hours']:.4g} ± {p['gpu_hours_ci']:.2g} | {measured} | {p['nodes_per_s']:.2e} | {count} | "
              f"{truth if truth else 'unknown'} |")
    return 0


def parts(args):
    for f in args.files:
        for line in open(f):
            r = json.loads(line) if line.strip() else {}
            if 'part' in r or 'end' in r:
                record = r.get('part') or r['end']
                # Lines as nqueen wrote them; records of format 1 were kept parsed.
                print(record if isinstance(record, str) else json.dumps(record, separators=(',', ':')))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest='command', required=True)
    r = sub.add_parser('run', help='count a sample of shards')
    r.add_argument('n', type=int)
    r.add_argument('m', type=int)
    r.add_argument('s', type=int, nargs='?', default=16)
    r.add_argument('--shards', help='count these shards (e.g. 0-127) instead of a sample')
    r.add_argument('--seed', type=int, default=1)
    r.add_argument('--nqueen', default='target/release/nqueen')
    r.add_argument('--backend', default='gpu')
    r.add_argument('--out', required=True)
    p = sub.add_parser('report', help='project from counted shards')
    p.add_argument('files', nargs='+')
    p.add_argument('--sample', type=int, help='draw this many of each group that holds every shard, by the seed')
    p.add_argument('--seed', type=int, default=1)
    p.add_argument('--json', action='store_true')
    q = sub.add_parser('parts', help='print the part records of counted shards')
    q.add_argument('files', nargs='+')
    args = ap.parse_args()
    return {'run': run, 'report': report, 'parts': parts}[args.command](args)


if __name__ == '__main__':
    sys.exit(main())
