#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make kunit [ONLY="<feature> ..."]: the inner loop for the pure units.
# The tree's own tools/testing/kunit/kunit.py builds a small kernel from
# the .kunitconfig files the selected features own (features/<f>/tree/
# .../tests/.kunitconfig), boots it and parses its KTAP; kunit.py's verdict
# and exit status are this target's. x86_64 under QEMU, not UML: UML has
# no DMA (HAS_DMA), which the dmaengine PCM needs. The same suites run in
# every make test boot of the debug kernel; this is the quick way to
# iterate on one of them.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
export VARIANT=ours
lab_work_init
lab_lock

configs=()
for f in $(lab_series_features); do
	lab_selected "$f" || continue
	while read -r dir; do
		configs+=("--kunitconfig=$dir")
	done < <(cd "$LAB_REPO/features/$f/tree" && find . -name .kunitconfig -printf '%h\n' | sed 's|^\./||' | sort)
done
[ ${#configs[@]} -gt 0 ] ||
	die "no .kunitconfig in the features selected (ONLY='${ONLY:-}', series: $(lab_series_features | xargs))"
"$LAB_REPO/lab/tree.sh"

cmd=(python3 tools/testing/kunit/kunit.py run --arch=x86_64
     --build_dir="$LAB_WORK/build-kunit" --jobs="$LAB_JOBS"
     --make_options="CC=ccache gcc" "${configs[@]}")
say "in $LAB_SRC: $(printf '%q ' "${cmd[@]}")"
t0=$SECONDS
cd "$LAB_SRC"
# kunit.py says nothing while it builds (minutes when cold): its output
# is shown as it comes, and a line every LAB_PROGRESS seconds counts the
# objects built since it started.
log=$LAB_WORK/kunit.log stamp=$LAB_WORK/kunit.stamp
touch "$stamp"
kunit_status() {
	echo "kunit.py running, $(find "$LAB_WORK/build-kunit" -name '*.o' -newer "$stamp" 2>/dev/null | wc -l) objects built so far"
}
"${cmd[@]}" >"$log" 2>&1 &
kpid=$!
# In the background it ignores Ctrl-C: stop it with this script.
trap 'kill $kpid 2>/dev/null' EXIT INT TERM
tail -n +1 -f --pid=$kpid "$log" &
lab_progress $kpid "${LAB_PROGRESS:-60}" kunit_status
status=0
wait $kpid || status=$?
wait
say "kunit.py exit status $status after $((SECONDS - t0)) s (its output: $log)"
exit $status
