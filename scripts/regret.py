#!/usr/bin/env python3
"""How much `auto` loses against the better of the CPU and the GPU, board by board.

  regret.py run [--seed 1] [--count 320] [--part K/P] [--out regret.json]
  regret.py report regret.json [more.json ...]

`run` draws a seeded sweep of single boards over n = 4..32 (empty, symmetric under a random
group of the square's, sparse, dense, judge-size and large, 0 to 90% obstacles), keeps those
whose planner estimate (`nqueen --dry-run`) is under --max-nodes, and counts each board, one
process at a time, with `nqueen` (auto), `--backend cpu` and `--backend gpu`, the three in
turn and rotated, --reps times, and given the median (a board whose best takes under
--again seconds is run once). Per board it keeps the process wall and the
`time=` of `--stats` for each backend, auto's choice and the count, which must be the same
from every backend. Each run starts once the last one's processes are gone (a GPU run's
driver teardown goes on in a child after it exits). --part K/P counts every P-th board from the K-th, to spread the sweep
over several calls; `report` joins the parts.

`report` prints each backend's total, auto's total against the per-board best, the boards
where auto loses most, and whether the targets hold: with a GPU, auto's total within 3% of
the per-board best and no board whose best takes 0.1 s or more at over 1.25x of it. On a
machine without one, give `--backends auto,cpu` to `run`: auto is then held to the CPU.
"""
import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time

KINDS = [
    # kind, boards, n range, obstacle percent range
    ('empty', None, (4, 19), (0, 0)),
    ('symmetric', 50, (8, 22), (0, 40)),
    ('sparse', 60, (8, 22), (1, 10)),
    ('dense', 60, (16, 32), (30, 90)),
    ('judge', 80, (12, 18), (0, 20)),
    ('large', 54, (19, 32), (10, 50)),
]
# Each group of the square's symmetries, as the cell maps that generate it.
GROUPS = {
    'mirror': ['flip'],
    'rot180': ['rot180'],
    'rot90': ['rot90'],
    'diagonal': ['transpose'],
    'mirrors': ['flip', 'rot180'],
    'D4': ['rot90', 'flip'],
}


def image(move, n, r, c):
    """Where `move` takes cell (r, c) of an n×n board."""
    return {'flip': (r, n - 1 - c), 'rot180': (n - 1 - r, n - 1 - c), 'rot90': (c, n - 1 - r), 'transpose': (c, r)}[move]


def board_text(n, blocked):
    rows = [''.join('*' if (r, c) in blocked else '.' for c in range(n)) for r in range(n)]
    return f'{n}\n' + '\n'.join(rows) + '\n'


def draw(rng, kind, n_range, density):
    n = rng.randint(*n_range)
    p = rng.randint(*density) / 100
    blocked = {(r, c) for r in range(n) for c in range(n) if rng.random() < p}
    group = None
    if kind == 'symmetric':
        group = rng.choice(sorted(GROUPS))
        # The orbit of every blocked cell, so that the board keeps the group.
        todo, seen = list(blocked), set(blocked)
        while todo:
            r, c = todo.pop()
            for move in GROUPS[group]:
                cell = image(move, n, r, c)
                if cell not in seen:
                    seen.add(cell)
                    todo.append(cell)
        blocked = seen
    return n, len(blocked), group, board_text(n, blocked)


def estimate(nqueen, path):
    out = subprocess.run([nqueen, '--dry-run', path], capture_output=True, text=True, check=True).stdout
    return json.loads(out.splitlines()[0])['nodes']


def sweep(args, nqueen, workdir):
    """The boards, each a dict with its file, in a fixed order."""
    rng = random.Random(args.seed)
    boards = []
    for kind, count, n_range, density in KINDS:
        if kind == 'empty':
            todo = [(n, (n, n)) for n in range(n_range[0], n_range[1] + 1)]
        else:
            todo = [(None, n_range)] * round(count * args.count / 320)
        for _, n_range_one in todo:
            for _ in range(50):
                n, obstacles, group, text = draw(rng, kind, n_range_one, density)
                path = os.path.join(workdir, f'b{len(boards)}.in')
                with open(path, 'w') as f:
                    f.write(text)
                nodes = estimate(nqueen, path)
                if nodes <= args.max_nodes:
                    break
            else:
                continue
            boards.append({'index': len(boards), 'kind': kind, 'n': n, 'obstacles': obstacles, 'group': group,
                           'estimated_nodes': nodes, 'file': path})
    return boards


# The --stats fields kept beside the time: where a count's time went.
DETAIL = ('plan', 'cpu-race', 'gpu-open-wait', 'gpu-prefixes', 'kernel', 'gpu-open-began', 'gpu-open-took')


def quiet(nqueen, patience=5.0):
    """Waits until no process of `nqueen` is left: a GPU run's driver teardown goes on in a
    child after it exits, and a GPU opened meanwhile opens slower (BENCHMARKS.md)."""
    name = os.path.basename(nqueen)[:15]
    deadline = time.time() + patience
    while time.time() < deadline:
        left = False
        for pid in filter(str.isdigit, os.listdir('/proc')):
            try:
                with open(f'/proc/{pid}/stat') as f:
                    stat = f.read()
            except OSError:
                continue
            # "PID (COMM) STATE ...": a zombie nobody reaps holds nothing.
            comm, state = stat[stat.index('(') + 1:stat.rindex(')')], stat[stat.rindex(')') + 2:][:1]
            left = left or (comm == name and state != 'Z')
        if not left:
            return
        time.sleep(0.005)


def count(nqueen, backend, path):
    """(process wall, --stats time, backend that counted, count, DETAIL fields) of one run."""
    quiet(nqueen)
    command = [nqueen, '--stats', path] + ([] if backend == 'auto' else ['--backend', backend])
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f'{" ".join(command)} exited {done.returncode}: {done.stderr.strip()}')
    stats = done.stderr.strip().splitlines()[-1]
    fields = dict(f.split('=', 1) for f in stats.split(' ') if '=' in f and not f.startswith('backend='))
    counted_by = stats.split('backend=', 1)[1].split(' orientation=')[0]
    detail = {k: float(fields[k].rstrip('s')) for k in DETAIL if k in fields}
    return wall, float(fields['time'].rstrip('s')), counted_by, done.stdout.strip(), detail


def run(args):
    nqueen = os.path.abspath(args.nqueen)
    backends = args.backends.split(',')
    k, p = map(int, args.part.split('/'))
    with tempfile.TemporaryDirectory() as workdir:
        started = time.time()
        boards = sweep(args, nqueen, workdir)
        print(f'{len(boards)} boards drawn and estimated in {time.time() - started:.1f} s', file=sys.stderr)
        mine = boards[k::p]
        for i, b in enumerate(mine):
            runs = {name: [] for name in backends}
            order = backends[i % len(backends):] + backends[:i % len(backends)]
            for rep in range(args.reps):
                for name in order:
                    runs[name].append(count(nqueen, name, b['file']))
                best = min(statistics.median(r[0] for r in runs[name]) for name in backends)
                if rep == 0 and best < args.again:
                    break
            answers = {r[3] for rs in runs.values() for r in rs}
            if len(answers) != 1:
                sys.exit(f'board {b["index"]} ({b["kind"]}, n={b["n"]}): backends disagree: {answers}')
            b['count'] = answers.pop().split(': ', 1)[1]
            b['runs'] = len(runs[backends[0]])
            for name in backends:
                middle = sorted(runs[name])[len(runs[name]) // 2]
                b[name] = {'wall': middle[0], 'stats': statistics.median(r[1] for r in runs[name]), 'backend': middle[2],
                           'walls': [round(r[0], 4) for r in runs[name]], 'detail': middle[4]}
            with open(b.pop('file')) as f:
                b['board'] = f.read()
            print(f'{i + 1}/{len(mine)} board {b["index"]} {b["kind"]} n={b["n"]}: ' +
                  ' '.join(f'{name} {b[name]["wall"]:.3f}' for name in backends), file=sys.stderr, flush=True)
    result = {'record': 'regret', 'seed': args.seed, 'count': args.count, 'part': args.part, 'max_nodes': args.max_nodes,
              'nqueen': subprocess.run([nqueen, '--version'], capture_output=True, text=True).stdout.strip(),
              'machine': platform.node(), 'cpus': os.cpu_count(), 'backends': backends, 'boards': mine}
    with open(args.out, 'w') as f:
        json.dump(result, f, indent=1)
    report([args.out])


def report(files):
    parts = [json.load(open(f)) for f in files]
    boards = sorted((b for p in parts for b in p['boards']), key=lambda b: b['index'])
    backends = parts[0]['backends']
    others = [name for name in backends if name != 'auto']
    for b in boards:
        b['best'] = min(b[name]['wall'] for name in others)
        b['ratio'] = b['auto']['wall'] / b['best']
    total = {name: sum(b[name]['wall'] for b in boards) for name in backends}
    best = sum(b['best'] for b in boards)
    print(f'{len(boards)} boards ({", ".join(sorted({p["machine"] for p in parts}))}, {parts[0]["cpus"]} CPUs, {parts[0]["nqueen"]})')
    print('process wall, seconds: ' + ', '.join(f'{name} {total[name]:.2f}' for name in backends) + f', per-board best {best:.2f}')
    print(f'auto / per-board best: {total["auto"] / best:.3f}')
    heavy = [b for b in boards if b['best'] >= 0.1]
    for title, chosen in [('worst boards', boards), ('worst boards whose best takes 0.1 s or more', heavy)]:
        print(f'\n{title}, auto / best (process wall, seconds):')
        print('| board | kind | n | obstacles | best | auto | ratio | auto took | ' + ' | '.join(others) + ' |')
        print('|---' * (8 + len(others)) + '|')
        for b in sorted(chosen, key=lambda b: -b['ratio'])[:8]:
            took = b['auto']['backend'].split('(')[0]
            print(f'| {b["index"]} | {b["kind"]} | {b["n"]} | {b["obstacles"]} | {b["best"]:.3f} | {b["auto"]["wall"]:.3f} | '
                  f'{b["ratio"]:.2f} | {took} | ' + ' | '.join(f'{b[name]["wall"]:.3f}' for name in others) + ' |')
    over = [b for b in heavy if b['ratio'] > 1.25]
    if 'gpu' in backends:
        print(f'\ntarget, auto within 3% of the per-board best: {"met" if total["auto"] <= 1.03 * best else "MISSED"}'
              f' ({100 * (total["auto"] / best - 1):+.1f}%)')
    else:
        print(f'\ntarget, auto within 2% of the CPU: {"met" if total["auto"] <= 1.02 * total["cpu"] else "MISSED"}'
              f' ({100 * (total["auto"] / total["cpu"] - 1):+.1f}%)')
    print(f'boards whose best takes 0.1 s or more: {len(heavy)}; of them over 1.25x: {len(over)}'
          + (' (' + ', '.join(str(b['index']) for b in over) + ')' if over else ''))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest='verb', required=True)
    r = sub.add_parser('run')
    r.add_argument('--seed', type=int, default=1)
    r.add_argument('--count', type=int, default=320, help='boards beside the empty ones, spread over the kinds as in KINDS')
    r.add_argument('--max-nodes', type=float, default=1e10, help='the largest planner estimate a board may have')
    r.add_argument('--backends', default='auto,cpu,gpu')
    r.add_argument('--reps', type=int, default=3)
    r.add_argument('--again', type=float, default=0.0, help='seconds of the best from which a board is run --reps times')
    r.add_argument('--part', default='0/1')
    r.add_argument('--nqueen', default='target/release/nqueen')
    r.add_argument('--out', default='regret.json')
    p = sub.add_parser('report')
    p.add_argument('files', nargs='+')
    args = ap.parse_args()
    if args.verb == 'run':
        run(args)
    else:
        report(args.files)


if __name__ == '__main__':
    main()
