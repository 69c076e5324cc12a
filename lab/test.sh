#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make test: build, boot and judge. The debug kernel (KASAN, lockdep,
# kmemleak) runs the KUnit suites and the guest tests; when a selected
# feature has timing-sensitive tests (guest-nodebug/), the non-debug kernel
# boots once more for those. Ends with the line 'N passed, N failed'.
set -euo pipefail
# make test FLAVOR=x boots that kernel only (lib.sh defaults FLAVOR).
asked_flavor=${FLAVOR:-}
. "$(dirname "$0")/lib.sh"
export ONLY=${ONLY:-}

# SUITE=<name or glob>: one suite (guest program or KUnit suite) again;
# SUITE=<suite>.<case> (globs too): one KUnit case, through kunit.filter_glob.
# shellcheck disable=SC2053 # the glob is meant
wanted() { [ -z "${SUITE:-}" ] || [[ "$1" == ${SUITE%%.*} ]]; }
# The guest clock at the first console line whose text begins with $1 ("?" if none).
guest_stamp() { sed -n "s|^\[ *\([0-9.]*\)\] $1.*|\1|p" "$2" | sed -n '1p;1q' | grep . || echo '?'; }
in_series() { [[ " $(lab_series_features | tr '\n' ' ') " == *" $1 "* ]]; }

lab_work_init
lab_lock
runs=$(lab_run_dir test)
say "run folder: $runs"

# The judge's own tests, before the first verdict: a judge that cannot
# fail would make every run green. They need the tree (kunit.py, the
# second opinion), so they run after the first build; none may skip.
judge_selftest() {
	local log=$LAB_WORK/judge_test.log
	[ -n "${judge_tested:-}" ] && return
	LAB_WORK=$LAB_WORK python3 "$LAB_REPO/lab/judge_test.py" >"$log" 2>&1 ||
		{ cat "$log"; die "the judge's own tests fail"; }
	! grep -q 'skipped=' "$log" || { cat "$log"; die "the judge's own tests skipped some"; }
	judge_tested=1
}

flavors=debug
for f in $(lab_features); do
	lab_selected "$f" && compgen -G "$LAB_REPO/features/$f/guest-nodebug/*" >/dev/null &&
		flavors="debug nodebug" && break
done
# LAB_FLAVORS (or FLAVOR) narrows a working run to one kernel; CI sets neither.
flavors=${LAB_FLAVORS:-${asked_flavor:-$flavors}}

total_pass=0 total_fail=0 total_skip=0 status=0
for FLAVOR in $flavors; do
	export FLAVOR
	args=(--expect lab-smoke)
	kunit=""
	for f in $(lab_features); do
		lab_selected "$f" || continue
		dir=$LAB_REPO/features/$f
		tests=$dir/guest
		[ "$FLAVOR" = nodebug ] && tests=$dir/guest-nodebug
		for t in "$tests"/*.c "$tests"/*.sh; do
			[ -e "$t" ] && wanted "$(basename "${t%.*}")" &&
				args+=(--expect "$(basename "${t%.*}")")
		done
		[ "$FLAVOR" = debug ] && [ -f "$dir/kunit" ] || continue
		for s in $(grep -v '^\s*#' "$dir/kunit"); do
			wanted "$s" || continue
			if in_series "$f"; then
				args+=(--expect "$s")
				kunit+=" $s"
			else
				args+=(--expect-absent "$s=KUnit suite of our implementation, not in this kernel ($VARIANT)")
			fi
		done
	done
	if [ -n "${SUITE:-}" ] && [ ${#args[@]} = 2 ]; then
		say "SUITE=$SUITE matches no suite of $FLAVOR's selected features; not booting it"
		continue
	fi
	"$LAB_REPO/lab/build.sh"
	judge_selftest
	"$LAB_REPO/lab/initramfs.sh"
	run=$runs/$FLAVOR
	t0=$(date +%s.%N)
	LAB_KUNIT_SUITES=${ONLY:+$kunit} "$LAB_REPO/lab/boot.sh" test "$run" || true
	say "boot and tests took $(echo "$(date +%s.%N) - $t0" | bc | cut -c1-6) s; guest uptime at the first test $(guest_stamp 'KTAP version' "$run/console.log") s, at /init $(guest_stamp 'Run /init' "$run/console.log") s"
	set +e
	"$LAB_REPO/lab/judge.py" --label "$VARIANT-$FLAVOR" --results "$run/results.ktap" \
		--console "$run/console.log" --qemu-rc "$(cat "$run/qemu.rc" 2>/dev/null || echo 255)" \
		--kunit "$(lab_tree)/tools/testing/kunit/kunit.py" "${args[@]}" |
		tee "$run/verdict"
	rc=${PIPESTATUS[0]}
	set -e
	if [ $rc != 0 ]; then
		status=1
		say "$VARIANT-$FLAVOR failed; console: $run/console.log, KTAP: $run/results.ktap, QEMU: $run/qemu.sh"
	fi
	read -r p f s < <(sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed\(, \([0-9]*\) skipped\)\?$/\1 \2 \4/p' "$run/verdict" | tail -n 1)
	total_pass=$((total_pass + p)) total_fail=$((total_fail + f)) total_skip=$((total_skip + ${s:-0}))
done
tail=""
[ "$total_skip" -gt 0 ] && tail=", $total_skip skipped"
echo "$total_pass passed, $total_fail failed$tail"
[ $status = 0 ] && [ "$total_fail" = 0 ] && [ "$total_pass" -gt 0 ]
