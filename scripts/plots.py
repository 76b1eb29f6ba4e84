#!/usr/bin/env python3
"""Draws BENCHMARKS.md's pictures from the results files under docs/results/.

    scripts/plots.py [--results docs/results] [--out docs]

- time-vs-n.svg: seconds against n, log scale, one line per program and machine, from
  timings.csv (series, n, seconds, machine, date, source); points with a published
  source are drawn hollow.
- projection.svg: H100-hours to count empty n x n boards, log scale, from
  projection.jsonl (`scripts/project.py report --json`): each projection with its 95%
  interval, and the measured hours where every shard was counted.

Plain SVG, written by hand: nothing to install.
"""

import argparse
import csv
import json
import math
from pathlib import Path

COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2']
W, H, M = 880, 440, 64
# The legend's column, right of the plot.
LEGEND = 250


class Axes:
    """A log-scale y against a linear x, within the SVG's margins."""

    def __init__(self, xs, ys):
        self.x0, self.x1 = min(xs), max(max(xs), min(xs) + 1)
        self.lo = math.floor(math.log10(min(ys)))
        self.hi = max(math.ceil(math.log10(max(ys))), self.lo + 1)

    def px(self, x):
        return M + (x - self.x0) / (self.x1 - self.x0) * (W - LEGEND - M - 20)

    def py(self, y):
        return H - M - (math.log10(y) - self.lo) / (self.hi - self.lo) * (H - 2 * M)

    def frame(self, title, ylabel, xs, unit=''):
        out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
               f'<rect width="{W}" height="{H}" fill="white"/>',
               f'<text x="{W / 2}" y="22" text-anchor="middle" font-size="14">{title}</text>',
               f'<text x="16" y="{H / 2}" transform="rotate(-90 16 {H / 2})" text-anchor="middle">{ylabel}</text>']
        for e in range(self.lo, self.hi + 1):
            y = self.py(10 ** e)
            out.append(f'<line x1="{M}" y1="{y:.1f}" x2="{self.px(self.x1):.1f}" y2="{y:.1f}" stroke="#ddd"/>')
            out.append(f'<text x="{M - 6}" y="{y + 4:.1f}" text-anchor="end">{label(10 ** e)}{unit}</text>')
        for x in sorted(set(xs)):
            out.append(f'<text x="{self.px(x):.1f}" y="{H - M + 18}" text-anchor="middle">{x}</text>')
        out.append(f'<text x="{self.px((self.x0 + self.x1) / 2):.1f}" y="{H - M + 38}" text-anchor="middle">n (empty n×n board)</text>')
        return out


def label(v):
    return f'{v:g}' if 1e-3 <= v < 1e5 else f'1e{round(math.log10(v))}'


def time_plot(rows):
    series = {}
    for r in rows:
        series.setdefault(r['series'], []).append(r)
    ax = Axes([r['n'] for r in rows], [r['seconds'] for r in rows])
    out = ax.frame('Empty n×n boards: seconds to count (log scale)', 'seconds', [r['n'] for r in rows])
    for i, (name, pts) in enumerate(sorted(series.items())):
        c = COLORS[i % len(COLORS)]
        pts.sort(key=lambda r: r['n'])
        path = ' '.join(f"{ax.px(r['n']):.1f},{ax.py(r['seconds']):.1f}" for r in pts)
        out.append(f'<polyline points="{path}" fill="none" stroke="{c}" stroke-width="2"/>')
        for r in pts:
            fill = 'white' if r['date'] == 'published' else c
            out.append(f'<circle cx="{ax.px(r["n"]):.1f}" cy="{ax.py(r["seconds"]):.1f}" r="3.5" fill="{fill}" stroke="{c}"/>')
        out.append(f'<text x="{W - LEGEND + 10}" y="{M + 18 * i}" fill="{c}">{name}</text>')
    note = 'filled: H100 host (16 CPU threads); hollow: published, another machine'
    for j, part in enumerate(note.split('; ')):
        out.append(f'<text x="{W - LEGEND + 10}" y="{M + 18 * (len(series) + j) + 8}" fill="#555">{part}</text>')
    out.append('</svg>')
    return '\n'.join(out) + '\n'


def projection_plot(rows):
    hours = [h for p in rows for h in (p['gpu_hours'] - p['gpu_hours_ci'], p['gpu_hours'] + p['gpu_hours_ci'], p.get('measured_gpu_hours'))
             if h and h > 0]
    ax = Axes([p['n'] for p in rows], hours)
    out = ax.frame('Empty n×n boards: H100-hours to count, projected from a sample of shards', 'H100-hours', [p['n'] for p in rows])
    c, m = COLORS[0], COLORS[3]
    pts = sorted(rows, key=lambda p: p['n'])
    path = ' '.join(f"{ax.px(p['n']):.1f},{ax.py(p['gpu_hours']):.1f}" for p in pts)
    out.append(f'<polyline points="{path}" fill="none" stroke="{c}" stroke-width="1.5" stroke-dasharray="4 3"/>')
    for p in pts:
        x = ax.px(p['n'])
        lo, hi = max(p['gpu_hours'] - p['gpu_hours_ci'], 10 ** ax.lo), p['gpu_hours'] + p['gpu_hours_ci']
        out.append(f'<line x1="{x:.1f}" y1="{ax.py(lo):.1f}" x2="{x:.1f}" y2="{ax.py(hi):.1f}" stroke="{c}" stroke-width="2"/>')
        out.append(f'<circle cx="{x:.1f}" cy="{ax.py(p["gpu_hours"]):.1f}" r="4" fill="{c}"/>')
        hours = f'{p["gpu_hours"]:,.0f}' if p['gpu_hours'] >= 100 else f'{p["gpu_hours"]:.3g}'
        out.append(f'<text x="{x + 8:.1f}" y="{ax.py(p["gpu_hours"]) + 4:.1f}">{hours} h</text>')
        if p.get('measured_gpu_hours'):
            y = ax.py(p['measured_gpu_hours'])
            out.append(f'<rect x="{x - 5:.1f}" y="{y - 5:.1f}" width="10" height="10" fill="none" stroke="{m}" stroke-width="2"/>')
    out.append(f'<text x="{W - LEGEND + 10}" y="{M}" fill="{c}">projected, 95% interval</text>')
    out.append(f'<text x="{W - LEGEND + 10}" y="{M + 18}" fill="{m}">measured (every shard)</text>')
    out.append('</svg>')
    return '\n'.join(out) + '\n'


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--results', type=Path, default=Path('docs/results'))
    ap.add_argument('--out', type=Path, default=Path('docs'))
    args = ap.parse_args()
    lines = [l for l in (args.results / 'timings.csv').read_text().splitlines() if l and not l.startswith('#')]
    rows = [{'series': s, 'n': int(n), 'seconds': float(t), 'machine': m, 'date': d, 'source': src}
            for s, n, t, m, d, src in csv.reader(lines)]
    (args.out / 'time-vs-n.svg').write_text(time_plot(rows))
    projection = args.results / 'projection.jsonl'
    if projection.exists():
        (args.out / 'projection.svg').write_text(projection_plot([json.loads(l) for l in projection.read_text().splitlines() if l]))
    print(f'wrote {args.out}/time-vs-n.svg' + (' and projection.svg' if projection.exists() else ''))


if __name__ == '__main__':
    main()
