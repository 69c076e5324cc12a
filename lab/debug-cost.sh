#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make debug-cost: what each detector of the debug kernel costs in
# boot-and-test time. Every round boots the debug kernel once per arm: all
# detectors on, and one arm per detector (or group) with it off, either on
# the kernel command line or, for those only Kconfig switches, in a kernel
# of its own built with a fragment of lab/config/arms/ (LAB_CONFIG_ARM).
# Round i starts at arm i (rotated), so no arm always runs first or last in
# a round. Every boot must pass (a detector switched off must not change a
# verdict); the table gives each arm's median [min-max] over
# LAB_BENCH_BOOTS rounds (5) and the median of its per-round difference to
# the all-on boot of that round, so drift of the host over the run falls on
# every arm alike. LAB_COST_ARMS="<id> ..." runs only those arms (with all
# on): a kernel arm costs a build of its own (up to a full debug build).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
export FLAVOR=debug ONLY=${ONLY:-}
boots=${LAB_BENCH_BOOTS:-5}	# checked by lab_check_inputs

# id|name|kernel command line that switches it off|config arm. Command
# lines checked in 6.12: lib/debugobjects.c, kernel/watchdog.c,
# kernel/hung_task.c through the sysctl.* boot parameters,
# kernel/locking/lockdep.c's module parameter.
all_arms=(
	"on|all on||"
	"objects|DEBUG_OBJECTS off|no_debug_objects|"
	"watchdogs|soft-lockup and hung-task detectors off|nosoftlockup sysctl.kernel.hung_task_timeout_secs=0|"
	"lockdep|lockdep validation off|lockdep.prove_locking=0|"
	"net-trackers|net reference trackers and DEBUG_NET off (kernel)||no-net-trackers"
	"raw-nesting|PROVE_RAW_LOCK_NESTING off (kernel)||no-raw-lock-nesting"
	"rcu-irqflags|PROVE_RCU_LIST and DEBUG_IRQFLAGS off (kernel)||no-rcu-list-irqflags"
)
ids=()
for a in "${all_arms[@]:1}"; do ids+=("${a%%|*}"); done
lab_check_words LAB_COST_ARMS "${LAB_COST_ARMS:-}" "${ids[@]}"
arms=("${all_arms[0]}")
for a in "${all_arms[@]:1}"; do
	if [ -z "${LAB_COST_ARMS:-}" ] || [[ " $LAB_COST_ARMS " == *" ${a%%|*} "* ]]; then
		arms+=("$a")
	fi
done
field() { cut -d'|' -f"$2" <<<"$1"; }

lab_work_init
lab_lock
# Every kernel first, so that a failing build stops the run before any
# boot and no round's time includes a build.
for a in "${arms[@]}"; do
	LAB_CONFIG_ARM=$(field "$a" 4) "$LAB_REPO/lab/build.sh"
done
out=$LAB_WORK/debug-cost.tsv
: >"$out"
say "$boots rounds of ${#arms[@]} debug boots each; seconds in $out"
for i in $(seq "$boots"); do
	for k in $(seq 0 $((${#arms[@]} - 1))); do
		arm=${arms[$(((i - 1 + k) % ${#arms[@]}))]}
		name=$(field "$arm" 2)
		say "round $i of $boots: $name"
		log=$(mktemp)
		LAB_APPEND="${LAB_APPEND:-} $(field "$arm" 3)" LAB_CONFIG_ARM=$(field "$arm" 4) \
			"$LAB_REPO/lab/test.sh" >"$log" 2>&1 ||
			{ tail -30 "$log"; die "round $i, '$name': the test run failed (log above)"; }
		secs=$(sed -n 's/.*boot and tests took \([0-9.]*\) s.*/\1/p' "$log")
		rm -f "$log"
		[ -n "$secs" ] || die "round $i, '$name': no 'boot and tests took' line"
		printf '%s\t%s\t%s\n' "$name" "$i" "$secs" >>"$out"
	done
done
"$LAB_REPO/lab/debug_cost_table.py" "$out"
