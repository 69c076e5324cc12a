#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judge one lab run: the guest's KTAP document, its console and QEMU's status.

The guest writes ONE KTAP document to the second serial port: a top-level
plan over the suites (built-in KUnit suites, then the guest test programs),
each suite a nested subtest, '# lab: taint <value> after <suite>' readings
between them and '# lab: done' after the document. The run passes only when
all of these hold:

- the document parses as KTAP by line order, as the tree's own
  tools/testing/kunit/kunit_parser.py reads it (indentation, tabs included,
  carries no meaning): every plan matches its results, test numbers run
  1, 2, 3..., a subtest's result line names its '# Subtest:' header, no
  suite is empty, the stream is not cut and nothing follows the document;
- no case failed or crashed, no suite reported 'not ok', every expected
  suite reported;
- the tree's 'kunit.py parse' reads the same stream to the same pass/fail
  and the same counts (a second opinion: where the two disagree, the run
  fails and says so);
- the kernel gained no taint bit but O, E and N (out-of-tree, unsigned and
  KUnit test modules), each gain named after the suite it followed;
- the console has no kernel report (BUG, WARNING, KASAN, lockdep, hung
  task, RCU stall, list corruption, refcount, kmemleak...), each report
  counted once and named after the suite running (the guest writes
  'lab: start <suite>' to /dev/kmsg; KUnit's own '# Subtest:' lines name
  the built-in suites);
- QEMU saw the guest finish (status 33).

The last line is 'N passed, N failed' (with ', N skipped' when any were).
"""
import argparse
import os
import re
import subprocess
import sys

VERSION = re.compile(r'^(KTAP|TAP) version (\d+)$')
HEADER = re.compile(r'^# Subtest: (.*)$')
PLAN = re.compile(r'^1\.\.(\d+)')
# A line that starts like a result is a result: one kunit_parser would
# not recognise (and silently treat as text) is an error here.
RESULT_LIKE = re.compile(r'^(ok|not ok) \d')
RESULT = re.compile(r'^(ok|not ok) (\d+) (?:- )?([^#]*)( # .*)?$')
SKIP = re.compile(r' # SKIP')
ACCEPTED_VERSIONS = {'KTAP': (1,), 'TAP': (13, 14)}
LAB_NOTE = re.compile(r'^# lab: ')
TAINT = re.compile(r'^# lab: taint (\d+) after (.+)$')
DONE = '# lab: done'

QEMU_RC = {1: 'the guest panicked (pvpanic)', 124: 'the guest hung: killed at the host deadline',
           137: 'the guest hung: killed at the host deadline',
           0: 'the guest powered off without finishing'}


class Stream:
    """The stream's lines, stripped of indentation, with their numbers."""

    def __init__(self, lines):
        self.lines = [(n, l.strip()) for n, l in enumerate(lines, 1)]
        self.i = 0

    def __bool__(self):
        return self.i < len(self.lines)

    def peek(self):
        return self.lines[self.i][1] if self else ''

    def number(self):
        return self.lines[self.i][0] if self else len(self.lines) + 1

    def pop(self):
        self.i += 1
        return self.lines[self.i - 1][1]


class Test:
    def __init__(self):
        self.name = ''
        self.status = 'crashed'     # until a result line says otherwise
        self.directive = ''
        self.plan = None
        self.diags = []
        self.children = []
        self.missing = 0            # planned results that never came
        self.is_parent = False


def is_structure(line):
    return bool(VERSION.match(line) or HEADER.match(line) or PLAN.match(line) or
                RESULT_LIKE.match(line))


def diagnostics(s):
    """Pop free text and '#' lines up to the next structural line."""
    out = []
    while s and not is_structure(s.peek()):
        out.append(s.pop())
    return out


def closes(line, test):
    """Is line the result that ends test (kunit_parser: same name)?"""
    m = RESULT.match(line)
    return bool(m and test.name and m.group(3).strip() == test.name)


def parse_header(s, t, errors, top):
    """The version line, '# Subtest:' and plan of a document or subtest."""
    if VERSION.match(s.peek()):
        kind, version = VERSION.match(s.pop()).groups()
        if int(version) not in ACCEPTED_VERSIONS[kind]:
            errors.append(f'line {s.number() - 1}: {kind} version {version} is not one kunit.py reads')
        t.is_parent = True
    elif top:
        errors.append(f'line {s.number()}: the stream does not start with "KTAP version 1"')
    if not top and HEADER.match(s.peek()):
        t.name = HEADER.match(s.pop()).group(1).strip()
        t.is_parent = True
    if top or t.is_parent:
        t.diags += diagnostics(s)
        if PLAN.match(s.peek()):
            t.plan = int(PLAN.match(s.pop()).group(1))
        elif top:
            errors.append(f'line {s.number()}: the document has no plan (1..N)')


def parse_children(s, t, errors, top):
    while t.plan is None or len(t.children) < t.plan:
        pre = diagnostics(s)
        if not s or (not top and closes(s.peek(), t)):
            t.diags += pre
            if t.plan is not None:
                t.missing = t.plan - len(t.children)
                where = 'the stream ends' if not s else f'line {s.number()} closes it'
                errors.append(f'{t.name or "the document"}: plan 1..{t.plan}, but {where} '
                              f'after {len(t.children)} results')
            return
        t.children.append(parse_test(s, len(t.children) + 1, errors, pre))


def parse_result(s, t, number, errors):
    line = s.peek()
    m = RESULT.match(line)
    if not m:
        if RESULT_LIKE.match(line):
            errors.append(f'line {s.number()}: malformed result line: {line}')
            s.pop()
        elif s:
            errors.append(f'line {s.number()}: {t.name or "a test"}: expected a result line, '
                          f'found: {line}')
            if not VERSION.match(line) and not HEADER.match(line):
                s.pop()     # a stray plan: step over it, or the parse stalls
        else:
            errors.append(f'{t.name or "a test"}: the stream ends before its result line')
        return
    name = m.group(3).strip()
    if t.is_parent and t.name and name != t.name:
        errors.append(f'line {s.number()}: subtest {t.name} has no result line '
                      f'(found "{line}")')
        return
    s.pop()
    t.name = name
    if int(m.group(2)) != number:
        errors.append(f'line {s.number() - 1}: {name}: test number {m.group(2)}, expected {number}')
    t.directive = (m.group(4) or '').strip()[2:]
    if SKIP.search(line):
        t.status = 'skipped'
    else:
        t.status = 'passed' if m.group(1) == 'ok' else 'failed'


def parse_test(s, number, errors, pre=()):
    """One test at s: a subtest (version line and/or header) or a case."""
    t = Test()
    t.diags = list(pre) + diagnostics(s)
    parse_header(s, t, errors, False)
    if t.is_parent:
        parse_children(s, t, errors, False)
        t.diags += diagnostics(s)
        if not t.children and not t.missing:
            errors.append(f'line {s.number()}: subtest {t.name or "(unnamed)"} has no test cases')
    parse_result(s, t, number, errors)
    return t


def parse_document(lines):
    """Parse the stream; return (document, errors, lines after its end)."""
    s = Stream(lines)
    errors = []
    doc = Test()
    doc.name = ''
    while s and not s.peek():
        s.pop()
    parse_header(s, doc, errors, True)
    if doc.plan is not None:
        parse_children(s, doc, errors, True)
        if doc.plan == 0:
            errors.append('the document plans no suites (1..0)')
    trailer = []
    while s:
        n, line = s.number(), s.pop()
        if line and not LAB_NOTE.match(line):
            errors.append(f'line {n}: after the end of the document: {line}')
        trailer.append(line)
    return doc, errors, trailer


def counts(t):
    """kunit_parser's counts: (passed, failed, crashed, skipped) of the leaves."""
    c = [0, 0, t.missing, 0]
    for child in t.children:
        c = [a + b for a, b in zip(c, counts(child))]
    if not t.children and not t.missing:
        key = {'passed': 0, 'failed': 1, 'crashed': 2, 'skipped': 3}[t.status]
        # A parent without cases counts only a bad result (kunit: NO_TESTS).
        if not t.is_parent or t.status in ('failed', 'skipped'):
            c[key] += 1
    return c


def failures(t, path=()):
    """Yield (name, diagnostics, kind) of every failure: a case that failed
    or crashed, planned results that never came, or a subtest that says
    'not ok' although none of its cases failed (kind 'suite', which
    kunit_parser does not count)."""
    here = path + ((t.name,) if t.name else ())
    name = '.'.join(here) or '(unnamed test)'
    for child in t.children:
        yield from failures(child, here)
    if t.missing:
        yield f'{name} ({t.missing} planned results missing)', t.diags, 'missing'
    if t.is_parent and t.children:
        if t.status == 'failed' and not any(c.status in ('failed', 'crashed') for c in t.children):
            yield name + ' (suite)', t.diags, 'suite'
    elif t.status == 'failed':
        yield name, t.diags, 'case'
    elif t.status == 'crashed' and not t.is_parent:
        yield name + ' (no result line)', t.diags, 'case'


def kunit_second_opinion(kunit_py, results):
    """Run the tree's kunit.py parse: (ok, [passed, failed, crashed, skipped,
    errors]), or a string saying why it gave no opinion."""
    try:
        p = subprocess.run([sys.executable, kunit_py, 'parse', os.path.abspath(results)],
                           capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f'kunit.py did not run: {e}'
    summary = [l for l in p.stdout.splitlines() if 'Testing complete.' in l]
    if not summary:
        return (f'{kunit_py} printed no summary (exit {p.returncode}): '
                f'{(p.stderr or p.stdout).strip()[-300:]}')
    got = dict((k, int(v)) for k, v in re.findall(r'(\w+): (\d+)', summary[-1]))
    c = [got.get(k, 0) for k in ('passed', 'failed', 'crashed', 'skipped', 'errors')]
    return p.returncode == 0 and c[1] == c[2] == c[4] == 0, c


TAINT_BITS = 'PFSRMBUDAWCIOELKXTN'
ALLOWED_TAINT = {'O', 'E', 'N'}


def taint_problems(trailer_and_stream, boot_suites=()):
    """Each new taint bit but O, E, N, named after the suite it followed.

    The built-in KUnit suites share one reading, taken after boot; a taint
    found there also names the suites the console's reports came from
    (boot_suites), since the kernel taints where it reports.
    """
    problems, before, readings = [], 0, 0
    for line in trailer_and_stream:
        m = TAINT.match(line)
        if not m:
            continue
        readings += 1
        value, suite = int(m.group(1)), m.group(2)
        new = value & ~before
        bad = [TAINT_BITS[b] if b < len(TAINT_BITS) else f'bit {b}'
               for b in range(value.bit_length()) if new >> b & 1]
        bad = [f for f in bad if f not in ALLOWED_TAINT]
        if bad:
            where = ''
            if readings == 1:       # the first reading is the boot's
                where = (f'; console reports during boot came from {", ".join(boot_suites)}'
                         if boot_suites else '; no console report during boot names a suite')
            problems.append(f'the kernel became tainted {"".join(bad)} (/proc/sys/kernel/tainted '
                            f'{value}) during {suite}{where}')
        before = value
    if not readings:
        problems.append('the stream has no "# lab: taint" readings: nothing checked the taint flags')
    return problems


# Kernel reports on the console. Each starts a report; matches inside a
# report (its call trace, its "cut here" line) belong to it.
SPLATS = [
    (r'kernel BUG at', 'kernel BUG'),
    (r'\bBUG: KASAN: ', 'KASAN report'),
    (r'\bBUG: KFENCE: |KFENCE: ', 'KFENCE report'),
    (r'watchdog: BUG: soft lockup', 'soft lockup'),
    (r'hard LOCKUP', 'hard lockup'),
    (r'Invalid wait context', 'lockdep: invalid wait context'),
    (r'\bBUG: ', 'BUG'),
    (r'^BUG [\w.:-]+ \(.*\): ', 'slab corruption'),
    (r'\b(h?list_\w+|list) corruption', 'list corruption'),
    (r'refcount_t: ', 'refcount_t report'),
    (r'INFO: task .* blocked for more than', 'hung task'),
    (r'rcu: INFO: rcu_\w+ (self-)?detected (expedited )?stall', 'RCU stall'),
    (r'unregister_netdevice: waiting for', 'net device reference leak'),
    (r'ref_tracker: ', 'reference tracker report'),
    (r'ODEBUG: (?!selftest passed)', 'debugobjects report'),
    (r'possible (circular|recursive) locking|inconsistent lock state|DEBUG_LOCKS_WARN_ON|'
     r'suspicious RCU usage|lock held when returning|bad unlock balance|held lock freed|'
     r'possible irq lock inversion|possible deadlock', 'lockdep report'),
    (r'\bWARNING: ', 'WARNING'),
    (r'UBSAN: ', 'UBSAN report'),
    (r'KASAN: ', 'KASAN report'),
    (r'unreferenced object 0x|kmemleak: \d+ new suspected memory leaks', 'kmemleak report'),
    # A detector that switched itself off can no longer fail the run.
    (r'kmemleak: Cannot |Kernel memory leak detector disabled|'
     r'Disabling lock debugging due to kernel taint', 'a detector turned itself off'),
    (r'general protection fault', 'general protection fault'),
    (r'\bOops\b', 'Oops'),
    (r'Kernel panic', 'kernel panic'),
    (r'------------\[ cut here \]', 'cut here'),
    (r'Call Trace:', 'Call Trace'),
]
SPLATS = [(re.compile(rx), what) for rx, what in SPLATS]
STAMP = re.compile(r'^\[\s*\d+\.\d+\] ?')
END_OF_REPORT = re.compile(r'---\[ end (trace|Kernel panic)|^={20,}$')
# Lines that are part of a report (stack frames, registers, lockdep's
# chains, KASAN's shadow dump): they keep the report open.
REPORT_BODY = re.compile(r'^\s|\+0x[0-9a-f]+/0x[0-9a-f]+|^<\/?TASK>|^(RIP|RSP|RAX|RDX|RBP|RSI|R\d+|'
                         r'FS|CS|CR2|DR\d|Code|CPU|Hardware name|Workqueue|Modules linked in|'
                         r'Call Trace|Tainted|Allocated by|Freed by|Last potentially|The buggy|'
                         r'Memory state|other info|stack backtrace|Chain exists|Possible unsafe|'
                         r'\*\*\*|-> #|[=-]{10,}|[0-9a-f]{16}: |irq event stamp|hardirqs|softirqs|'
                         r'INFO: |\d+ locks? held|#\d+: )')
MARKER = re.compile(r'\blab: start (.+)$')
KUNIT_SUITE = re.compile(r'^ {4}# Subtest: (\S+)$')
KUNIT_SUITE_END = re.compile(r'^(ok|not ok) \d+ (\S+)$')
GENERIC = ('cut here', 'Call Trace')
REPORT_GAP = 20     # lines of other text that end a report without an end marker


def splats(console):
    """One problem per kernel report, named after the suite that ran."""
    return [r for r, _, _ in reports(console)]


def boot_suites(console):
    """The suites (in order, once each) of the reports that came before /init."""
    names = []
    for _, suite, at_boot in reports(console):
        if at_boot and suite not in names:
            names.append(suite)
    return names


def reports(console):
    """(problem, suite, at boot) for each kernel report on the console."""
    found, suite, open_at, last, kind, at_boot = [], 'boot', None, 0, '', True
    for n, raw in enumerate(console, 1):
        line = STAMP.sub('', raw.rstrip())
        m = MARKER.search(line) or KUNIT_SUITE.match(line)
        if m:
            suite, open_at = m.group(1).strip(), None
            at_boot = at_boot and not MARKER.search(line)
            continue
        m = KUNIT_SUITE_END.match(line)
        if m:
            suite = f'boot, after KUnit suite {m.group(2)}'
        elif line.startswith('Run /init as init process'):
            suite, at_boot = '/init, before the first guest suite', False
        if open_at is not None and END_OF_REPORT.search(line):
            open_at = None
            continue
        if open_at is not None and n - last > REPORT_GAP:
            open_at = None
        for rx, what in SPLATS:
            if rx.search(line):
                report = (f'console line {n}: {what} during {suite}: {line.strip()}', suite,
                          at_boot)
                if open_at is None:
                    found.append(report)
                    open_at, kind = n, what
                elif kind in GENERIC and what not in GENERIC:
                    found[-1], kind = report, what     # the headline after "cut here"
                last = n
                break
        else:
            if open_at is not None and REPORT_BODY.search(line):
                last = n
    return found


def lines_of(path):
    try:
        with open(path, errors='replace') as f:
            return [l.rstrip('\r\n') for l in f]
    except FileNotFoundError:
        return []


MAX_ERRORS = 20


def judge_stream(stream, expect, expect_absent):
    """Read the stream: (counts, failures, KTAP errors, other problems, absent suites)."""
    doc, errors, trailer = parse_document(stream)
    if len(errors) > MAX_ERRORS:
        errors = errors[:MAX_ERRORS] + [f'... and {len(errors) - MAX_ERRORS} more KTAP errors']
    fails = list(failures(doc))
    problems = []
    names = [t.name for t in doc.children]
    for name in sorted(set(n for n in names if names.count(n) > 1)):
        problems.append(f'suite {name} reported {names.count(name)} times')
    for e in expect:
        if e not in names:
            problems.append(f'suite {e} was expected but did not report')
    absent = []
    for e in expect_absent:
        name, _, reason = e.partition('=')
        if name in names:
            problems.append(f'suite {name} ran, but it should not exist on this variant')
        else:
            absent.append((name, reason))
    if DONE not in trailer:
        problems.append('the guest did not finish its test stream (no "# lab: done" after the document)')
    c = counts(doc)
    if c[0] + c[1] + c[2] == 0:
        problems.append('no test ran')
    return c, fails, errors, problems, absent


def compare(opinion, mine, stream_ok):
    """Where kunit.py and the judge read the stream differently: problems."""
    if isinstance(opinion, str):
        return [f'second opinion: {opinion}']
    k_ok, k = opinion
    out = []
    theirs = f'passed {k[0]}, failed {k[1] + k[2]} (crashed {k[2]}), skipped {k[3]}, errors {k[4]}'
    ours = f'passed {mine[0]}, failed {mine[1] + mine[2]} (crashed {mine[2]}), skipped {mine[3]}'
    if (k[0], k[1] + k[2], k[3]) != (mine[0], mine[1] + mine[2], mine[3]):
        out.append(f'kunit.py and the judge count the stream differently: kunit.py {theirs}; '
                   f'judge {ours}')
    if k_ok != stream_ok:
        out.append(f'kunit.py {"passes" if k_ok else "fails"} the stream, the judge '
                   f'{"passes" if stream_ok else "fails"} it (kunit.py: {theirs})')
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--results', required=True)
    ap.add_argument('--console', required=True)
    ap.add_argument('--qemu-rc', type=int, required=True)
    ap.add_argument('--kunit', required=True,
                    help="the tree's tools/testing/kunit/kunit.py, or 'none' (the judge's tests)")
    ap.add_argument('--expect', action='append', default=[], help='SUITE that must report')
    ap.add_argument('--expect-absent', action='append', default=[],
                    help='SUITE=REASON: counted as skipped with REASON')
    ap.add_argument('--label', default='')
    a = ap.parse_args(argv)

    stream = lines_of(a.results)
    c, fails, errors, problems, absent = judge_stream(stream, a.expect, a.expect_absent)
    passed, failed, crashed, skipped = c
    problems = errors + problems
    if a.kunit != 'none':
        problems += compare(kunit_second_opinion(a.kunit, a.results), c,
                            not fails and not errors)
    console = lines_of(a.console)
    problems += taint_problems((l.rstrip() for l in stream), boot_suites(console))
    if a.qemu_rc != 33:
        problems.append(QEMU_RC.get(a.qemu_rc, f'QEMU exited {a.qemu_rc}'))
    problems += splats(console)

    for name, reason in absent:
        print(f'  skipped: {name}: {reason}')
    for name, diags, _ in fails:
        print(f'  FAILED: {name}')
        for d in diags[-15:]:
            print(f'      {d}')
    for p in problems:
        print(f'  ERROR: {p}')
    skipped += len(absent)
    suite_fails = sum(1 for f in fails if f[2] == 'suite')
    failed_total = failed + crashed + suite_fails + len(problems)
    tail = f', {skipped} skipped' if skipped else ''
    label = f'{a.label}: ' if a.label else ''
    print(f'{label}{passed} passed, {failed_total} failed{tail}')
    return 1 if failed_total else 0


if __name__ == '__main__':
    sys.exit(main())
