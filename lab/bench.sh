#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: every selected feature's benchmark on non-debug kernels. Ours
# and upstream boot alternately, LAB_BENCH_BOOTS times each (default 5), so
# drift of the host over the run falls on both alike; the feature-off arm
# is measured inside ours' boots (e.g. by a sysctl). Each feature's
# bench/report turns one ours/upstream pair into its table; the lab prints
# the median of the pairs' tables with the spread of every number.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
export FLAVOR=nodebug ONLY=${ONLY:-}
boots=${LAB_BENCH_BOOTS:-5}	# checked by lab_check_inputs
lab_work_init
lab_lock
runs=$(lab_run_dir bench)
say "run folder: $runs; $boots boots each of ours and upstream, alternating"
for VARIANT in ours upstream; do
	export VARIANT
	"$LAB_REPO/lab/build.sh"
	"$LAB_REPO/lab/initramfs.sh"
done
for i in $(seq "$boots"); do
	for VARIANT in ours upstream; do
		export VARIANT
		say "boot $i of $boots: $VARIANT"
		"$LAB_REPO/lab/boot.sh" bench "$runs/$VARIANT-$i" ||
			die "benchmark boot $i of $VARIANT failed (console: $runs/$VARIANT-$i/console.log)"
	done
done

# The output of feature $1 in boot $2, framed by lab-run-bench.
bench_output() {
	tr -d '\r' <"$2/results.ktap" |
		awk -v f="$1" '$1 == "###" && $3 == f && $5 == "begin" { on = 1; next }
			       $1 == "###" && $3 == f { on = 0 } on'
}

# Every benchmark program of feature $1 in boot $2 ended, with status 0.
bench_ended() {
	local bad
	bad=$(tr -d '\r' <"$2/results.ktap" |
		awk -v f="$1" '$1 == "###" && $3 == f && $5 == "begin" { open[$4] = 1 }
			       $1 == "###" && $3 == f && $5 == "end" { delete open[$4]
				       if ($7 != 0) print $4 " exited " $7 }
			       END { for (p in open) print p " did not end" }')
	[ -z "$bad" ] || die "$1 in $2: $bad"
}

# The share of boot sets in which the median of n boots lies between the
# smallest and the largest value: 1 - 2 * 2^-n.
coverage() {
	awk -v n="$1" 'BEGIN { printf "%.1f%%", 100 * (1 - 2 * 2 ^ -n) }'
}

for f in $(lab_features); do
	lab_selected "$f" || continue
	rep=$LAB_REPO/features/$f/bench/report
	[ -x "$rep" ] || continue
	tables=()
	for i in $(seq "$boots"); do
		for v in ours upstream; do
			bench_ended "$f" "$runs/$v-$i"
			bench_output "$f" "$runs/$v-$i" >"$runs/$f-$v-$i.out"
		done
		"$rep" "$runs/$f-ours-$i.out" "$runs/$f-upstream-$i.out" >"$runs/$f-table-$i.md" ||
			die "$f: bench/report failed on boot pair $i"
		tables+=("$runs/$f-table-$i.md")
	done
	echo "== $f: median [min-max] over $boots boots of each kernel; [min-max] holds the" \
		"true median with probability $(coverage "$boots") =="
	"$LAB_REPO/lab/bench_table.py" "${tables[@]}" | tee "$runs/$f-table.md"
done
