#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Configure $(lab_build_dir): tinyconfig, then the lab base, every feature's
# fragment (and, for VARIANT=ours, the fragments of our own test code), then
# the flavor (debug or nodebug) and LAB_CONFIG_ARM's fragment if set, merged
# by the tree's merge_config.sh. After olddefconfig every requested option
# must hold as written; one that does not stops the build with its name and
# what it became.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

fragments() {
	local f
	echo "$LAB_REPO/lab/config/base.config"
	# Every feature's hardware, whatever LAB_FEATURES narrows the series
	# to: one machine for all, so builds of narrowed series share ccache.
	for f in $(LAB_FEATURES="" lab_features); do
		[ -f "$LAB_REPO/features/$f/config" ] && echo "$LAB_REPO/features/$f/config"
	done
	for f in $(lab_series_features); do
		[ -f "$LAB_REPO/features/$f/config.ours" ] && echo "$LAB_REPO/features/$f/config.ours"
	done
	echo "$LAB_REPO/lab/config/$FLAVOR.config"
	lab_config_arm
	echo "$LAB_WORK/localversion-$VARIANT.config"
}

# Print "SYMBOL=value" for each request, the last fragment winning;
# "# CONFIG_X is not set" and CONFIG_X=n both mean n.
requested() {
	sed -n -e 's/^# \(CONFIG_[A-Za-z0-9_]*\) is not set.*/\1=n/p' \
	       -e 's/^\(CONFIG_[A-Za-z0-9_]*=[^ #]*\).*/\1/p' "$@" |
	awk -F= '{ v[$1] = $2; if (!($1 in o)) o[$1] = n++ }
		 END { for (k in v) print o[k] "\t" k "=" v[k] }' | sort -n | cut -f2
}

check_config() {
	local cfg=$1 sym want got bad=0
	while IFS== read -r sym want; do
		got=$(sed -n -e "s/^$sym=\(.*\)/\1/p" -e "s/^# $sym is not set/n/p" "$cfg")
		[ -z "$got" ] && got=n
		if [ "$got" != "$want" ]; then
			echo "lab: config: $sym=$want requested, but olddefconfig made it $got (hidden symbol nothing selects, or an unmet dependency: see 'make O=... menuconfig' search)" >&2
			bad=1
		fi
	done < <(requested "${frags[@]}")
	[ $bad = 0 ] || die "config of $(lab_build_dir) does not hold every requested option"
}

out=$(lab_build_dir)
mkdir -p "$out"
echo "CONFIG_LOCALVERSION=\"-lab-$VARIANT\"" >"$LAB_WORK/localversion-$VARIANT.config"
mapfile -t frags < <(fragments)
# The tree as built: HEAD, and Kconfig edits not committed (LAB_USE_WORKTREE).
stamp=$( (cat "${frags[@]}"; git -C "$(lab_tree)" rev-parse HEAD
	  git -C "$(lab_tree)" diff HEAD -- '*Kconfig*') | sha1sum | cut -d' ' -f1)
if [ -f "$out/.config" ] && [ "$(cat "$out/.lab-config-stamp" 2>/dev/null)" = "$stamp" ]; then
	exit 0
fi
say "configuring $out ($VARIANT, $FLAVOR) from ${#frags[@]} fragments"
kmake -s tinyconfig >/dev/null
(
	cd "$out"
	KCONFIG_CONFIG=.config "$(lab_tree)/scripts/kconfig/merge_config.sh" -m -O "$out" \
		.config "${frags[@]}" >"$out/merge_config.log" 2>&1
) || { tail -20 "$out/merge_config.log" >&2; die "merge_config.sh failed"; }
kmake -s olddefconfig >/dev/null
check_config "$out/.config"
echo "$stamp" >"$out/.lab-config-stamp"
