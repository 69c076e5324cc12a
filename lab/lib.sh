# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Shared settings of the lab scripts: where things live, and small helpers.
# Sourced, not run.

LAB_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The work folder: the kernel trees and every build output. Outside the
# repository by default; LAB_WORK moves it.
LAB_WORK=${LAB_WORK:-/var/tmp/kernel-lab}
LAB_TARBALL=${LAB_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
LAB_SRC=$LAB_WORK/src			# git repository: pristine commit + our series
LAB_UPSTREAM=$LAB_WORK/upstream		# worktree of the pristine commit
LAB_JOBS=${LAB_JOBS:-$(nproc)}
VARIANT=${VARIANT:-ours}
FLAVOR=${FLAVOR:-debug}

die() { echo "lab: ERROR: $*" >&2; exit 1; }
say() { echo "lab: $*"; }

. "$LAB_REPO/lab/inputs.sh"
lab_check_inputs

# The work folder, created with a mark: 'make distclean' deletes only a
# folder that carries it.
LAB_MARK=.kernel-lab-work
lab_work_init() {
	mkdir -p "$LAB_WORK"
	[ -e "$LAB_WORK/$LAB_MARK" ] || echo "work folder of $LAB_REPO" >"$LAB_WORK/$LAB_MARK"
}

# Features in series order (features/series), optionally narrowed by
# LAB_FEATURES (space separated) for working on one feature alone.
lab_features() {
	local f
	grep -v '^\s*#' "$LAB_REPO/features/series" | awk 'NF{print $1}' |
	while read -r f; do
		if [ -z "${LAB_FEATURES:-}" ] || [[ " $LAB_FEATURES " == *" $f "* ]]; then
			echo "$f"
		fi
	done
}

# Is feature $1 selected by ONLY (space separated; empty: all)?
lab_selected() {
	[ -z "${ONLY:-}" ] || [[ " $ONLY " == *" $1 "* ]]
}

# Fixtures built and packed: every folder of fixtures/, or those named in
# LAB_FIXTURES (space separated) while one is being worked on.
lab_fixture_selected() {
	[ -z "${LAB_FIXTURES:-}" ] || [[ " $LAB_FIXTURES " == *" $1 "* ]]
}

# The features our series carries on this variant (none on upstream).
lab_series_features() {
	local f
	[ "$VARIANT" = ours ] || return 0
	for f in $(lab_features); do
		[ -f "$LAB_REPO/features/$f/commit" ] && echo "$f"
	done
}

lab_tree() {
	case "$VARIANT" in
	ours) echo "$LAB_SRC" ;;
	upstream) echo "$LAB_UPSTREAM" ;;
	*) die "VARIANT must be 'ours' or 'upstream', not '$VARIANT'" ;;
	esac
}

lab_build_dir() {
	case "$FLAVOR" in
	debug|nodebug) ;;
	*) die "FLAVOR must be 'debug' or 'nodebug', not '$FLAVOR'" ;;
	esac
	echo "$LAB_WORK/build-$VARIANT-$FLAVOR${LAB_CONFIG_ARM:+-$LAB_CONFIG_ARM}"
}

# LAB_CONFIG_ARM=<name>: lab/config/arms/<name>.config merged last, into a
# build folder of its own (make debug-cost's detectors that only Kconfig
# switches off). Checked by lab_check_inputs.
lab_config_arm() {
	[ -z "${LAB_CONFIG_ARM:-}" ] || echo "$LAB_REPO/lab/config/arms/$LAB_CONFIG_ARM.config"
}

# One kernel build at a time on this machine: two cores are shared by
# everything, so concurrent lab runs queue here instead of thrashing.
# The lock covers a whole test, run or bench (build, pack, boot, judge):
# two runs sharing a work folder would rebuild and judge each other's
# kernels. Scripts started under it inherit LAB_LOCK_HELD and do not take
# it again (a second flock on a new descriptor would wait for ourselves).
LAB_LOCK=${LAB_LOCK:-/var/tmp/kernel-lab.lock}
lab_lock() {
	[ "${LAB_LOCK_HELD:-}" = "$LAB_LOCK" ] && return
	exec 9>"$LAB_LOCK"
	flock -n 9 || { say "waiting for another lab run to finish ($LAB_LOCK)"; flock 9; }
	export LAB_LOCK_HELD=$LAB_LOCK
}

# A run folder per invocation: runs/<date>-<time>-<mode>-<variant>, one
# stamp for the whole invocation (test boots each flavor into a subfolder),
# runs/latest pointing at it and runs/<variant>-<flavor>-<mode> at the
# newest run of that kind. The last LAB_KEEP_RUNS (5) are kept.
lab_run_dir() {
	local mode=$1 runs=$LAB_WORK/runs dir old
	export LAB_RUN_STAMP=${LAB_RUN_STAMP:-$(date +%Y%m%d-%H%M%S)}
	dir=$runs/$LAB_RUN_STAMP-$mode-$VARIANT
	mkdir -p "$dir"
	ln -sfn "$(basename "$dir")" "$runs/latest"
	ls -1d "$runs"/2*-*-*/ 2>/dev/null | head -n -"${LAB_KEEP_RUNS:-5}" |
		while read -r old; do rm -rf -- "$old"; done
	echo "$dir"
}

# Print a progress line every $2 seconds while process $1 runs: the
# elapsed time and what function $3 says is going on. A deadline, not the
# elapsed time modulo $2: a loop turn that takes over a second must not
# skip a line.
lab_progress() {
	local pid=$1 every=$2 what=$3 t0=$SECONDS next
	((every > 0)) || every=60
	next=$((SECONDS + every))
	while kill -0 "$pid" 2>/dev/null; do
		sleep 1
		((SECONDS >= next)) || continue
		kill -0 "$pid" 2>/dev/null || break
		say "... $((SECONDS - t0)) s: $("$what" 2>/dev/null)"
		while ((next <= SECONDS)); do next=$((next + every)); done
	done
}

kmake() {
	make -C "$(lab_tree)" O="$(lab_build_dir)" ARCH=x86_64 \
		CC="ccache gcc" HOSTCC="ccache gcc" LOCALVERSION= -j"$LAB_JOBS" "$@"
}
# One compiler cache for every work folder, so a second tree builds warm.
export CCACHE_DIR=${CCACHE_DIR:-/var/tmp/kernel-lab-ccache}
export CCACHE_BASEDIR=$LAB_WORK
export CCACHE_NOHASHDIR=1
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
