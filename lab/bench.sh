#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: every selected feature's benchmark on non-debug kernels, ours
# and upstream booted one after the other in one run (the feature-off arm is
# measured inside the guest, e.g. by a sysctl). Each feature's
# bench/report turns the two outputs into the README's table.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
export FLAVOR=nodebug ONLY=${ONLY:-}
lab_work_init
lab_lock
runs=$(lab_run_dir bench)
say "run folder: $runs"
for VARIANT in ours upstream; do
	export VARIANT
	"$LAB_REPO/lab/build.sh"
	"$LAB_REPO/lab/initramfs.sh"
	"$LAB_REPO/lab/boot.sh" bench "$runs/$VARIANT" ||
		die "benchmark boot of $VARIANT failed (console: $runs/$VARIANT/console.log)"
done
for f in $(lab_features); do
	[ -z "$ONLY" ] || [[ " $ONLY " == *" $f "* ]] || continue
	rep=$LAB_REPO/features/$f/bench/report
	[ -x "$rep" ] || continue
	for v in ours upstream; do
		tr -d '\r' <"$runs/$v/results.ktap" |
			awk -v f="$f" '$1 == "###" && $3 == f && $5 == "begin" { on = 1; next }
				       $1 == "###" && $3 == f { on = 0 } on' >"$runs/$f-$v.out"
	done
	echo "== $f =="
	"$rep" "$runs/$f-ours.out" "$runs/$f-upstream.out"
done
