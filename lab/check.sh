#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check: the exported series passes checkpatch --strict with zero
# errors (warnings are listed for the commit message to justify), and for
# each feature in the series and each architecture of LAB_CHECK_ARCHES
# (x86_64 arm64 arm): the C files it owns (features/<f>/tree) build with
# W=1 and no warning, its DT bindings pass yamllint with the bindings' own
# rules, and every in-tree user it lists (features/<f>/users) that
# compiles on upstream compiles on ours. A user that lives on another
# architecture names it after the object (powerpc, mips) and is compiled
# there instead.
#
# Objects are built one by one with Debian's cross compilers in an
# allmodconfig (COMPILE_TEST reaches most SoC drivers from any
# architecture) without CONFIG_WERROR, so that W=1 warnings are reported
# rather than fatal; MIPS uses cavium_octeon_defconfig, the only MIPS
# platform a listed user needs. One tree per variant and architecture,
# $LAB_WORK/check-<variant>-<arch>, kept between runs; upstream's is
# prepared only when an object fails on ours.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
SERIES_DIR=${SERIES_DIR:-$LAB_WORK/series}
ARCHES=${LAB_CHECK_ARCHES:-x86_64 arm64 arm}
status=0

check_series() {
	local p
	# checkpatch's SPDX check runs scripts/spdxcheck.py with 'python3' from
	# PATH; Debian's, which has python3-ply, must win over any other.
	for p in "$SERIES_DIR"/*.patch; do
		[ -e "$p" ] || { say "the series is empty"; status=1; break; }
		if PATH=/usr/bin:$PATH "$LAB_SRC/scripts/checkpatch.pl" --strict --terse \
			--root="$LAB_SRC" "$p" >"$p.checkpatch" 2>&1; then
			say "checkpatch: $(basename "$p"): $(tail -n 1 "$p.checkpatch")"
		else
			grep -E 'ERROR|WARNING' "$p.checkpatch" || true
			say "checkpatch: $(basename "$p"): $(tail -n 1 "$p.checkpatch")"
			if grep -q 'ERROR' "$p.checkpatch"; then
				status=1
			fi
		fi
	done
}

cross_prefix() {
	case $1 in
	x86_64) echo "" ;;
	arm64) echo aarch64-linux-gnu- ;;
	arm) echo arm-linux-gnueabihf- ;;
	powerpc) echo powerpc64-linux-gnu- ;;
	mips) echo mips64-linux-gnuabi64- ;;
	*) die "check: no compiler known for architecture '$1' ($LAB_CHECK_KNOWN_ARCHES)" ;;
	esac
}

base_config() {
	case $1 in
	mips) echo cavium_octeon_defconfig ;;
	*) echo allmodconfig ;;
	esac
}

check_dir() { echo "$LAB_WORK/check-$VARIANT-$1"; }

# make in the check tree of $VARIANT for architecture $1.
amake() {
	local arch=$1 cross
	shift
	cross=$(cross_prefix "$arch")
	make -C "$(lab_tree)" O="$(check_dir "$arch")" ARCH="$arch" \
		CROSS_COMPILE="$cross" CC="ccache ${cross}gcc" HOSTCC="ccache gcc" \
		LOCALVERSION= -j"$LAB_JOBS" "$@"
}

# allmodconfig without WERROR, prepared for single-object builds; make
# prepare brings a kept tree up to date with its sources.
declare -A prepared
# shellcheck disable=SC2317 # run by lab_progress
prepare_status() {
	# arch and log are prepare_arch's, which lab_progress runs under.
	echo "make prepare for $arch ($VARIANT): $(tail -n 1 "$log" | xargs)"
}

prepare_arch() {
	local arch=$1 out log t0=$SECONDS
	[ -z "${prepared[$VARIANT-$arch]:-}" ] || return 0
	command -v "$(cross_prefix "$arch")gcc" >/dev/null ||
		die "check: no compiler for $arch ($(cross_prefix "$arch")gcc); make check installs lab/packages-check.txt"
	out=$(check_dir "$arch")
	log=$out.log
	mkdir -p "$out"
	if [ ! -f "$out/.config" ]; then
		if ! { amake "$arch" "$(base_config "$arch")" &&
		       "$(lab_tree)/scripts/config" --file "$out/.config" -d WERROR &&
		       amake "$arch" olddefconfig; } >"$log" 2>&1; then
			tail -n 20 "$log" >&2
			rm -f "$out/.config"
			die "check: $(base_config "$arch") for $arch ($VARIANT) failed: $log"
		fi
	fi
	amake "$arch" prepare >>"$log" 2>&1 &
	lab_progress $! "${LAB_PROGRESS:-60}" prepare_status || true
	wait $! || { tail -n 20 "$log" >&2; die "check: make prepare for $arch ($VARIANT) failed: $log"; }
	prepared[$VARIANT-$arch]=1
	say "check: $VARIANT $arch tree prepared in $((SECONDS - t0)) s"
}

# The C files feature $1 owns, as the objects kbuild makes of them.
own_objects() {
	(cd "$LAB_REPO/features/$1/tree" && find . -name '*.c' | sed 's|^\./||; s|\.c$|.o|' | sort)
}

# Bindings pass yamllint (what dt_binding_check runs first; bookworm's
# schema validator is older than 6.12 accepts).
check_bindings() {
	local f=$1 y
	for y in $(cd "$LAB_REPO/features/$f/tree" && find . -name '*.yaml' | sed 's|^\./||'); do
		yamllint -s -c "$LAB_SRC/Documentation/devicetree/bindings/.yamllint" "$LAB_SRC/$y" ||
			{ say "$f: $y does not pass yamllint"; return 1; }
		say "$f: $y passes yamllint"
	done
}

# What feature $1 owns builds for $2 with W=1 and not one warning.
check_own() {
	local f=$1 arch=$2 log=$LAB_WORK/check-$1-own-$2.log objs
	mapfile -t objs < <(own_objects "$f")
	[ ${#objs[@]} -gt 0 ] || return 0
	amake "$arch" W=1 "${objs[@]}" >"$log" 2>&1 ||
		{ grep -E 'error' "$log" | head -n 10 >&2; say "$f: its own files do not build for $arch ($log)"; return 1; }
	if grep -q 'warning:' "$log"; then
		grep 'warning:' "$log" >&2
		say "$f: its own files build for $arch with W=1 warnings ($log)"
		return 1
	fi
	no_libgcc_calls "$f" "$arch" "${objs[@]}" || return 1
	say "$f: ${#objs[@]} own objects build for $arch with W=1, no warning"
}

# A 64-bit division written with / or % compiles on a 32-bit architecture
# into a call to libgcc's helper, which the kernel does not link: the
# module then fails at modpost or load, which single objects never reach.
# Such an undefined symbol in feature $1's objects for $2 is an error
# (div_u64() and friends are the kernel's way).
no_libgcc_calls() {
	local f=$1 arch=$2 o calls bad=0
	shift 2
	for o in "$@"; do
		calls=$("$(cross_prefix "$arch")nm" -u "$(check_dir "$arch")/$o" |
			awk '$2 ~ /^__(aeabi_u?ldivmod|u?divdi3|u?moddi3)$/ { print $2 }' | xargs)
		[ -z "$calls" ] || { say "$f: $o calls libgcc's $calls for $arch: use div_u64()/do_div()"; bad=1; }
	done
	return $bad
}

# Every in-tree user feature $1 lists (array users) that lives on $2
# (user_arches), compiled for $2 on ours; one that fails there is tried on
# upstream, and compiling there means ours broke it, as does a libgcc call
# on ours (an inline of ours divided 64 bits in it). Adds what built to
# built_on[<object>].
declare -A built_on user_arches
check_users() {
	local f=$1 arch=$2 o one log=$LAB_WORK/check-$1-users-$2.log built=0 n=0 na=() broken=()
	local next=$((SECONDS + ${LAB_PROGRESS:-60}))
	one=$(mktemp)
	: >"$log"
	VARIANT=ours prepare_arch "$arch"
	for o in "${users[@]}"; do
		[[ " ${user_arches[$o]} " == *" $arch "* ]] || continue
		n=$((n + 1))
		if ((SECONDS >= next)); then
			say "... $f: $arch: user $n of ${#users[@]}, $built built so far, now $o"
			next=$((SECONDS + ${LAB_PROGRESS:-60}))
		fi
		if VARIANT=ours amake "$arch" W=1 "$o" >"$one" 2>&1; then
			if no_libgcc_calls "$f" "$arch" "$o"; then
				built=$((built + 1))
				built_on[$o]+=" $arch"
			else
				broken+=("$o")
			fi
		else
			VARIANT=upstream prepare_arch "$arch"
			if VARIANT=upstream amake "$arch" W=1 "$o" >>"$log.upstream" 2>&1; then
				broken+=("$o")
				grep -E 'error' "$one" | head -n 5 >&2
			else
				na+=("$o")
			fi
		fi
		{ echo "=== $o ($arch, ours)"; cat "$one"; } >>"$log"
	done
	rm -f "$one"
	say "$f: $arch: $built of $n in-tree users build on ours (W=1)"
	[ ${#na[@]} -eq 0 ] || say "$f: $arch: not built on upstream either: ${na[*]}"
	[ ${#broken[@]} -eq 0 ] || {
		say "$f: $arch: in-tree users that build on upstream but not on ours: ${broken[*]} ($log)"
		return 1
	}
}

# The users of feature $1 that built on ours for no architecture: broken
# ones (reported above) or entries that cannot be checked here (say so, so
# that the list is kept honest).
report_unbuilt() {
	local f=$1 o none=()
	for o in "${users[@]}"; do
		[ -n "${built_on[$o]:-}" ] || none+=("$o")
	done
	say "$f: $((${#users[@]} - ${#none[@]})) of ${#users[@]} in-tree users build on at least one architecture"
	[ ${#none[@]} -eq 0 ] || say "$f: not built on ours for any architecture: ${none[*]}"
}

# Reads features/$1/users: an object a line, optionally followed by the
# architectures it lives on (default: $ARCHES). Sets users, user_arches
# and arches (every architecture named, in order).
read_users() {
	local list=$1 o a rest
	users=() arches=$ARCHES
	while read -r o rest; do
		[ -n "$o" ] || continue
		users+=("$o")
		user_arches[$o]=${rest:-$ARCHES}
		for a in ${user_arches[$o]}; do
			# shellcheck disable=SC2086 # one word per architecture
			lab_check_words "$list: $o" "$a" $LAB_CHECK_KNOWN_ARCHES
			[[ " $arches " == *" $a "* ]] || arches+=" $a"
		done
	done < <(sed 's/#.*//' "$list")
}

check_feature() {
	local f=$1 list=$LAB_REPO/features/$1/users arch arches
	say "check: $f"
	check_bindings "$f" || status=1
	[ -f "$list" ] || { say "$f: no users file: every feature lists the in-tree users of its API"; status=1; return; }
	read_users "$list"
	for arch in $ARCHES; do
		check_own "$f" "$arch" || status=1
	done
	for arch in $arches; do
		check_users "$f" "$arch" || status=1
	done
	report_unbuilt "$f"
}

lab_work_init
lab_lock
t0=$SECONDS
check_series
VARIANT=ours
for arch in $ARCHES; do
	prepare_arch "$arch"
done
for f in $(lab_series_features); do
	lab_selected "$f" || continue
	check_feature "$f"
done
say "check: $([ $status = 0 ] && echo passed || echo FAILED) in $((SECONDS - t0)) s"
exit $status
