#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judge one lab run: the KTAP stream of the guest, its console and QEMU's status.

The guest writes one KTAP document per suite to the second serial port (KUnit
suites from debugfs, then the guest test programs) and '# lab: done' at the
end. A run fails when a test fails, a suite that was expected did not report,
no test ran, the stream is cut short, QEMU did not see the guest finish, or
the console shows a kernel splat. The last line is 'N passed, N failed' (with
', N skipped' when any were skipped).
"""
import argparse
import re
import sys

RESULT = re.compile(r'^(ok|not ok) (\d+)( [^#]*)?(#.*)?$')
SPLATS = [
    (re.compile(r'\bBUG: '), 'BUG'),
    (re.compile(r'\bWARNING: '), 'WARNING'),
    (re.compile(r'KASAN: '), 'KASAN report'),
    (re.compile(r'UBSAN: '), 'UBSAN report'),
    (re.compile(r'possible (circular|recursive) locking|inconsistent lock state|'
                r'DEBUG_LOCKS_WARN_ON|suspicious RCU usage|lock held when returning'),
     'lockdep report'),
    (re.compile(r'unreferenced object 0x|kmemleak: \d+ new suspected memory leaks'),
     'kmemleak report'),
    (re.compile(r'\bOops\b|general protection fault'), 'Oops'),
    (re.compile(r'Call Trace:'), 'Call Trace'),
    (re.compile(r'Kernel panic'), 'kernel panic'),
]
QEMU_RC = {1: 'the guest panicked (pvpanic)', 124: 'the guest hung: killed at the host deadline',
           137: 'the guest hung: killed at the host deadline',
           0: 'the guest powered off without finishing'}


class Test:
    def __init__(self, name, ok, directive, diags, children):
        self.name, self.ok, self.directive = name, ok, directive
        self.diags, self.children = diags, children

    @property
    def skipped(self):
        return self.directive.upper().startswith('SKIP')


def lines_of(path):
    try:
        with open(path, errors='replace') as f:
            return [l.rstrip('\r\n') for l in f]
    except FileNotFoundError:
        return []


def is_structure(line):
    """True for the lines that shape a KTAP document (not free text)."""
    return (line.startswith(('KTAP version', 'TAP version', '#')) or
            bool(re.match(r'^1\.\.\d+$', line)) or bool(RESULT.match(line)))


def parse_level(lines, i, indent):
    """Parse results at one indentation from lines[i]; return (tests, i, plan)."""
    tests, diags, plan = [], [], None
    pending_children = []
    while i < len(lines):
        raw = lines[i]
        stripped = raw.lstrip(' ')
        depth = len(raw) - len(stripped)
        if stripped and not is_structure(stripped):
            # Free text (a KUnit expectation's operands, a message that
            # spans lines) belongs to the test being run, whatever its
            # indentation: keep it as a diagnostic, never as structure.
            i += 1
            diags.append(stripped)
            continue
        if stripped and depth > indent:
            children, i, _ = parse_level(lines, i, depth)
            pending_children.extend(children)
            continue
        if stripped and depth < indent:
            break
        i += 1
        if stripped.startswith('KTAP version') or stripped.startswith('TAP version'):
            if tests and indent == 0:
                continue        # the next top-level document of the stream
            continue
        if re.match(r'^1\.\.\d+$', stripped):
            plan = int(stripped[3:])
            continue
        m = RESULT.match(stripped)
        if m:
            name = (m.group(3) or '').strip()
            directive = (m.group(4) or '#')[1:].strip()
            tests.append(Test(name, m.group(1) == 'ok', directive, diags, pending_children))
            diags, pending_children = [], []
        elif stripped.startswith('#'):
            diags.append(stripped)
    return tests, i, plan


def leaves(test, path=()):
    """Yield (path, leaf test) for every case; a suite without cases is a leaf."""
    if not test.children:
        yield path + (test.name,), test
        return
    for c in test.children:
        yield from leaves(c, path + (test.name,))


def splats(console):
    found = []
    for n, line in enumerate(console, 1):
        for rx, what in SPLATS:
            if rx.search(line):
                found.append(f'console line {n}: {what}: {line.strip()}')
                break
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--results', required=True)
    ap.add_argument('--console', required=True)
    ap.add_argument('--qemu-rc', type=int, required=True)
    ap.add_argument('--expect', action='append', default=[],
                    help='SUITE that must report')
    ap.add_argument('--expect-absent', action='append', default=[],
                    help='SUITE=REASON: counted as skipped with REASON')
    ap.add_argument('--label', default='')
    a = ap.parse_args()

    stream = lines_of(a.results)
    suites, _, _ = parse_level(stream, 0, 0)
    # Top-level documents are suites; their leaves are the cases.
    passed = failed = skipped = 0
    failures = []
    reported = set()
    for s in suites:
        reported.add(s.name)
        for path, t in leaves(s):
            name = '.'.join(p for p in path if p)
            if t.skipped:
                skipped += 1
            elif t.ok:
                passed += 1
            else:
                failed += 1
                failures.append((name, t.diags))
        if not s.ok and all(t.ok for _, t in leaves(s)):
            failed += 1
            failures.append((s.name + ' (suite)', s.diags))
    problems = []
    for e in a.expect:
        if e not in reported:
            problems.append(f'suite {e} was expected but did not report')
    for e in a.expect_absent:
        name, _, reason = e.partition('=')
        if name in reported:
            problems.append(f'suite {name} ran, but it should not exist on this variant')
        else:
            skipped += 1
            print(f'  skipped: {name}: {reason}')
    if not any(l.strip() == '# lab: done' for l in stream):
        problems.append('the guest did not finish its test stream (no "# lab: done")')
    if a.qemu_rc != 33:
        problems.append(QEMU_RC.get(a.qemu_rc, f'QEMU exited {a.qemu_rc}'))
    problems += splats(lines_of(a.console))
    if passed + failed == 0:
        problems.append('no test ran')

    for name, diags in failures:
        print(f'  FAILED: {name}')
        for d in diags[-15:]:
            print(f'      {d}')
    for p in problems:
        print(f'  ERROR: {p}')
    tail = f', {skipped} skipped' if skipped else ''
    label = f'{a.label}: ' if a.label else ''
    print(f'{label}{passed} passed, {failed + len(problems)} failed{tail}')
    return 1 if failed or problems else 0


if __name__ == '__main__':
    sys.exit(main())
