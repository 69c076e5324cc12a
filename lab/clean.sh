#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make clean: the run outputs (runs/ and the exported series/ in the work
# folder). make distclean: the whole work folder, only when it carries the
# lab's mark, so a mistyped LAB_WORK never deletes someone else's files.
# Nothing outside $LAB_WORK is ever deleted.
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
	[ -e "$LAB_WORK" ] || exit 0
	is_lab_work || die "$LAB_WORK is not a lab work folder (no $LAB_MARK in it); not deleting in it"
	lab_lock
	for d in runs series; do
		if [ -d "$LAB_WORK/$d" ]; then remove "$LAB_WORK/$d"; fi
	done
	;;
distclean)
	[ -e "$LAB_WORK" ] || exit 0
	is_lab_work || die "$LAB_WORK is not a lab work folder (no $LAB_MARK in it); not deleting it"
	lab_lock
	remove "$LAB_WORK"
	;;
*)
	die "usage: clean.sh clean|distclean"
	;;
esac
