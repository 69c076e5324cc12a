#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Prepare the kernel trees in the work folder:
#   $LAB_SRC       git repository, first commit the pristine linux-source-6.12,
#                  branch 'ours' = pristine + the project's series
#   $LAB_UPSTREAM  worktree of the pristine commit (VARIANT=upstream, the oracle)
# The series is rebuilt from features/ by lab/series.sh; a patch that does not
# apply stops here naming the patch and the file.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

extract_pristine() {
	[ -f "$LAB_TARBALL" ] || die "$LAB_TARBALL missing (package linux-source-6.12)"
	say "extracting $LAB_TARBALL into $LAB_SRC"
	local t0=$SECONDS
	rm -rf "$LAB_SRC.tmp"
	mkdir -p "$LAB_SRC.tmp"
	tar -xf "$LAB_TARBALL" -C "$LAB_SRC.tmp" --strip-components=1
	(
		cd "$LAB_SRC.tmp"
		git init -q -b base
		git config user.name "Kernel Lab"
		git config user.email "lab@localhost"
		git config core.autocrlf false
		git config gc.auto 0
		git add -A -f
		git commit -q -m "linux-source-6.12 $(make -s kernelversion), pristine"
		git tag pristine
	)
	mv "$LAB_SRC.tmp" "$LAB_SRC"
	say "extracted and committed the pristine tree in $((SECONDS - t0)) s"
}

lab_work_init
[ -d "$LAB_SRC/.git" ] || extract_pristine
if [ ! -e "$LAB_UPSTREAM/.git" ]; then
	git -C "$LAB_SRC" worktree prune
	git -C "$LAB_SRC" worktree add -q --detach "$LAB_UPSTREAM" pristine
fi
"$LAB_REPO/lab/series.sh" apply
