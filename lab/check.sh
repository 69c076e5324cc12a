#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check: the exported series passes checkpatch --strict with zero
# errors (warnings are listed for the commit message to justify), and each
# feature's own check (features/<f>/check: in-tree users still build) passes.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
SERIES_DIR=${SERIES_DIR:-$LAB_REPO/out/series}
status=0
# checkpatch's SPDX check runs scripts/spdxcheck.py with 'python3' from
# PATH; Debian's, which has python3-ply, must win over any other.
export PATH=/usr/bin:$PATH
for p in "$SERIES_DIR"/*.patch; do
	[ -e "$p" ] || { say "the series is empty"; break; }
	if "$LAB_SRC/scripts/checkpatch.pl" --strict --terse --root="$LAB_SRC" "$p" \
		>"$p.checkpatch" 2>&1; then
		say "checkpatch: $(basename "$p"): $(tail -n 1 "$p.checkpatch")"
	else
		grep -E 'ERROR|WARNING' "$p.checkpatch" || true
		say "checkpatch: $(basename "$p"): $(tail -n 1 "$p.checkpatch")"
		grep -q 'ERROR' "$p.checkpatch" && status=1
	fi
done
for f in $(lab_features); do
	if [ -x "$LAB_REPO/features/$f/check" ] && [ -f "$LAB_REPO/features/$f/commit" ]; then
		say "check: $f"
		"$LAB_REPO/features/$f/check" || status=1
	fi
done
exit $status
