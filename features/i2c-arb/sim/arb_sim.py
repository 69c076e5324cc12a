#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host-side discrete-event model of the GPIO challenge-and-response claim
protocol with N masters saturating the bus, as
drivers/i2c/muxes/i2c-arb-gpio-challenge.c runs it ("ours"), as it ran
before it passed the turn after a contended release ("no pass", merge
3680c3e), and as the seed and 6.12 run it ("seed": no hold-off, rounds of
wait-retry-us, no yield).

Each master loops: claim, hold the bus T (+-10%), release, wait the slew and
a system-call gap. Claim lines change instantly (the slew is the wait after
asserting). Every sleep ends late by an exponentially distributed delay of
mean LATE us: 150 is about what the arbitrators saw under QEMU TCG (the
longest gap between two looks in a 50 ms claim was 0.3 to 1.1 ms); the
model the design was first tuned with used 0 to 30 us. With "shared",
masters 0 and 2 run on one CPU without preemption, as in the guest's
three-master run on a PREEMPT_NONE kernel: one cannot look while the
other transfers.

It is a design aid, not a proof: it says which rules pass a waiting master
over, and what waits to expect, in a world without stalls. For each claim
it counts the acquisitions by other masters while it waited: "twice in a
row" is a master that acquired the bus again right after its own
acquisition, while the claim waited (what arb-stress checks in the guest);
"most by one" is the largest number of acquisitions by one other master
during one wait.

A second table pairs one master of each rule set with a peer that runs the
seed's protocol with the ChromeOS EC's timings (wait-free 100 ms), looks
on time (LATE 20 us: its own processor) and claims again at once or after
a pause (fixtures/i2c-wire-sim/i2c-arb-peer.c in the guest): what each
side gets of the bus when the other master does not follow our rules.

Usage: arb_sim.py [seconds]   (simulated seconds per row, 20)
"""
import bisect
import heapq
import random
import sys

S, P, R, W = 10, 50, 3000, 50000	# slew, poll, wait-retry, wait-free (us)
GAP = 30				# user space between two transfers (us)


class Master:
    def __init__(self):
        self.claim = False
        self.released = None
        self.seen = None		# when a look last saw another claim
        self.claims = []		# (start, end, release) of won claims
        self.ebusy = 0


def master(m, ms, clock, T, rules, late, free_us=W, gap=GAP):
    """The claim/transfer loop of one master, yielding what it does next:
    ('sleep', us), or ('busy', us) on its CPU."""
    def others():
        n = sum(1 for o in ms if o is not m and o.claim)
        if n:
            m.seen = clock[0]
        return n

    def sleep(us):
        return ('sleep', us + random.expovariate(1.0 / late))

    while True:
        start = clock[0]
        deadline = start + free_us
        owed = m.seen is not None and clock[0] - m.seen < free_us
        if rules == 'ours' and m.released is not None and not owed \
           and not others():
            pass    # nobody waits, no turn owed: claim at once, as the seed
        elif rules != 'seed' and m.released is not None:
            # hold-off: 2S + P at least, the pass, then while others claim
            least = m.released + 2 * S + P
            most = min(m.released + max(3 * R, least - m.released), deadline)
            if clock[0] < least:
                yield sleep(least - clock[0])
            if rules == 'ours' and m.seen is not None and \
               clock[0] - m.seen < free_us:
                end = min(m.released + R, deadline)
                while clock[0] < end and not others():
                    yield sleep(P)
            while clock[0] < most and others():
                yield sleep(P)
        won = False
        while True:
            m.claim = True
            yield ('busy', S)
            age = 0 if rules == 'seed' else clock[0] - start
            until = min(clock[0] + R + age, deadline)
            seen = 0
            while True:
                n = others()
                if not n:
                    won = True
                    break
                if rules != 'seed' and seen and n < seen:
                    until = min(until, clock[0] + 2 * S + 2 * P +
                                (clock[0] - start) / 32, deadline)
                seen = n
                if clock[0] >= until:
                    break
                yield sleep(P)
            if won or clock[0] >= deadline:
                break
            m.claim = False
            yield sleep(min(deadline - clock[0], random.uniform(R, 2 * R)))
        if won:
            end = clock[0]
            yield ('busy', T * random.uniform(0.9, 1.1))
            m.claims.append((start, end, clock[0]))
        else:
            m.ebusy += 1
        m.claim = False
        m.released = clock[0]
        yield ('busy', S + gap)


def simulate(n, T, seconds, rules, late, shared=False, rng_seed=1, peer_gap=None):
    """With peer_gap, the last master is the EC-like peer (seed rules,
    wait-free 100 ms, late 20 us) pausing peer_gap us between claims."""
    random.seed(rng_seed)
    ms = [Master() for _ in range(n)]
    clock = [0.0]
    gens = [master(m, ms, clock, T, rules, late) for m in ms]
    if peer_gap is not None:
        gens[-1] = master(ms[-1], ms, clock, T, 'seed', 20, 100000, peer_gap)
    cpu = [i % 2 if shared else i for i in range(n)]
    free = [0.0] * n			# when each CPU is free again
    q = [(random.uniform(0, 100), i) for i in range(n)]
    heapq.heapify(q)
    while q:
        t, i = heapq.heappop(q)
        if t > seconds * 1e6:
            break
        if free[cpu[i]] > t:		# not running: its CPU is busy
            heapq.heappush(q, (free[cpu[i]] + random.uniform(0, 5), i))
            continue
        clock[0] = t
        kind, us = next(gens[i])
        if kind == 'busy':
            free[cpu[i]] = t + us
        heapq.heappush(q, (t + us, i))
    return ms


def passed(ms):
    """Claims passed twice in a row by one master, and the most
    acquisitions by one other master during one wait."""
    acq = sorted((c[1], i, c[2]) for i, m in enumerate(ms) for c in m.claims)
    wons = [a[0] for a in acq]
    twice = most = 0
    for i, m in enumerate(ms):
        for start, end, _ in m.claims:
            count, bad = {}, False
            for j in range(bisect.bisect_right(wons, start),
                           bisect.bisect_left(wons, end)):
                who = acq[j][1]
                if who == i:
                    continue
                count[who] = count.get(who, 0) + 1
                bad |= j > 0 and acq[j - 1][1] == who and acq[j - 1][2] > start
            twice += bad
            most = max([most] + list(count.values()))
    return twice, most


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(len(v) * p / 100))] if v else 0


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 20
    print("| masters | late (us) | rules | claims | EBUSY | twice in a row | most by one | wait p50 / p99 / max (ms), worst master |")
    print("|---|---|---|---|---|---|---|---|")
    for n, late, shared in ((2, 15, False), (2, 150, False), (3, 15, False),
                            (3, 150, False), (3, 150, True), (8, 150, False)):
        for rules in ('seed', 'no pass', 'ours'):
            ms = simulate(n, 1000, seconds, rules, late, shared)
            waits = [[c[1] - c[0] for c in m.claims] for m in ms]
            worst = max(waits, key=lambda w: pct(w, 99))
            twice, most = passed(ms)
            print("| %d | %d%s | %s | %d | %d | %d | %d | %.1f / %.1f / %.1f |" % (
                n, late, ", shared" if shared else "", rules,
                sum(len(w) for w in waits), sum(m.ebusy for m in ms),
                twice, most, pct(worst, 50) / 1e3, pct(worst, 99) / 1e3,
                max(max(w) for w in waits if w) / 1e3))


def peer_table(seconds):
    print()
    print("| peer's pause (us) | our rules | ours/s | peer/s | our EBUSY | peer's timeouts | peer wait p99 / max (ms) |")
    print("|---|---|---|---|---|---|---|")
    for gap in (5, 5000):
        for rules in ('seed', 'no pass', 'ours'):
            ms = simulate(2, 1000, seconds, rules, 150, peer_gap=gap)
            w = [[c[1] - c[0] for c in m.claims] for m in ms]
            print("| %d | %s | %.0f | %.0f | %d | %d | %.1f / %.1f |" % (
                gap, rules, len(w[0]) / seconds, len(w[1]) / seconds,
                ms[0].ebusy, ms[1].ebusy, pct(w[1], 99) / 1e3,
                max(w[1] or [0]) / 1e3))


if __name__ == "__main__":
    main()
    peer_table(float(sys.argv[1]) if len(sys.argv) > 1 else 20)
