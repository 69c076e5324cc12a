#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make debug-cost: what each detector of the debug kernel that can be
# switched off at boot costs in boot-and-test time. Every round boots the
# debug kernel once per arm: all detectors on, and one arm per detector
# with it switched off on the kernel command line; round i starts at arm i
# (rotated), so no arm always runs first or last in a round. Every
# boot must pass (a detector switched off must not change a verdict); the
# table gives each arm's median [min-max] over LAB_BENCH_BOOTS rounds (5)
# and the median of its per-round difference to the all-on boot of that
# round, so drift of the host over the run falls on every arm alike.
#
# Detectors that only Kconfig can switch off (KASAN, the net reference
# trackers, DEBUG_NET...) need a kernel of their own each: not measured
# here (README, "Debug kernel").
set -euo pipefail
. "$(dirname "$0")/lib.sh"
export FLAVOR=debug ONLY=${ONLY:-}
boots=${LAB_BENCH_BOOTS:-5}	# checked by lab_check_inputs

# name|kernel command line that switches it off (checked in 6.12:
# lib/debugobjects.c, kernel/watchdog.c, kernel/hung_task.c through the
# sysctl.* boot parameters, kernel/locking/lockdep.c's module parameter).
arms=(
	"all on|"
	"DEBUG_OBJECTS off|no_debug_objects"
	"soft-lockup and hung-task detectors off|nosoftlockup sysctl.kernel.hung_task_timeout_secs=0"
	"lockdep validation off|lockdep.prove_locking=0"
)

lab_work_init
lab_lock
out=$LAB_WORK/debug-cost.tsv
: >"$out"
say "$boots rounds of ${#arms[@]} debug boots each; seconds in $out"
for i in $(seq "$boots"); do
	for k in $(seq 0 $((${#arms[@]} - 1))); do
		arm=${arms[$(((i - 1 + k) % ${#arms[@]}))]}
		name=${arm%%|*}
		say "round $i of $boots: $name"
		log=$(mktemp)
		LAB_APPEND="${LAB_APPEND:-} ${arm#*|}" "$LAB_REPO/lab/test.sh" >"$log" 2>&1 ||
			{ tail -30 "$log"; die "round $i, '$name': the test run failed (log above)"; }
		secs=$(sed -n 's/.*boot and tests took \([0-9.]*\) s.*/\1/p' "$log")
		rm -f "$log"
		[ -n "$secs" ] || die "round $i, '$name': no 'boot and tests took' line"
		printf '%s\t%s\t%s\n' "$name" "$i" "$secs" >>"$out"
	done
done
"$LAB_REPO/lab/debug_cost_table.py" "$out"
