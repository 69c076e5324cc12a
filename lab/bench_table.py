#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Merge the markdown tables of N benchmark boot pairs into one.

make bench boots ours and upstream alternately, N times each, and runs a
feature's bench/report once per pair; each prints the same table. This
prints that table once, every number replaced by its median over the N
tables and its spread: "median [min-max]". Cells that hold several
numbers ("3 / 1.1 / 18") are merged number by number; text that differs
between tables is a report bug and stops the merge.

  bench_table.py TABLE_FILE...
"""
import re
import statistics
import sys

NUM = re.compile(r'-?\d+(?:\.\d+)?')


def fmt(x, like):
    """Print x with as many decimals as the report printed."""
    decimals = len(like.split('.')[1]) if '.' in like else 0
    return f'{x:.{decimals}f}'


def merge_cell(cells):
    texts = {NUM.sub('#', c) for c in cells}
    if len(texts) != 1:
        raise ValueError(f'cells differ in their text: {cells}')
    columns = list(zip(*(NUM.findall(c) for c in cells)))
    if not columns or len(cells) == 1:
        return cells[0]
    out = []
    for nums in columns:
        vals = [float(n) for n in nums]
        med = fmt(statistics.median(vals), nums[0])
        lo, hi = fmt(min(vals), nums[0]), fmt(max(vals), nums[0])
        out.append(med if lo == hi else f'{med} [{lo}-{hi}]')
    it = iter(out)
    return NUM.sub(lambda _m: next(it), cells[0])


def merge(tables):
    lines = [t.rstrip('\n').split('\n') for t in tables]
    if len({len(t) for t in lines}) != 1:
        raise ValueError('the tables have different numbers of lines')
    for rows in zip(*lines):
        if not rows[0].startswith('|') or set(rows[0]) <= set('|-: '):
            if len(set(rows)) != 1:
                raise ValueError(f'non-table lines differ: {rows}')
            print(rows[0])
            continue
        split = [r.strip().strip('|').split('|') for r in rows]
        if len({len(s) for s in split}) != 1:
            raise ValueError(f'rows have different cell counts: {rows}')
        cells = [merge_cell([s[i].strip() for s in split]) for i in range(len(split[0]))]
        print('| ' + ' | '.join(cells) + ' |')


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    tables = []
    for path in sys.argv[1:]:
        with open(path, encoding='utf-8') as f:
            tables.append(f.read())
    try:
        merge(tables)
    except ValueError as e:
        sys.exit(f'bench_table.py: {e}')


if __name__ == '__main__':
    main()
