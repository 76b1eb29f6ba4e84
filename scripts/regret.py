#!/usr/bin/env python3
"""How much `auto` loses against the better of the CPU and the GPU, board by board, or file by
file.

  regret.py run [--seed 1] [--count 320] [--part K/P] [--out regret.json]
  regret.py run --files [--seed 1] [--count 44] [--part K/P] [--out regret-files.json]
  regret.py run ... --old OTHER/nqueen      # and another build's auto beside this one's
  regret.py report regret.json [more.json ...]

`run` draws a seeded sweep of single boards over n = 4..32 (empty, symmetric under a random
group of the square's, sparse, dense, judge-size and large, 0 to 90% obstacles), keeps those
whose planner estimate (`nqueen --dry-run`) is under --max-nodes, and counts each board, one
process at a time, with `nqueen` (auto), `--backend cpu` and `--backend gpu`, the three in
turn and rotated, --reps times, and given the median (a board whose best takes under
--again seconds is run once; a backend whose first run takes --slow times the best is run
once, since it cannot be the best). Per board it keeps the process wall and the
`time=` of `--stats` for each backend, auto's choice and the count, which must be the same
from every backend. Each run starts once the last one's processes are gone (a GPU run's
driver teardown goes on in a child after it exits). --part K/P counts every P-th board from the K-th, to spread the sweep
over several calls; `report` joins the parts.

With --files, `run` counts whole files instead, each as one process: seeded judge files
(10 boards of n 15..19, 0 to 40% obstacles), files of 40 to 64 dense large boards (n
23..32, 55 to 90%), files of 1,000 to 20,000 tiny boards (n 4..12), mixed files (20 to 60
boards of the single-board kinds), and fixtures/bench's judge.in, stress.in and
many_small.in; --count is how many files in all, spread over the kinds, three at least of
each. Each file's text is kept by its SHA-256 and the seed that made it.

`report` prints each backend's total, auto's total against the per-board (or per-file)
best, the boards or files where auto loses most, and whether the targets hold: with a GPU,
auto's total within 3% of the per-board best and no board whose best takes 0.1 s or more at
over 1.25x of it (for files: 3%, and no file over 1.15x or over the best by more than 0.05
s); on a machine without one (give `--backends auto,cpu` to `run`), auto within 2% of the
CPU in all, and for files on every file. Each backend's figure is the median of its runs,
and its spread the range of the middle half of them (all of them, under four runs): a
board or file counts as over a line only where auto's median is over the best's by more
than the larger of the two spreads, since less cannot be told from the machine's noise.
"""
import argparse
import hashlib
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

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
    """The planner's estimate of the search nodes of each case of `path`."""
    out = subprocess.run([nqueen, '--dry-run', path], capture_output=True, text=True, check=True).stdout
    return [json.loads(line)['nodes'] for line in out.splitlines()]


# Kinds of file: kind, boards per file, n range, obstacle percent range, and the largest
# planner estimate a board of it may have (else --max-nodes; 0: any, for boards too small to
# need the bound, whose thousands of estimates would take minutes).
FILE_KINDS = [
    ('judge', (10, 10), (15, 19), (0, 40), None),
    ('dense', (40, 64), (23, 32), (55, 90), 1e9),
    ('tiny', (1000, 20000), (4, 12), (0, 40), 0),
    # Boards of every single-board kind, each light: a file is many of them.
    ('mixed', (20, 60), None, None, 2e8),
]
# Fixtures counted as they are, beside the drawn files.
FIXTURES = ['judge', 'stress', 'many_small']


def file_sweep(args, nqueen, workdir):
    """The files, each a dict with its path, in a fixed order: --count in all, fixtures first."""
    rng = random.Random(args.seed)
    files = [{'index': i, 'kind': 'fixture', 'name': f'fixtures/bench/{name}.in', 'file': os.path.join(ROOT, 'fixtures', 'bench', f'{name}.in')}
             for i, name in enumerate(FIXTURES)]
    per_kind = max(3, (args.count - len(FIXTURES)) // len(FILE_KINDS))
    for kind, sizes, n_range, density, most in FILE_KINDS:
        for _ in range(per_kind):
            boards = []
            for _ in range(rng.randint(*sizes)):
                if n_range is None:
                    single, _, board_n, board_density = rng.choice(KINDS[1:])
                    boards.append(draw(rng, single, board_n, board_density)[3])
                else:
                    boards.append(draw(rng, kind, n_range, density)[3])
            path = os.path.join(workdir, f'f{len(files)}.in')
            with open(path, 'w') as f:
                f.write(''.join(boards) + '0\n')
            # A board the sweep would not count alone makes the file too slow to count thrice.
            keep = boards if most == 0 else [b for b, nodes in zip(boards, estimate(nqueen, path)) if nodes <= (most or args.max_nodes)]
            with open(path, 'w') as f:
                f.write(''.join(keep) + '0\n')
            files.append({'index': len(files), 'kind': kind, 'boards': len(keep), 'file': path})
    for f in files:
        with open(f['file'], 'rb') as text:
            f['sha256'] = hashlib.sha256(text.read()).hexdigest()
    return files


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
                nodes = estimate(nqueen, path)[0]
                if nodes <= args.max_nodes:
                    break
            else:
                continue
            boards.append({'index': len(boards), 'kind': kind, 'n': n, 'obstacles': obstacles, 'group': group,
                           'estimated_nodes': nodes, 'file': path})
    return boards


# The --stats fields kept beside the time: where a count's time went.
DETAIL = ('plan', 'cpu-race', 'gpu-open-wait', 'gpu-prefixes', 'kernel', 'gpu-open-began', 'gpu-open-took')


def quiet(programs, patience=5.0):
    """Waits until no process of `programs` is left: a GPU run's driver teardown goes on in a
    child after it exits, and a GPU opened meanwhile opens slower (BENCHMARKS.md)."""
    names = {os.path.basename(p)[:15] for p in programs}
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
            left = left or (comm in names and state != 'Z')
        if not left:
            return
        time.sleep(0.005)


def count(programs, backend, path):
    """(process wall, --stats time, backend that counted, count, DETAIL fields) of one run of
    `backend`: auto, cpu, gpu, or old (another build's auto, `programs['old']`)."""
    quiet(programs.values())
    nqueen = programs.get(backend, programs['auto'])
    command = [nqueen, '--stats', path] + ([] if backend in ('auto', 'old') else ['--backend', backend])
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f'{" ".join(command)} exited {done.returncode}: {done.stderr.strip()}')
    # A file's cases: the time of each, which backend took how many, and the first case's detail.
    lines = [line for line in done.stderr.splitlines() if ' backend=' in line]
    fields = [dict(f.split('=', 1) for f in line.split(' ') if '=' in f and not f.startswith('backend=')) for line in lines]
    backends = [line.split('backend=', 1)[1].split(' orientation=')[0].split('(')[0] for line in lines]
    counted_by = ', '.join(f'{backends.count(b)} {b}' for b in sorted(set(backends))) if len(lines) > 1 else lines[0].split('backend=', 1)[1].split(' orientation=')[0]
    detail = {k: float(fields[0][k].rstrip('s')) for k in DETAIL if k in fields[0]}
    # Whether any case saw the GPU open, used or not: an opening costs the CPU's side too.
    detail['gpu-opened'] = float(any('gpu-open-took=' in line for line in lines))
    return wall, sum(float(f['time'].rstrip('s')) for f in fields), counted_by, done.stdout.strip(), detail


def run(args):
    nqueen = os.path.abspath(args.nqueen)
    backends = args.backends.split(',') + (['old'] if args.old else [])
    programs = {'auto': nqueen, **({'old': os.path.abspath(args.old)} if args.old else {})}
    k, p = map(int, args.part.split('/'))
    what = 'files' if args.files else 'boards'
    with tempfile.TemporaryDirectory() as workdir:
        started = time.time()
        boards = file_sweep(args, nqueen, workdir) if args.files else sweep(args, nqueen, workdir)
        print(f'{len(boards)} {what} drawn and estimated in {time.time() - started:.1f} s', file=sys.stderr)
        if args.kinds:
            boards = [b for b in boards if b['kind'] in args.kinds.split(',')]
        mine = boards[k::p]
        for i, b in enumerate(mine):
            runs = {name: [] for name in backends}
            order = backends[i % len(backends):] + backends[:i % len(backends)]
            for rep in range(args.reps):
                # A backend already far behind the best is not the best: once is enough.
                best = min((statistics.median(r[0] for r in runs[name]) for name in backends if runs[name]), default=0.0)
                for name in order:
                    if rep == 0 or name in ('auto', 'old') or statistics.median(r[0] for r in runs[name]) <= args.slow * best:
                        runs[name].append(count(programs, name, b['file']))
                best = min(statistics.median(r[0] for r in runs[name]) for name in backends if name not in ('auto', 'old'))
                if rep == 0 and best < args.again:
                    break
            answers = {r[3] for rs in runs.values() for r in rs}
            if len(answers) != 1:
                sys.exit(f'{what[:-1]} {b["index"]} ({b["kind"]}): backends disagree')
            answer = answers.pop()
            if args.files:
                b['answers'] = hashlib.sha256(answer.encode()).hexdigest()
            else:
                b['count'] = answer.split(': ', 1)[1]
            b['runs'] = len(runs[backends[0]])
            for name in backends:
                middle = sorted(runs[name])[len(runs[name]) // 2]
                b[name] = {'wall': middle[0], 'stats': statistics.median(r[1] for r in runs[name]), 'backend': middle[2],
                           'walls': [round(r[0], 4) for r in runs[name]], 'detail': middle[4],
                           'opened': sum(int(r[4]['gpu-opened']) for r in runs[name])}
            path = b.pop('file')
            if not args.files:
                with open(path) as f:
                    b['board'] = f.read()
            print(f'{i + 1}/{len(mine)} {what[:-1]} {b["index"]} {b["kind"]}: ' +
                  ' '.join(f'{name} {b[name]["wall"]:.3f}' for name in backends), file=sys.stderr, flush=True)
            # Written after every board, so that a run stopped midway keeps what it measured.
            result = {'record': 'regret-files' if args.files else 'regret', 'seed': args.seed, 'count': args.count, 'part': args.part,
                      'kinds': args.kinds, 'max_nodes': args.max_nodes, 'nqueen': version(nqueen),
                      'machine': platform.node(), 'cpus': os.cpu_count(), 'backends': backends, what: mine[:i + 1],
                      **({'old': version(programs['old'])} if args.old else {})}
            with open(args.out, 'w') as f:
                json.dump(result, f, indent=1)
    report([args.out])


def version(program):
    return subprocess.run([program, '--version'], capture_output=True, text=True).stdout.strip()


def spread(walls):
    """The range of the middle half of `walls` (all of them, under four)."""
    if len(walls) < 4:
        return max(walls) - min(walls)
    q1, _, q3 = statistics.quantiles(walls, n=4, method='inclusive')
    return q3 - q1


def over(b, line, by=0.0):
    """Whether auto's median is over `line` times the best's, or over it by more than `by`
    seconds, by more than the two backends' spread."""
    gap = b['auto']['wall'] - b['best']
    beyond = max(spread(b['auto']['walls']), spread(b[b['best_by']]['walls']))
    return gap > beyond and (b['ratio'] > line or (by > 0 and gap > by))


def report(files):
    parts = [json.load(open(f)) for f in files]
    what = 'files' if parts[0]['record'] == 'regret-files' else 'boards'
    boards = sorted((b for p in parts for b in p[what]), key=lambda b: b['index'])
    backends = parts[0]['backends']
    others = [name for name in backends if name not in ('auto', 'old')]
    for b in boards:
        b['best_by'] = min(others, key=lambda name: b[name]['wall'])
        b['best'] = b[b['best_by']]['wall']
        b['ratio'] = b['auto']['wall'] / b['best']
    total = {name: sum(b[name]['wall'] for b in boards) for name in backends}
    best = sum(b['best'] for b in boards)
    one, line = what[:-1], 1.15 if what == 'files' else 1.25
    print(f'{len(boards)} {what} ({", ".join(sorted({p["machine"] for p in parts}))}, {parts[0]["cpus"]} CPUs, {parts[0]["nqueen"]})')
    print('process wall, seconds: ' + ', '.join(f'{name} {total[name]:.2f}' for name in backends) + f', per-{one} best {best:.2f}')
    print(f'auto / per-{one} best: {total["auto"] / best:.3f}' +
          (f'; the old build\'s auto ({parts[0]["old"]}): {total["old"] / best:.3f}' if 'old' in backends else ''))
    heavy = [b for b in boards if b['best'] >= 0.1]
    shape = (lambda b: f'{b["boards"]} boards' if 'boards' in b else b['name']) if what == 'files' else (lambda b: f'{b["n"]} | {b["obstacles"]}')
    columns = 'cases' if what == 'files' else 'n | obstacles'
    for title, chosen in [(f'worst {what}', boards), (f'worst {what} whose best takes 0.1 s or more', heavy)]:
        print(f'\n{title}, auto / best (process wall, seconds):')
        old = ' old auto | old ratio |' if 'old' in backends else ''
        print(f'| {one} | kind | {columns} | best | auto (spread) | ratio | auto took |{old} ' + ' | '.join(others) + ' |')
        print('|---' * (7 + columns.count('|') + 1 + len(others) + 2 * ('old' in backends)) + '|')
        for b in sorted(chosen, key=lambda b: -b['ratio'])[:8]:
            took = b['auto']['backend'].split('(')[0] + (f' (GPU opened {b["auto"]["opened"]}/{b["runs"]})' if b['auto'].get('opened') else '')
            old = f' {b["old"]["wall"]:.3f} | {b["old"]["wall"] / b["best"]:.2f} |' if 'old' in backends else ''
            print(f'| {b["index"]} | {b["kind"]} | {shape(b)} | {b["best"]:.3f} | {b["auto"]["wall"]:.3f} ({spread(b["auto"]["walls"]):.3f}) | '
                  f'{b["ratio"]:.2f} | {took} |{old} ' + ' | '.join(f'{b[name]["wall"]:.3f} ({spread(b[name]["walls"]):.3f})' for name in others) + ' |')
    by = 0.05 if what == 'files' else 0.0
    beyond = [b for b in heavy if over(b, line, by)]
    within_noise = [b for b in heavy if b['ratio'] > line and not over(b, line, by)]
    if 'gpu' in backends:
        print(f'\ntarget, auto within 3% of the per-{one} best: {"met" if total["auto"] <= 1.03 * best else "MISSED"}'
              f' ({100 * (total["auto"] / best - 1):+.1f}%)')
        rule = f'over {line}x' + (f' or {by} s' if by else '')
        print(f'{what} whose best takes 0.1 s or more: {len(heavy)}; of them {rule} beyond the spread: {len(beyond)}'
              + (' (' + ', '.join(str(b['index']) for b in beyond) + ')' if beyond else '')
              + (f'; over {line}x within the spread: ' + ', '.join(str(b['index']) for b in within_noise) if within_noise else ''))
    else:
        print(f'\ntarget, auto within 2% of the CPU: {"met" if total["auto"] <= 1.02 * total["cpu"] else "MISSED"}'
              f' ({100 * (total["auto"] / total["cpu"] - 1):+.1f}%)')
        if what == 'files':
            worst = max(boards, key=lambda b: b['auto']['wall'] / b['cpu']['wall'])
            print(f'worst file against the CPU: {worst["index"]} ({worst["kind"]}), '
                  f'{worst["auto"]["wall"] / worst["cpu"]["wall"]:.3f}')


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest='verb', required=True)
    r = sub.add_parser('run')
    r.add_argument('--seed', type=int, default=1)
    r.add_argument('--files', action='store_true', help='whole files instead of single boards')
    r.add_argument('--count', type=int, help='boards beside the empty ones, spread over the kinds as in KINDS (default 320);'
                   ' with --files, files in all (default 44)')
    r.add_argument('--max-nodes', type=float, default=1e10, help='the largest planner estimate a board may have')
    r.add_argument('--backends', default='auto,cpu,gpu')
    r.add_argument('--reps', type=int, default=3)
    r.add_argument('--again', type=float, default=0.0, help='seconds of the best from which a board is run --reps times')
    r.add_argument('--slow', type=float, default=float('inf'),
                   help='a backend whose first run takes this many times the best is run once only (auto is always run --reps times)')
    r.add_argument('--part', default='0/1')
    r.add_argument('--kinds', help='only the boards or files of these kinds (comma-separated), as drawn among all')
    r.add_argument('--nqueen', default='target/release/nqueen')
    r.add_argument('--old', help="another build, whose auto is run beside this one's (as 'old')")
    r.add_argument('--out', default='regret.json')
    p = sub.add_parser('report')
    p.add_argument('files', nargs='+')
    args = ap.parse_args()
    if args.verb == 'run' and args.count is None:
        args.count = 44 if args.files else 320
    if args.verb == 'run':
        run(args)
    else:
        report(args.files)


if __name__ == '__main__':
    main()
