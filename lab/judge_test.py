#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The judge must fail every run it should: make test runs this first.

Each stream that once fooled the judge is a case here. The judge runs in
this process (fast); the tree's kunit.py, the judge's second opinion, runs
on a few streams when a tree is at hand (LAB_WORK/src).
"""
import concurrent.futures
import contextlib
import io
import os
import re
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True
import judge  # noqa: E402

CAPTURES = os.path.join(HERE, 'judge_test')
KUNIT_PY = os.path.join(os.environ.get('LAB_WORK', '/var/tmp/kernel-lab'), 'src',
                        'tools', 'testing', 'kunit', 'kunit.py')

DEMO_SUITE = """    KTAP version 1
    # Subtest: demo_suite
    1..2
    ok 1 the first property holds
    # a diagnostic
    {second} 2 the second property holds
{suite} {nr} demo_suite
"""
GUEST = """    KTAP version 1
    # Subtest: guest-prog
    1..2
    ok 1 a guest case passes
    ok 2 an extension case # SKIP extension of this project, absent upstream
# lab: /lab/tests/x/guest-prog took 0.5 s, exit status 0
ok {nr} guest-prog
# lab: taint 262144 after guest-prog
"""


def document(*suites, plan=None, done=True):
    """One KTAP document over suites (texts with {nr} for their number)."""
    body = ''.join(s.replace('{nr}', str(i)) for i, s in enumerate(suites, 1))
    return ('KTAP version 1\n# lab: kernel 6.12.0, variant ours, flavor debug\n'
            f'1..{len(suites) if plan is None else plan}\n'
            '# lab: taint 262144 after boot (the built-in KUnit suites ran then)\n'
            + body + ('# lab: done\n' if done else ''))


def demo(second='ok', suite='ok'):
    return DEMO_SUITE.replace('{second}', second).replace('{suite}', suite)


GOOD = document(demo(), GUEST)
CONSOLE = '[    0.000000] Linux version 6.12.0\n[    2.000000] Run /init as init process\n'


def judge_files(results, console, rc=33, extra=(), kunit='none'):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = judge.main(['--results', results, '--console', console, '--qemu-rc', str(rc),
                           '--kunit', kunit, *extra])
    return code, out.getvalue()


def run_judge(stream, console=CONSOLE, rc=33, extra=(), kunit='none'):
    with tempfile.TemporaryDirectory() as d:
        r, c = os.path.join(d, 'results.ktap'), os.path.join(d, 'console.log')
        with open(r, 'w') as f:
            f.write(stream)
        with open(c, 'w') as f:
            f.write(console)
        return judge_files(r, c, rc, extra, kunit)


def last_line(out):
    return out.rstrip().splitlines()[-1]


class Verdicts(unittest.TestCase):
    def passes(self, stream, console=CONSOLE, summary=None, **kw):
        rc, out = run_judge(stream, console, **kw)
        self.assertEqual(rc, 0, out)
        if summary:
            self.assertEqual(last_line(out), summary, out)
        return out

    def fails(self, stream, console=CONSOLE, says=(), **kw):
        rc, out = run_judge(stream, console, **kw)
        self.assertEqual(rc, 1, out)
        self.assertRegex(last_line(out), r'[1-9]\d* failed', out)
        for s in ([says] if isinstance(says, str) else says):
            self.assertIn(s, out)
        return out


class Ktap(Verdicts):
    def test_a_clean_run_passes_and_counts_every_case(self):
        self.passes(GOOD, summary='3 passed, 0 failed, 1 skipped',
                    extra=['--expect', 'demo_suite', '--expect', 'guest-prog'])

    def test_a_failing_kunit_case_fails_the_run_and_is_named(self):
        self.fails(document(demo(second='not ok', suite='not ok'), GUEST),
                   says=['FAILED: demo_suite.the second property holds', '# a diagnostic'])

    def test_a_kunit_expectation_keeps_its_operands_and_message(self):
        suite = ("    KTAP version 1\n    # Subtest: of_suite\n    1..2\n"
                 "    # of_case: EXPECTATION FAILED at drivers/of/x.c:28\n"
                 "    Expected np == ((void *)0), but\n"
                 "        np == ffff888000977e00\n"
                 "the node exists\n"
                 "    not ok 1 of_case\n    ok 2 of_other\nnot ok {nr} of_suite\n")
        out = self.fails(document(suite), says=['FAILED: of_suite.of_case',
                                               'np == ffff888000977e00', 'the node exists'])
        self.assertEqual(last_line(out), '1 passed, 1 failed')

    def test_a_guest_program_that_exits_non_zero_fails_its_suite(self):
        self.fails(document(GUEST.replace('ok {nr} guest-prog', 'not ok {nr} guest-prog')),
                   says='guest-prog (suite)')

    def test_a_program_that_printed_no_subtest_is_a_failed_case(self):
        self.fails(document('# Segmentation fault\nnot ok {nr} guest-prog\n'),
                   says='FAILED: guest-prog')

    def test_a_plan_of_ten_with_three_results_fails(self):
        suite = ('    KTAP version 1\n    # Subtest: s\n    1..10\n'
                 '    ok 1 a\n    ok 2 b\n    ok 3 c\nok {nr} s\n')
        self.fails(document(suite), says=['plan 1..10', 'after 3 results',
                                         '7 planned results missing'])

    def test_more_results_than_planned_fail(self):
        suite = '    KTAP version 1\n    # Subtest: s\n    1..1\n    ok 1 a\n    ok 2 b\nok {nr} s\n'
        self.fails(document(suite), says='subtest s has no result line')

    def test_two_results_numbered_1_fail(self):
        suite = '    KTAP version 1\n    # Subtest: s\n    1..2\n    ok 1 a\n    ok 1 b\nok {nr} s\n'
        self.fails(document(suite), says='b: test number 1, expected 2')

    def test_results_out_of_order_fail(self):
        suite = '    KTAP version 1\n    # Subtest: s\n    1..2\n    ok 2 b\n    ok 1 a\nok {nr} s\n'
        self.fails(document(suite), says='test number 2, expected 1')

    def test_a_tab_indented_not_ok_fails(self):
        suite = '    KTAP version 1\n    # Subtest: s\n    1..2\n    ok 1 a\n\tnot ok 2 b\nok {nr} s\n'
        self.fails(document(suite), says='FAILED: s.b')

    def test_results_at_any_indentation_count(self):
        suite = ('KTAP version 1\n# Subtest: s\n1..3\nok 1 a\n        ok 2 b\n\t\tok 3 c\n'
                 'ok {nr} s\n')
        self.passes(document(suite), summary='3 passed, 0 failed')

    def test_nested_subtests_to_any_depth(self):
        deep = ('    KTAP version 1\n    # Subtest: s\n    1..2\n'
                '        KTAP version 1\n        # Subtest: p\n        1..1\n'
                '            KTAP version 1\n            # Subtest: q\n'
                '                ok 1 q1\n                {leaf} 2 q2\n'
                '            {leaf} 1 q\n'
                '        {leaf} 1 p\n    ok 2 other\n{leaf} {nr} s\n')
        self.passes(document(deep.replace('{leaf}', 'ok')), summary='3 passed, 0 failed')
        out = self.fails(document(deep.replace('{leaf}', 'not ok')), says='FAILED: s.p.q.q2')
        self.assertEqual(last_line(out), '2 passed, 1 failed')

    def test_a_result_not_naming_its_subtest_fails(self):
        suite = '    KTAP version 1\n    # Subtest: s\n    1..1\n    ok 1 a\nok {nr} t\n'
        self.fails(document(suite), says='subtest s has no result line')

    def test_a_suite_without_cases_fails(self):
        suite = '    KTAP version 1\n    # Subtest: empty_suite\n    1..0\nok {nr} empty_suite\n'
        self.fails(document(suite, GUEST), says='empty_suite has no test cases',
                   extra=['--expect', 'empty_suite'])

    def test_a_stream_cut_inside_a_suite_fails(self):
        cut = GOOD[:GOOD.index('    ok 2 an extension')]
        self.fails(cut, says=['the stream ends', 'did not finish'])

    def test_a_stream_cut_between_suites_fails(self):
        self.fails(document(demo(), plan=2, done=False), says='plan 1..2, but the stream ends')

    def test_a_cut_stream_with_a_done_line_fails(self):
        self.fails(document(demo(), plan=3), says='plan 1..3, but the stream ends after 1')

    def test_anything_after_the_document_fails(self):
        self.fails(GOOD + 'ok 3 smuggled\n', says='after the end of the document: ok 3 smuggled')
        self.fails(GOOD + 'KTAP version 1\n1..1\nnot ok 1 x\n', says='after the end of the document')

    def test_a_stream_that_is_not_one_document_fails(self):
        two = 'KTAP version 1\n1..1\n' + demo().replace('{nr}', '1')
        self.fails(two + two + '# lab: done\n', says='after the end of the document')

    def test_a_stream_without_a_plan_fails(self):
        self.fails(GOOD.replace('1..2\n', '', 1), says='no plan')

    def test_a_malformed_result_line_fails(self):
        self.fails(GOOD.replace('    ok 1 the first property holds', '    ok 1'),
                   says='malformed result line')

    def test_a_suite_reported_twice_fails(self):
        self.fails(document(demo(), demo()), says='suite demo_suite reported 2 times')

    def test_no_test_at_all_fails(self):
        self.fails('KTAP version 1\n1..0\n# lab: taint 0 after boot\n# lab: done\n',
                   says='no test ran')
        self.fails('', says='does not start with "KTAP version 1"')

    def test_an_expected_suite_that_did_not_report_fails(self):
        self.fails(GOOD, extra=['--expect', 'missing_suite'], says='missing_suite was expected')

    def test_a_suite_absent_on_this_variant_is_skipped_with_its_reason(self):
        out = self.passes(GOOD, extra=['--expect-absent', 'ours_kunit=not upstream'],
                          summary='3 passed, 0 failed, 2 skipped')
        self.assertIn('skipped: ours_kunit: not upstream', out)
        self.fails(GOOD, extra=['--expect-absent', 'demo_suite=not upstream'],
                   says='demo_suite ran, but it should not exist')

    def test_a_panic_or_timeout_fails(self):
        for rc_qemu, why in ((1, 'panicked'), (124, 'hung'), (0, 'powered off'), (2, 'exited 2')):
            self.fails(GOOD, rc=rc_qemu, says=why)


class Taint(Verdicts):
    def test_out_of_tree_unsigned_and_test_modules_are_expected(self):
        self.passes(GOOD.replace('262144 after guest-prog', str(262144 | 4096 | 8192) +
                                 ' after guest-prog'))

    def test_a_warning_taint_fails_and_names_the_suite(self):
        self.fails(GOOD.replace('262144 after guest-prog', str(262144 | 512) + ' after guest-prog'),
                   says='tainted W (/proc/sys/kernel/tainted 262656) during guest-prog')

    def test_a_taint_at_boot_fails(self):
        self.fails(GOOD.replace('taint 262144 after boot', 'taint 262272 after boot'),
                   says=['tainted D', 'no console report during boot names a suite'])

    def test_a_taint_at_boot_names_the_kunit_suite_that_reported(self):
        console = ('[    1.000000]     # Subtest: demo_suite\n'
                   '[    1.100000] WARNING: CPU: 0 PID: 1 at lib/x.c:1 f+0x1/0x2\n'
                   '[    1.200000] ---[ end trace 0000000000000000 ]---\n' + CONSOLE +
                   '[    3.000000] lab: start guest-prog\n')
        self.fails(GOOD.replace('taint 262144 after boot', 'taint 262656 after boot'),
                   console=console,
                   says='tainted W (/proc/sys/kernel/tainted 262656) during boot (the built-in '
                        'KUnit suites ran then); console reports during boot came from demo_suite')

    def test_no_taint_reading_fails(self):
        self.fails(''.join(l for l in GOOD.splitlines(True) if 'lab: taint' not in l),
                   says='no "# lab: taint" readings')


SPLAT_LINES = [
    'kernel BUG at mm/slub.c:453!',
    'list_add corruption. prev->next should be next (ffffffff83a0c2a0), but was 0000000000000000.',
    'list_del corruption, ffff888004a1c000->next is LIST_POISON1 (dead000000000100)',
    'refcount_t: underflow; use-after-free.',
    'INFO: task kworker/0:1:12 blocked for more than 120 seconds.',
    'rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:',
    'rcu: INFO: rcu_preempt self-detected stall on CPU',
    'watchdog: BUG: soft lockup - CPU#0 stuck for 26s! [swapper/0:1]',
    'ODEBUG: free active (active state 0) object: ffff888003e3c0a8 object type: timer_list',
    '------------[ cut here ]------------',
    'unregister_netdevice: waiting for lo to become free. Usage count = 2',
    'WARNING: CPU: 0 PID: 1 at drivers/i2c/i2c-core-base.c:1 i2c_foo+0x1/0x2',
    'BUG: KASAN: slab-use-after-free in i2c_foo+0x1/0x2',
    'BUG: KFENCE: out-of-bounds read in test_foo+0x1/0x2',
    'BUG: sleeping function called from invalid context at kernel/locking/mutex.c:283',
    '[ BUG: Invalid wait context ]',
    'WARNING: possible circular locking dependency detected',
    'UBSAN: shift-out-of-bounds in drivers/foo.c:12:3',
    'ref_tracker: eth0@ffff888004c1c5f8 has 1/1 users at',
    'general protection fault, probably for non-canonical address 0xdffffc0000000001: 0000 [#1]',
    'Oops: invalid opcode: 0000 [#1] PREEMPT SMP KASAN',
    'kmemleak: 2 new suspected memory leaks (see /sys/kernel/debug/kmemleak)',
    'unreferenced object 0xffff888003c1a000 (size 64):',
    'BUG kmalloc-64 (Not tainted): Poison overwritten',
    'Kernel panic - not syncing: Fatal exception',
    'Disabling lock debugging due to kernel taint',
    'kmemleak: Kernel memory leak detector disabled',
]

# The consoles of issue 11 that the old judge passed.
ISSUE_CONSOLES = [
    'kernel BUG at drivers/i2c/i2c-core-base.c:2200!',
    'list_add corruption. next->prev should be prev (ffff8880049c8f18), but was 0000000000000000.',
    'refcount_t: underflow; use-after-free.',
    'INFO: task arb-two-masters:120 blocked for more than 120 seconds.',
    'unregister_netdevice: waiting for lo to become free. Usage count = 2',
]

WARNING_REPORT = """[   40.000100] ------------[ cut here ]------------
[   40.000200] WARNING: CPU: 1 PID: 95 at drivers/i2c/muxes/i2c-arb.c:120 arb_select+0x99/0x120
[   40.000300] Modules linked in: i2c_wire_sim(O)
[   40.000400] CPU: 1 UID: 0 PID: 95 Comm: arb-two-masters Tainted: G           O N 6.12.0 #1
[   40.000500] Hardware name: QEMU Standard PC (i440FX + PIIX, 1996), BIOS 0.0.0 02/06/2015
[   40.000600] RIP: 0010:arb_select+0x99/0x120
[   40.000700] Code: 48 89 df e8 00 00 00 00 <0f> 0b 31 c0 5b c3
[   40.000800] RSP: 0018:ffff88800459f9c8 EFLAGS: 00010246
[   40.000900] Call Trace:
[   40.001000]  <TASK>
[   40.001100]  ? __warn+0xa1/0x1c0
[   40.001200]  __i2c_transfer+0x1d2/0x9e0
[   40.001300]  </TASK>
[   40.001400] irq event stamp: 1234
[   40.001500] ---[ end trace 0000000000000000 ]---
"""


class Splats(Verdicts):
    def test_every_kind_of_report_fails_the_run(self):
        for splat in SPLAT_LINES:
            with self.subTest(splat=splat):
                self.fails(GOOD, console=CONSOLE + f'[    3.000000] {splat}\n',
                           says='console line 3')

    def test_a_report_names_the_suite_that_was_running(self):
        console = (CONSOLE + '[   39.000000] lab: start guest-prog\n' + WARNING_REPORT +
                   '[   41.000000] lab: start kmemleak scan after the last suite\n'
                   'unreferenced object 0xffff888003c1a000 (size 64):\n')
        out = self.fails(GOOD, console=console,
                         says=['WARNING during guest-prog', 'kmemleak report during kmemleak scan'])
        self.assertEqual(out.count('ERROR:'), 2, out)

    def test_a_splat_in_a_built_in_kunit_suite_names_it(self):
        console = ('[    1.000000]     KTAP version 1\n[    1.000001]     # Subtest: demo_suite\n'
                   '[    1.000002] refcount_t: underflow; use-after-free.\n')
        self.fails(GOOD, console=console, says='refcount_t report during demo_suite')

    def test_each_report_is_counted_once(self):
        out = self.fails(GOOD, console=CONSOLE + WARNING_REPORT + WARNING_REPORT)
        self.assertEqual(out.count('ERROR:'), 2, out)
        self.assertEqual(last_line(out), '3 passed, 2 failed, 1 skipped')

    def test_ordinary_kernel_messages_pass(self):
        console = CONSOLE + ('[    3.0] i2c i2c-3: write failed\n'
                             '[    3.1] kmemleak: Kernel memory leak detector initialized\n'
                             '[    3.2] lab: start guest-prog\n'
                             '[    3.3] ODEBUG: selftest passed\n')
        self.passes(GOOD, console=console)


def fake_kunit(d, summary, status=0):
    """A stand-in for kunit.py that prints summary and exits with status."""
    path = os.path.join(d, 'kunit.py')
    with open(path, 'w') as f:
        f.write(f'import sys\nprint("[00:00:00] Testing complete. {summary}")\nsys.exit({status})\n')
    return path


class SecondOpinion(Verdicts):
    def test_a_kunit_py_that_agrees_lets_the_run_pass(self):
        with tempfile.TemporaryDirectory() as d:
            self.passes(GOOD, kunit=fake_kunit(d, 'Ran 4 tests: passed: 3, skipped: 1'))

    def test_a_kunit_py_that_counts_differently_fails_the_run(self):
        with tempfile.TemporaryDirectory() as d:
            self.fails(GOOD, kunit=fake_kunit(d, 'Ran 3 tests: passed: 3'),
                       says='kunit.py and the judge count the stream differently')

    def test_a_kunit_py_that_fails_what_the_judge_passes_fails_the_run(self):
        for summary, status in (('Ran 4 tests: passed: 3, skipped: 1, errors: 1', 0),
                                ('Ran 4 tests: passed: 3, skipped: 1', 1)):
            with tempfile.TemporaryDirectory() as d, self.subTest(summary=summary, status=status):
                self.fails(GOOD, kunit=fake_kunit(d, summary, status),
                           says='kunit.py fails the stream, the judge passes it')

    def test_a_kunit_py_that_cannot_run_fails_the_run(self):
        self.fails(GOOD, kunit='/nonexistent/kunit.py', says='second opinion')


SUITE_START = re.compile(r'(?:lab: start |^\[[ .\d]+\]     # Subtest: )(\S+)\s*$')


def captures(passing_only=True):
    """The real runs under judge_test/: {name: (results, console)}; each
    folder's 'verdict' is what the judge must print for it."""
    runs = {}
    for name in sorted(os.listdir(CAPTURES)) if os.path.isdir(CAPTURES) else []:
        d = os.path.join(CAPTURES, name)
        if not os.path.isdir(d):
            continue
        if passing_only and not read(os.path.join(d, 'verdict')).rstrip().endswith(' 0 failed'):
            continue
        runs[name] = (os.path.join(d, 'results.ktap'), os.path.join(d, 'console.log'))
    return runs


def read(path):
    with open(path, newline='') as f:
        return f.read()


class Captured(Verdicts):
    """Real runs get their verdict; each breakage derived from a passing one fails."""

    def setUp(self):
        self.runs = captures()
        if not self.runs:
            self.fail('no captured passing runs in lab/judge_test/')

    def test_each_captured_run_gets_its_verdict(self):
        for name, (r, c) in captures(passing_only=False).items():
            with self.subTest(run=name):
                want = read(os.path.join(os.path.dirname(r), 'verdict'))
                rc, out = judge_files(r, c)
                self.assertEqual(out, want)
                self.assertEqual(rc, 0 if want.rstrip().endswith(' 0 failed') else 1)

    def test_a_truncated_capture_fails(self):
        for name, (r, c) in self.runs.items():
            lines = read(r).splitlines(True)
            with self.subTest(run=name):
                self.fails(''.join(lines[:len(lines) * 2 // 3]), read(c), says='the stream ends')

    def test_a_capture_with_a_duplicated_result_fails(self):
        for name, (r, c) in self.runs.items():
            lines = read(r).splitlines(True)
            i = next(i for i, l in enumerate(lines) if l.strip().startswith('ok ') and
                     l.startswith(' '))
            with self.subTest(run=name):
                self.fails(''.join(lines[:i + 1] + lines[i:]), read(c), says='test number')

    def test_a_capture_with_a_failed_case_fails(self):
        for name, (r, c) in self.runs.items():
            text = read(r)
            i = text.index('    ok ')
            with self.subTest(run=name):
                self.fails(text[:i] + '    not ' + text[i + 4:], read(c), says='FAILED: ')

    def test_a_capture_missing_a_planned_result_fails(self):
        for name, (r, c) in self.runs.items():
            lines = read(r).splitlines(True)
            i = next(i for i, l in enumerate(lines) if l.startswith('    ok 2 '))
            with self.subTest(run=name):
                self.fails(''.join(lines[:i] + lines[i + 1:]), read(c), says='plan 1..')

    def test_a_capture_with_a_tab_indented_not_ok_fails(self):
        for name, (r, c) in self.runs.items():
            lines = read(r).splitlines(True)
            i = next(i for i, l in enumerate(lines) if l.startswith('    ok '))
            lines[i] = '\tnot ' + lines[i].lstrip()
            with self.subTest(run=name):
                self.fails(''.join(lines), read(c), says='FAILED: ')

    def test_a_capture_with_a_splat_inserted_fails_and_names_the_suite(self):
        for name, (r, c) in self.runs.items():
            lines = read(c).splitlines(True)
            # After the last line that names a suite: a guest program's
            # marker, or KUnit's own header of a built-in suite.
            starts = [(i, m.group(1)) for i, m in enumerate(map(SUITE_START.search, lines))
                      if m and 'kmemleak' not in m.group(1)]
            i, suite = starts[-1]
            for splat in ISSUE_CONSOLES:
                with self.subTest(run=name, splat=splat):
                    console = ''.join(lines[:i + 1]) + f'[   99.0] {splat}\n' + ''.join(lines[i + 1:])
                    self.fails(read(r), console, says=f'during {suite}: {splat}')


@unittest.skipUnless(os.path.exists(KUNIT_PY), f'no tree at hand ({KUNIT_PY})')
class KunitPyAgrees(unittest.TestCase):
    """The tree's kunit.py reads the streams as the judge does."""

    def test_kunit_py_agrees_on_real_and_broken_streams(self):
        cases = {name: (read(r), read(c), 0) for name, (r, c) in captures().items()}
        for name, (r, c, _) in list(cases.items()):
            cases[name + ' truncated'] = (r[:len(r) * 2 // 3], c, 1)
        for name, (r, c) in captures(passing_only=False).items():
            cases.setdefault(name, (read(r), read(c), 1))
        cases['plan 1..10, three results'] = (document(
            '    KTAP version 1\n    # Subtest: s\n    1..10\n    ok 1 a\n    ok 2 b\n'
            '    ok 3 c\nok {nr} s\n'), CONSOLE, 1)
        cases['two results numbered 1'] = (document(
            '    KTAP version 1\n    # Subtest: s\n    1..2\n    ok 1 a\n    ok 1 b\nok {nr} s\n'),
            CONSOLE, 1)
        cases['tab-indented not ok'] = (document(
            '    KTAP version 1\n    # Subtest: s\n    1..2\n    ok 1 a\n\tnot ok 2 b\nnot ok {nr} s\n'),
            CONSOLE, 1)
        cases['good'] = (GOOD, CONSOLE, 0)
        with tempfile.TemporaryDirectory() as d:
            paths = {}
            for i, (name, (r, _, _)) in enumerate(cases.items()):
                paths[name] = os.path.join(d, f'{i}.ktap')
                with open(paths[name], 'w') as f:
                    f.write(r)
            # kunit.py takes a second a stream: run them side by side.
            with concurrent.futures.ThreadPoolExecutor(4) as pool:
                opinions = {name: pool.submit(judge.kunit_second_opinion, KUNIT_PY, p)
                            for name, p in paths.items()}
                opinions = {name: o.result() for name, o in opinions.items()}
        for name, (r, _, want) in cases.items():
            c, fails, errors, _, _ = judge.judge_stream(r.splitlines(), [], [])
            stream_ok = not fails and not errors
            with self.subTest(stream=name):
                self.assertEqual(stream_ok, not want, (fails, errors))
                self.assertEqual(judge.compare(opinions[name], c, stream_ok), [])


if __name__ == '__main__':
    unittest.main(verbosity=0)
