#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host-side discrete-event simulation of the GPIO challenge-and-response
claim protocol, as drivers/i2c/muxes/i2c-arb-gpio-challenge.c runs it and
as the seed and 6.12 run it ("seed": no hold-off, rounds of wait-retry-us,
no yield), with N masters saturating the bus.

Each master loops: claim, hold the bus T (+-10%), release, wait the slew and
a system-call gap. Claim lines change instantly (the slew is the wait after
asserting); every wait overshoots by a uniform 0..30 us, as a sleeping
poll does. No stalls: a master is never kept from running. It is a design
aid, not a proof: it says which rules leave a claim starved past
wait-free-us, and what waits to expect, in a world without scheduling.

Usage: arb_sim.py [seconds]   (simulated seconds per configuration, 20)
"""
import heapq
import random
import sys

S, P, R, W = 10, 50, 3000, 50000	# slew, poll, wait-retry, wait-free (us)
GAP = 30				# user space between two transfers (us)


class Master:
    def __init__(self):
        self.claim = False
        self.released = None
        self.waits = []
        self.ebusy = 0


def master(m, ms, clock, T, seed_rounds):
    """The claim/transfer loop of one master, yielding how long it waits."""
    def others():
        return sum(1 for o in ms if o is not m and o.claim)

    while True:
        start = clock[0]
        deadline = start + W
        if not seed_rounds and m.released is not None:
            # hold-off: 2S + P at least, then while others claim, up to 3R
            least = m.released + 2 * S + P
            most = min(m.released + max(3 * R, least - m.released), deadline)
            if clock[0] < least:
                yield least - clock[0]
            while clock[0] < most and others():
                yield P
        won = False
        while True:
            m.claim = True
            yield S
            age = 0 if seed_rounds else clock[0] - start
            until = min(clock[0] + R + age, deadline)
            seen = 0
            while True:
                n = others()
                if not n:
                    won = True
                    break
                if not seed_rounds and seen and n < seen:
                    until = min(until, clock[0] + 2 * S + 2 * P +
                                (clock[0] - start) / 32, deadline)
                seen = n
                if clock[0] >= until:
                    break
                yield P
            if won or clock[0] >= deadline:
                break
            m.claim = False
            yield min(deadline - clock[0], random.uniform(R, 2 * R))
        if won:
            m.waits.append(clock[0] - start)
            yield T * random.uniform(0.9, 1.1)
        else:
            m.ebusy += 1
        m.claim = False
        m.released = clock[0]
        yield S + GAP


def simulate(n, T, seconds, seed_rounds, rng_seed=1):
    random.seed(rng_seed)
    ms = [Master() for _ in range(n)]
    clock = [0.0]
    gens = [master(m, ms, clock, T, seed_rounds) for m in ms]
    q = [(random.uniform(0, 100), i) for i in range(n)]
    heapq.heapify(q)
    while q:
        t, i = heapq.heappop(q)
        if t > seconds * 1e6:
            break
        clock[0] = t
        heapq.heappush(q, (t + next(gens[i]) + random.uniform(0, 30), i))
    return ms


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(len(v) * p / 100))] if v else 0


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 20
    print("| masters | T (ms) | rounds | claims | EBUSY | wait p50 / p99 / max (ms), worst master |")
    print("|---|---|---|---|---|---|")
    for n, T in ((2, 1000), (3, 1000), (8, 1000), (2, 15000), (3, 15000)):
        for seed_rounds in (True, False):
            ms = simulate(n, T, seconds, seed_rounds)
            claims = sum(len(m.waits) for m in ms)
            ebusy = sum(m.ebusy for m in ms)
            worst = max(ms, key=lambda m: pct(m.waits, 99))
            print("| %d | %d | %s | %d | %d | %.1f / %.1f / %.1f |" % (
                n, T // 1000, "seed" if seed_rounds else "ours", claims, ebusy,
                pct(worst.waits, 50) / 1e3, pct(worst.waits, 99) / 1e3,
                max(max(m.waits) for m in ms if m.waits) / 1e3))


if __name__ == "__main__":
    main()
