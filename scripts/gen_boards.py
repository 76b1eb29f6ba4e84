#!/usr/bin/env python3
"""Prints random boards in judge format, deterministically from a seed.

  gen_boards.py --seed 1 --count 300 --n 4-16 --density 0-40

n and density (percent of obstacle cells) are ranges, drawn uniformly per board; a single
number means exactly that. --empty-top K leaves the first K rows free of obstacles.
"""
import argparse
import random


def span(text):
    lo, _, hi = text.partition('-')
    return int(lo), int(hi or lo)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--count', type=int, default=1)
    ap.add_argument('--n', type=span, default=(8, 8))
    ap.add_argument('--density', type=span, default=(0, 0))
    ap.add_argument('--empty-top', type=int, default=0)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    out = []
    for _ in range(args.count):
        n = rng.randint(*args.n)
        p = rng.randint(*args.density) / 100
        out.append(str(n))
        for r in range(n):
            free = r < args.empty_top
            out.append(''.join('.' if free or rng.random() >= p else '*' for _ in range(n)))
    print('\n'.join(out))


if __name__ == '__main__':
    main()
