#!/usr/bin/env python3
"""Times nqueen against the exercise's OpenMP baselines, side by side.

Builds benches/baseline/nqueen_omp.c twice with `cc -O2 -fopenmp` (load-balanced, and the
naive variant with -DNAIVE), then for every input file and thread count runs each program
in turn, round after round (alternating, so that drift in the machine's speed hits all
alike), checks that every output is identical, and prints a markdown table of median
seconds and ratios. Short runs get more rounds: up to 30, until every program has run for
--min-seconds in all, so that a 10 ms run is not judged on three noisy samples. The table
(compare.md), the raw times (compare.csv) and a plot of time against n for the empty
boards (compare.svg, log scale) go to --out (default target/compare).

  scripts/compare.py                  # fixtures/bench: empty 14..17 and the stress file
  scripts/compare.py --quick          # small inputs, one round: a smoke test (CI runs it)
  scripts/compare.py --threads 16 --inputs fixtures/bench/empty_18.in fixtures/bench/stress.in

Run from the repository root after `cargo build --release`.
"""
import argparse
import csv
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

BASELINE_SRC = Path('benches/baseline/nqueen_omp.c')
# The most rounds --min-seconds asks for.
MAX_ROUNDS = 30


def build_baselines(out):
    """Compiles both baselines into `out`; returns {name: path}."""
    out.mkdir(parents=True, exist_ok=True)
    built = {}
    for name, flags in (('baseline', []), ('naive', ['-DNAIVE'])):
        exe = out / f"nqueen_omp_{name}"
        subprocess.run(['cc', '-O2', '-fopenmp', *flags, str(BASELINE_SRC), '-o', str(exe)], check=True)
        built[name] = exe
    return built


def run_once(cmd, input_path, threads):
    """Runs `cmd` on `input_path` with `threads` threads; returns (seconds, stdout)."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    with open(input_path, 'rb') as stdin:
        start = time.perf_counter()
        done = subprocess.run(cmd, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{' '.join(map(str, cmd))} < {input_path} failed ({done.returncode}):\n{done.stderr.decode()}")
    return seconds, done.stdout


def board_size(path):
    """The n of the first board in a file (for the plot's x axis)."""
    with open(path) as f:
        for line in f:
            if line.strip():
                return int(line.split()[0])
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--inputs', nargs='*', type=Path)
    ap.add_argument('--threads', nargs='*', type=int)
    ap.add_argument('--runs', type=int, default=3, help='rounds of runs per input and thread count, at least')
    ap.add_argument('--min-seconds', type=float, default=1.0,
                    help='more rounds (up to 30) until every program has run this long in all')
    ap.add_argument('--programs', nargs='*', default=['nqueen', 'nqueen-plain', 'baseline', 'naive'],
                    help='nqueen (default options), nqueen-plain (--no-symmetry), baseline, naive')
    ap.add_argument('--nqueen', type=Path, default=Path('target/release/nqueen'))
    ap.add_argument('--nqueen-args', default='--backend cpu', help='extra arguments for nqueen (one string)')
    ap.add_argument('--quick', action='store_true', help='small inputs, one round: checks the pipeline, times nothing useful')
    ap.add_argument('--out', type=Path, default=Path('target/compare'))
    args = ap.parse_args()

    cores = os.cpu_count() or 1
    if args.quick:
        inputs = args.inputs or [Path('fixtures/bench/empty_14.in'), Path('fixtures/mixed_10_12.in')]
        threads = args.threads or [1, 2]
        runs, min_seconds = 1, 0.0
    else:
        inputs = args.inputs or [Path(f'fixtures/bench/empty_{n}.in') for n in (14, 15, 16, 17)] + [Path('fixtures/bench/stress.in')]
        threads = args.threads or sorted({1, 2, cores})
        runs, min_seconds = args.runs, args.min_seconds
    if not args.nqueen.exists():
        sys.exit(f"{args.nqueen} not found: run `cargo build --release` first")

    exes = build_baselines(args.out)
    extra = args.nqueen_args.split()
    commands = {
        'nqueen': lambda t: [str(args.nqueen), *extra, '--threads', str(t)],
        'nqueen-plain': lambda t: [str(args.nqueen), *extra, '--no-symmetry', '--threads', str(t)],
        'baseline': lambda t: [str(exes['baseline'])],
        'naive': lambda t: [str(exes['naive'])],
    }
    programs = [p for p in args.programs if p in commands]
    rows, raw = [], []
    for path in inputs:
        for t in threads:
            times = {p: [] for p in programs}
            outputs = {}
            rounds = 0
            while rounds < runs or (rounds < MAX_ROUNDS and min(sum(v) for v in times.values()) < min_seconds):
                rounds += 1
                for p in programs:
                    secs, out = run_once(commands[p](t), path, t)
                    times[p].append(secs)
                    outputs.setdefault(p, out)
                    if out != outputs[programs[0]]:
                        sys.exit(f"output differs: {p} vs {programs[0]} on {path} with {t} threads")
                    raw.append((str(path), t, p, f"{secs:.4f}"))
            med = {p: statistics.median(v) for p, v in times.items()}
            rows.append((path, t, med))
            print(f"{path} threads={t} " + ' '.join(f"{p}={med[p]:.3f}s" for p in programs), file=sys.stderr)

    head = '| input | threads | ' + ' | '.join(f"{p} (s)" for p in programs)
    head += ''.join(f" | baseline / {p}" for p in programs if p.startswith('nqueen')) + ' |'
    lines = [head, '|' + '---|' * (head.count('|') - 1)]
    for path, t, med in rows:
        cells = [path.name, str(t)] + [f"{med[p]:.3f}" for p in programs]
        if 'baseline' in med:
            cells += [f"{med['baseline'] / max(med[p], 1e-9):.2f}x" for p in programs if p.startswith('nqueen')]
        lines.append('| ' + ' | '.join(cells) + ' |')
    table = '\n'.join(lines)
    print(table)
    (args.out / 'compare.md').write_text(table + '\n')
    with open(args.out / 'compare.csv', 'w', newline='') as f:
        w = csv.writer(f)
        w.writerow(['input', 'threads', 'program', 'seconds'])
        w.writerows(raw)
    (args.out / 'compare.svg').write_text(plot(rows, programs, max(threads)))
    print(f"wrote {args.out}/compare.md, compare.csv and compare.svg", file=sys.stderr)


def plot(rows, programs, threads):
    """An SVG line plot of median seconds against n for the empty boards at `threads`."""
    series = {p: [] for p in programs}
    for path, t, med in rows:
        if t == threads and path.name.startswith('empty_'):
            for p in programs:
                series[p].append((board_size(path), med[p]))
    points = [pt for s in series.values() for pt in s]
    w, h, m = 640, 400, 60
    if not points:
        return f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}"><text x="20" y="40">no empty-board inputs to plot</text></svg>\n'
    xs = [x for x, _ in points]
    lo = math.floor(math.log10(max(min(y for _, y in points), 1e-4)))
    hi = math.ceil(math.log10(max(y for _, y in points)))
    hi = max(hi, lo + 1)
    x0, x1 = min(xs), max(max(xs), min(xs) + 1)
    px = lambda x: m + (x - x0) / (x1 - x0) * (w - 2 * m)
    py = lambda y: h - m - (math.log10(max(y, 1e-4)) - lo) / (hi - lo) * (h - 2 * m)
    colors = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd']
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">',
           f'<rect width="{w}" height="{h}" fill="white"/>',
           f'<text x="{w / 2}" y="20" text-anchor="middle">Empty n×n boards, {threads} threads: median seconds (log scale)</text>']
    for e in range(lo, hi + 1):
        y = py(10 ** e)
        out.append(f'<line x1="{m}" y1="{y:.1f}" x2="{w - m}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{m - 6}" y="{y + 4:.1f}" text-anchor="end">1e{e}</text>')
    for x in sorted(set(xs)):
        out.append(f'<text x="{px(x):.1f}" y="{h - m + 18}" text-anchor="middle">{x}</text>')
    out.append(f'<text x="{w / 2}" y="{h - 15}" text-anchor="middle">n</text>')
    for i, (p, pts) in enumerate(series.items()):
        pts.sort()
        c = colors[i % len(colors)]
        path = ' '.join(f"{px(x):.1f},{py(y):.1f}" for x, y in pts)
        out.append(f'<polyline points="{path}" fill="none" stroke="{c}" stroke-width="2"/>')
        out += [f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" fill="{c}"/>' for x, y in pts]
        out.append(f'<text x="{w - m + 4}" y="{m + 16 * i}" fill="{c}">{p}</text>')
    out.append('</svg>')
    return '\n'.join(out) + '\n'


if __name__ == '__main__':
    main()
