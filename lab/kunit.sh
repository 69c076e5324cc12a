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
status=0
"${cmd[@]}" || status=$?
say "kunit.py exit status $status after $((SECONDS - t0)) s"
exit $status
