#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The project's series, built from features/<name>/:
#   commit      the commit message (subject "area: summary", body says why)
#   tree/       files the project owns, at their tree paths
#   patches/    small patches to in-tree files, applied in name order
#
#   series.sh apply    rebuild branch 'ours' in $LAB_SRC when features/ changed
#   series.sh export   git format-patch series + quilt 'series' file in $SERIES_DIR
#   series.sh refresh  write the commits of branch 'ours' back into features/
set -euo pipefail
. "$(dirname "$0")/lib.sh"
SERIES_DIR=${SERIES_DIR:-$LAB_WORK/series}
STAGE=$LAB_WORK/stage

inputs_hash() {
	(
		cd "$LAB_REPO"
		echo "$(lab_features)"
		sha1sum lab/series.sh		# how the commits are made
		for f in $(lab_features); do
			find "features/$f/commit" "features/$f/tree" "features/$f/patches" \
				-type f 2>/dev/null | sort | xargs -r sha1sum || true
		done
	) | sha1sum | cut -d' ' -f1
}

# Commit one feature on top of the stage worktree's HEAD.
commit_feature() {
	local f=$1 dir=$LAB_REPO/features/$1 p
	if [ ! -f "$dir/commit" ]; then
		say "feature $f has no commit message (features/$f/commit): not in the series"
		return
	fi
	if [ -d "$dir/tree" ]; then
		cp -a "$dir/tree/." "$STAGE/"
	fi
	for p in "$dir"/patches/*.patch; do
		[ -e "$p" ] || continue
		git -C "$STAGE" apply --whitespace=nowarn "$p" 2>"$LAB_WORK/apply.err" || {
			cat "$LAB_WORK/apply.err" >&2
			die "patch ${p#$LAB_REPO/} does not apply to linux-source-6.12 (files above)"
		}
	done
	git -C "$STAGE" add -A -f
	if git -C "$STAGE" diff --cached --quiet; then
		say "feature $f has no changes yet; no commit"
		return
	fi
	git -C "$STAGE" commit -q -s -F "$dir/commit"
	echo "$f" >>"$LAB_WORK/series-features.new"
}

# The trees built must be what features/ says, or the run tests code the
# repository does not hold (CI shares the work folder). Edits in a tree,
# or commits on 'ours' not written back by 'make refresh', stop the run
# unless LAB_USE_WORKTREE=1 asks for the trees as they are.
check_trees() {
	local t dirty head hash
	for t in "$LAB_SRC" "$LAB_UPSTREAM"; do
		[ -e "$t/.git" ] || continue
		# Not untracked files: Debian's tree ignores every top-level path.
		dirty=$(git -C "$t" status --porcelain --untracked-files=no | head -n 10)
		[ -z "$dirty" ] && continue
		[ "${LAB_USE_WORKTREE:-}" = 1 ] && { say "building $t with its uncommitted edits (LAB_USE_WORKTREE=1)"; continue; }
		die "$t has uncommitted edits, which features/ does not hold:
$dirty
  commit them on 'ours' and run 'make refresh', discard them (git -C $t checkout -f),
  or build them as they are with LAB_USE_WORKTREE=1"
	done
	check_upstream_head
	# series.head: the head the last apply (or refresh) made, and the
	# series.hash it made it for; a head recorded for another hash is
	# stale (an older lab applied the series) and proves nothing.
	read -r head hash 2>/dev/null <"$LAB_WORK/series.head" || return 0
	[ "$hash" = "$(cat "$LAB_WORK/series.hash" 2>/dev/null)" ] || return 0
	[ "$(git -C "$LAB_SRC" rev-parse HEAD)" = "$head" ] && return
	[ "${LAB_USE_WORKTREE:-}" = 1 ] && { say "building $LAB_SRC at $(git -C "$LAB_SRC" rev-parse --short HEAD) (LAB_USE_WORKTREE=1)"; return; }
	die "$LAB_SRC is at $(git -C "$LAB_SRC" log -1 --format='%h %s'), not the series applied from features/:
$(git -C "$LAB_SRC" log --oneline "$head..HEAD" 2>/dev/null | head -n 5)
  write the commits back with 'make refresh', or build them as they are with LAB_USE_WORKTREE=1"
}

# The oracle is the pristine commit and nothing else.
check_upstream_head() {
	local head
	[ -e "$LAB_UPSTREAM/.git" ] || return 0
	head=$(git -C "$LAB_UPSTREAM" rev-parse HEAD)
	[ "$head" = "$(git -C "$LAB_SRC" rev-parse pristine)" ] && return
	[ "${LAB_USE_WORKTREE:-}" = 1 ] && { say "building $LAB_UPSTREAM at ${head:0:12}, not pristine (LAB_USE_WORKTREE=1)"; return; }
	die "$LAB_UPSTREAM is at $(git -C "$LAB_UPSTREAM" log -1 --format='%h %s'), not the pristine 6.12 it must be:
  put it back with 'git -C $LAB_UPSTREAM checkout -f --detach pristine', or build it as it is with LAB_USE_WORKTREE=1"
}

apply_series() {
	local hash head
	check_trees
	hash=$(inputs_hash)
	if [ "$(cat "$LAB_WORK/series.hash" 2>/dev/null)" = "$hash" ] &&
	   [ "$(git -C "$LAB_SRC" rev-parse --abbrev-ref HEAD)" = ours ]; then
		return
	fi
	[ -z "$(git -C "$LAB_SRC" status --porcelain --untracked-files=no)" ] ||
		die "features/ changed and $LAB_SRC has uncommitted edits; applying the series would lose them"
	[ -e "$STAGE/.git" ] || git -C "$LAB_SRC" worktree add -q --detach "$STAGE" pristine
	git -C "$STAGE" checkout -q -f --detach pristine
	git -C "$STAGE" clean -fdq
	: >"$LAB_WORK/series-features.new"
	for f in $(lab_features); do
		commit_feature "$f"
	done
	head=$(git -C "$STAGE" rev-parse HEAD)
	# Checking out from the old head rewrites only the files that differ,
	# so the kernel build stays incremental.
	git -C "$LAB_SRC" checkout -q -f -B ours "$head"
	mv "$LAB_WORK/series-features.new" "$LAB_WORK/series-features"
	echo "$hash" >"$LAB_WORK/series.hash"
	echo "$head $hash" >"$LAB_WORK/series.head"
	say "series applied: $(git -C "$LAB_SRC" rev-list --count pristine..ours) patches on pristine"
}

export_series() {
	rm -rf "$SERIES_DIR"
	mkdir -p "$SERIES_DIR"
	git -C "$LAB_SRC" format-patch -q --zero-commit --no-signature \
		-o "$SERIES_DIR" pristine..ours
	(cd "$SERIES_DIR" && ls -1 ./*.patch 2>/dev/null | sed 's|^\./||' >series)
	say "exported $(wc -l <"$SERIES_DIR/series") patches to $SERIES_DIR (git am $SERIES_DIR/*.patch, or QUILT_PATCHES=$SERIES_DIR quilt push -a)"
}

# Write commit $2 back into features/$1: new files into tree/, changes to
# in-tree files into patches/0001-in-tree.patch, the message into commit.
refresh_feature() {
	local f=$1 c=$2 dir=$LAB_REPO/features/$1 path
	local -a modified=()
	rm -rf "$dir/tree" "$dir/patches"
	while IFS=$'\t' read -r st path; do
		if [ "$st" = A ]; then
			mkdir -p "$dir/tree/$(dirname "$path")"
			git -C "$LAB_SRC" show "$c:$path" >"$dir/tree/$path"
		else
			modified+=("$path")
		fi
	done < <(git -C "$LAB_SRC" diff --no-renames --name-status "$c^" "$c")
	if [ ${#modified[@]} -gt 0 ]; then
		mkdir -p "$dir/patches"
		git -C "$LAB_SRC" diff --no-renames "$c^" "$c" -- "${modified[@]}" \
			>"$dir/patches/0001-in-tree.patch"
	fi
	git -C "$LAB_SRC" log -1 --format=%B "$c" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' >"$dir/commit"
	say "refreshed features/$f from $(git -C "$LAB_SRC" log -1 --format='%h %s' "$c")"
}

refresh_series() {
	local -a feats commits
	mapfile -t feats <"$LAB_WORK/series-features"
	mapfile -t commits < <(git -C "$LAB_SRC" rev-list --reverse pristine..ours)
	[ ${#feats[@]} -eq ${#commits[@]} ] ||
		die "branch 'ours' has ${#commits[@]} commits but the series has ${#feats[@]} features; squash fixups first (git rebase -i --autosquash pristine)"
	[ -z "$(git -C "$LAB_SRC" status --porcelain --untracked-files=no)" ] ||
		die "$LAB_SRC has uncommitted changes; commit them (git commit --fixup=...) first"
	for i in "${!feats[@]}"; do
		refresh_feature "${feats[$i]}" "${commits[$i]}"
	done
	inputs_hash >"$LAB_WORK/series.hash"
	echo "$(git -C "$LAB_SRC" rev-parse HEAD) $(cat "$LAB_WORK/series.hash")" >"$LAB_WORK/series.head"
}

case "${1:-}" in
apply) apply_series ;;
export) apply_series; export_series ;;
refresh) refresh_series ;;
*) die "usage: series.sh apply|export|refresh" ;;
esac
