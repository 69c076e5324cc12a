#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The judge must fail every run it should: make test runs this first."""
import os
import subprocess
import sys
import tempfile
import unittest

JUDGE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'judge.py')

KUNIT = """KTAP version 1\r
1..1\r
    KTAP version 1\r
    # Subtest: demo_suite\r
    1..2\r
    ok 1 the first property holds\r
    # a diagnostic\r
    {second} 2 the second property holds\r
ok 1 demo_suite\r
"""
GUEST = """KTAP version 1
1..1
    KTAP version 1
    # Subtest: guest
    1..2
    ok 1 a guest case passes
    ok 2 an extension case # SKIP extension of this project, absent upstream
ok 1 guest-prog
"""


def judge(stream, console='boot ok\n', rc=33, extra=()):
    with tempfile.TemporaryDirectory() as d:
        r, c = os.path.join(d, 'r'), os.path.join(d, 'c')
        with open(r, 'w') as f:
            f.write(stream)
        with open(c, 'w') as f:
            f.write(console)
        p = subprocess.run([sys.executable, JUDGE, '--results', r, '--console', c,
                            '--qemu-rc', str(rc), *extra], capture_output=True, text=True)
        return p.returncode, p.stdout


GOOD = KUNIT.format(second='ok') + GUEST + '# lab: done\n'


class JudgeTest(unittest.TestCase):
    def test_a_clean_run_passes_and_counts_every_case(self):
        rc, out = judge(GOOD, extra=['--expect', 'demo_suite', '--expect', 'guest-prog'])
        self.assertEqual(rc, 0, out)
        self.assertTrue(out.rstrip().endswith('3 passed, 0 failed, 1 skipped'), out)

    def test_a_failing_kunit_case_fails_the_run_and_is_named(self):
        rc, out = judge(KUNIT.format(second='not ok') + '# lab: done\n')
        self.assertEqual(rc, 1)
        self.assertIn('FAILED: demo_suite.the second property holds', out)
        self.assertIn('# a diagnostic', out)

    def test_a_kunit_expectation_keeps_its_operands_and_message(self):
        stream = ("KTAP version 1\n1..1\n    KTAP version 1\n"
                  "    # Subtest: of_suite\n    1..2\n"
                  "    # of_case: EXPECTATION FAILED at drivers/of/x.c:28\n"
                  "    Expected np == ((void *)0), but\n"
                  "        np == ffff888000977e00\n"
                  "the node exists\n"
                  "    not ok 1 of_case\n    ok 2 of_other\n"
                  "not ok 1 of_suite\n# lab: done\n")
        rc, out = judge(stream)
        self.assertEqual(rc, 1)
        self.assertIn('FAILED: of_suite.of_case', out)
        self.assertIn('np == ffff888000977e00', out)
        self.assertIn('the node exists', out)
        self.assertTrue(out.rstrip().endswith('1 passed, 1 failed'), out)

    def test_a_guest_program_that_dies_fails_its_suite(self):
        rc, out = judge(GUEST.replace('ok 1 guest-prog', 'not ok 1 guest-prog') + '# lab: done\n')
        self.assertEqual(rc, 1)
        self.assertIn('guest-prog (suite)', out)

    def test_a_cut_stream_fails(self):
        rc, out = judge(KUNIT.format(second='ok'))
        self.assertEqual(rc, 1)
        self.assertIn('did not finish', out)

    def test_a_splat_on_the_console_fails(self):
        for splat in ('WARNING: CPU: 0 PID: 1 at foo.c:1', 'BUG: KASAN: slab-use-after-free',
                      'unreferenced object 0xffff888003c1a000 (size 64):',
                      'WARNING: possible circular locking dependency detected'):
            rc, out = judge(GOOD, console='x\n' + splat + '\n')
            self.assertEqual(rc, 1, splat)
            self.assertIn('console line 2', out)

    def test_a_panic_or_timeout_fails(self):
        for rc_qemu, why in ((1, 'panicked'), (124, 'hung'), (0, 'powered off')):
            rc, out = judge(GOOD, rc=rc_qemu)
            self.assertEqual(rc, 1)
            self.assertIn(why, out)

    def test_no_test_at_all_fails(self):
        rc, out = judge('# lab: done\n')
        self.assertEqual(rc, 1)
        self.assertIn('no test ran', out)

    def test_an_expected_suite_that_did_not_report_fails(self):
        rc, out = judge(GOOD, extra=['--expect', 'missing_suite'])
        self.assertEqual(rc, 1)
        self.assertIn('missing_suite was expected', out)

    def test_a_suite_absent_on_this_variant_is_skipped_with_its_reason(self):
        rc, out = judge(GOOD, extra=['--expect-absent', 'ours_kunit=not upstream'])
        self.assertEqual(rc, 0, out)
        self.assertIn('skipped: ours_kunit: not upstream', out)
        self.assertTrue(out.rstrip().endswith('2 skipped'), out)


if __name__ == '__main__':
    unittest.main(verbosity=0)
