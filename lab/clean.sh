#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make clean: the run outputs (out/ in the repository, runs/ in the work
# folder). make distclean: the whole work folder, only when it carries the
# lab's mark, so a mistyped LAB_WORK never deletes someone else's files.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

is_lab_work() {
	[ -e "$LAB_WORK/$LAB_MARK" ] ||
		# Folders made before the mark existed: the lab's own layout.
		{ [ -d "$LAB_WORK/src/.git" ] && [ -f "$LAB_WORK/series.hash" ]; }
}

remove() {
	echo "rm -rf $1"
	rm -rf -- "$1"
}

case "${1:-}" in
clean)
	remove "$LAB_REPO/out"
	if [ -d "$LAB_WORK/runs" ]; then remove "$LAB_WORK/runs"; fi
	;;
distclean)
	remove "$LAB_REPO/out"
	[ -e "$LAB_WORK" ] || exit 0
	is_lab_work || die "$LAB_WORK is not a lab work folder (no $LAB_MARK in it); not deleting it"
	lab_lock
	remove "$LAB_WORK"
	;;
*)
	die "usage: clean.sh clean|distclean"
	;;
esac
