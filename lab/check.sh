#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check: the exported series passes checkpatch --strict with zero
# errors (warnings are listed for the commit message to justify), and for
# each feature in the series: the C files it owns (features/<f>/tree) build
# with W=1 and no warning, its DT bindings pass yamllint with the bindings'
# own rules, and every in-tree user it lists (features/<f>/users) that
# compiles on upstream compiles on ours. Needs the ours and upstream kernels
# of $FLAVOR built (make test [FLAVOR=...]; make test VARIANT=upstream).
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
# The C files feature $1 owns, as the objects kbuild makes of them.
own_objects() {
	(cd "$LAB_REPO/features/$1/tree" && find . -name '*.c' | sed 's|^\./||; s|\.c$|.o|' | sort)
}

# What a feature owns builds cleanly: W=1 objects without a warning, and
# bindings that pass yamllint (what dt_binding_check runs first; bookworm's
# schema validator is older than 6.12 accepts).
check_own() {
	local f=$1 src y log=$LAB_WORK/check-$1-own.log objs
	src=$(VARIANT=ours lab_tree)
	for y in $(cd "$LAB_REPO/features/$f/tree" && find . -name '*.yaml' | sed 's|^\./||'); do
		yamllint -s -c "$src/Documentation/devicetree/bindings/.yamllint" "$src/$y" ||
			{ say "$f: $y does not pass yamllint"; return 1; }
		say "$f: $y passes yamllint"
	done
	mapfile -t objs < <(own_objects "$f")
	[ ${#objs[@]} -gt 0 ] || return 0
	VARIANT=ours kmake W=1 "${objs[@]}" >"$log" 2>&1 ||
		{ grep -E 'error' "$log" | head -n 10 >&2; say "$f: its own files do not build ($log)"; return 1; }
	if grep -q 'warning:' "$log"; then
		grep 'warning:' "$log" >&2
		say "$f: its own files build with W=1 warnings ($log)"
		return 1
	fi
	say "$f: ${#objs[@]} own objects build with W=1, no warning: ${objs[*]}"
}

# The in-tree users a feature lists still compile (lab_check_users).
check_users() {
	local f=$1 list=$LAB_REPO/features/$1/users users
	[ -f "$list" ] || { say "$f: no users file: every feature lists the in-tree users of its API"; return 1; }
	mapfile -t users < <(sed 's/#.*//' "$list" | awk 'NF { print $1 }')
	lab_check_users "$f" "${users[@]}"
	say "$f: ${#lab_users_built[@]} of ${#users[@]} in-tree users build on ours: ${lab_users_built[*]}"
	[ ${#lab_users_na[@]} -eq 0 ] ||
		say "$f: not built on upstream either with this x86 config: ${lab_users_na[*]}"
	[ ${#lab_users_broken[@]} -eq 0 ] || {
		say "$f: in-tree users that build on upstream but not on ours: ${lab_users_broken[*]}"
		return 1
	}
}

VARIANT=ours
lab_lock
for f in $(lab_series_features); do
	say "check: $f"
	check_own "$f" || status=1
	check_users "$f" || status=1
done
exit $status
