#!/usr/bin/env python3
"""Writes the test fixtures under fixtures/, each NAME.in beside its NAME.out.

Expected counts come from an independent source, never from nqueen itself: a slow
set-based search (oracle below) for small boards, OEIS A000170 for empty boards.
Deterministic: the same seed gives the same files. Run from the repository root.
"""
import random
from pathlib import Path

# OEIS A000170 (fixtures/oeis/A000170.txt): solutions on an empty n x n board, [n - 1].
A000170 = [int(line.split()[1]) for line in Path('fixtures/oeis/A000170.txt').read_text().splitlines()
           if not line.startswith('#')]


def oracle(rows):
    """Counts solutions with sets of used columns and diagonals: obviously correct, slow."""
    n = len(rows)
    cols, d1, d2 = set(), set(), set()

    def place(r):
        if r == n:
            return 1
        total = 0
        for c in range(n):
            if rows[r][c] == '.' and c not in cols and r + c not in d1 and r - c not in d2:
                cols.add(c); d1.add(r + c); d2.add(r - c)
                total += place(r + 1)
                cols.remove(c); d1.remove(r + c); d2.remove(r - c)
        return total
    return place(0)


def random_board(rng, n, density):
    return [''.join('*' if rng.random() < density else '.' for _ in range(n)) for _ in range(n)]


def write(name, boards, counts=None, text=None):
    d = Path('fixtures')
    if counts is None:
        counts = [oracle(b) for b in boards]
    if text is None:
        text = ''.join(f"{len(b)}\n" + ''.join(row + '\n' for row in b) for b in boards)
    (d / f"{name}.in").write_text(text, newline='')
    (d / f"{name}.out").write_text(''.join(f"Case {i + 1}: {c}\n" for i, c in enumerate(counts)))


def main():
    rng = random.Random(11195)
    empty = lambda n: ['.' * n] * n

    write('sample', [empty(8), ['.*..', '....', '....', '....']])
    write('empty_1_16', [empty(n) for n in range(1, 17)], counts=A000170[:16])
    for n in (17, 18, 19):
        write(f"long/empty_{n}", [empty(n)], counts=[A000170[n - 1]])

    blocked = []
    for n in (4, 6, 8, 9):
        r = rng.randrange(n)
        blocked.append([('*' * n if i == r else '.' * n) for i in range(n)])
        c = rng.randrange(n)
        blocked.append([row[:c] + '*' + row[c + 1:] if i == 0 else row for i, row in enumerate(empty(n))])
        blocked.append([''.join('*' if j == c else '.' for j in range(n)) for _ in range(n)])
    write('blocked_lines', blocked)

    # The sample again, with every kind of whitespace the format allows between tokens.
    b2 = ['.*..', '....', '....', '....']
    text = "\r\n  8  \r\n" + ''.join(f"\t{'.' * 8} \r\n\r\n" for _ in range(8)) + " 4\n" + ' '.join(b2) + "\n0"
    write('whitespace', [empty(8), b2], text=text)

    # Everything after the 0 line is ignored, even text that is not a board.
    boards = [random_board(rng, 6, 0.2), random_board(rng, 5, 0.1)]
    text = ''.join(f"{len(b)}\n" + '\n'.join(b) + '\n' for b in boards) + "0\nthis is not a board\n7\n"
    write('terminator', boards, text=text)

    many = [random_board(rng, rng.randint(1, 9), rng.choice([0, 0.05, 0.1, 0.2, 0.3, 0.5]))
            for _ in range(400)]
    write('many_small', many)

    mixed = [random_board(rng, n, d) for n in (10, 11, 12) for d in (0.05, 0.15, 0.3)]
    write('mixed_10_12', mixed)

    # Obstacles only in the bottom rows: orientation should turn them to the top.
    bottom = [['.' * 12] * 9 + [''.join('*' if rng.random() < 0.4 else '.' for _ in range(12)) for _ in range(3)]
              for _ in range(3)]
    write('bottom_obstacles', bottom)


if __name__ == '__main__':
    main()
