#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Print make debug-cost's table from its arm/round/seconds file.

Each line of the input: arm name, round number, seconds (tab separated).
The first arm of the file (round 1's first) is the reference (all
detectors on). For every arm: the median [min-max] of its boot-and-test
times, and the median [min-max] of its per-round difference to the
reference boot of the same round.

  debug_cost_table.py FILE
"""
import collections
import statistics
import sys


def spread(vals):
    return f'{statistics.median(vals):.1f} [{min(vals):.1f} to {max(vals):.1f}]'


def main(path):
    times = collections.OrderedDict()
    with open(path, encoding='utf-8') as f:
        for n, line in enumerate(f, 1):
            fields = line.rstrip('\n').split('\t')
            if len(fields) != 3:
                sys.exit(f'{path}:{n}: want "arm<TAB>round<TAB>seconds", got {line!r}')
            arm, rnd, secs = fields
            times.setdefault(arm, {})[int(rnd)] = float(secs)
    if not times:
        sys.exit(f'{path}: no boots')
    ref_name, ref = next(iter(times.items()))
    print('| arm | boot and tests, s | minus all on, same round, s |')
    print('|---|---|---|')
    for arm, by_round in times.items():
        if set(by_round) != set(ref):
            sys.exit(f'{arm}: rounds {sorted(by_round)}, but {ref_name} has {sorted(ref)}')
        diff = [by_round[r] - ref[r] for r in sorted(ref)]
        cell = '(reference)' if arm == ref_name else spread(diff)
        print(f'| {arm} | {spread(list(by_round.values()))} | {cell} |')
    print(f'({len(ref)} rounds; each round boots every arm once, round i starting at arm i)')


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
