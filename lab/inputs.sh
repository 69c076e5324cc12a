# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The lab's inputs, checked before anything is installed, extracted or
# built: a wrong name or path stops the run at once with what was wrong and
# what would be right. Sourced by lib.sh; lab_check_inputs runs there.

# $1 names a variable, $2 its value, the rest the words it may contain.
lab_check_words() {
	local var=$1 value=$2 w
	shift 2
	for w in $value; do
		[[ " $* " == *" $w "* ]] ||
			die "$var: unknown name '$w' (known: $*)"
	done
}

lab_known_features() {
	local d
	for d in "$LAB_REPO"/features/*/; do
		basename "$d"
	done
}

lab_known_fixtures() {
	local d
	for d in "$LAB_REPO"/fixtures/*/; do
		basename "$d"
	done
}

# Kbuild takes O= and M= unquoted: no whitespace or shell specials. The
# folder is deleted whole by 'make distclean', so never a system folder
# or one that holds the repository.
lab_check_work() {
	local w=$LAB_WORK
	[[ "$w" == /* ]] || die "LAB_WORK='$w' must be an absolute path"
	[[ "$w" =~ ^/[A-Za-z0-9._/+-]+$ ]] ||
		die "LAB_WORK='$w': Kbuild cannot use a path with spaces or characters other than A-Z a-z 0-9 . _ - + /"
	w=$(realpath -m "$w")
	case "$w" in
	/|/bin|/boot|/dev|/etc|/home|/lib|/lib64|/opt|/proc|/root|/run|/sbin|/srv|/sys|/tmp|/usr|/usr/*|/var|/var/tmp|/work)
		die "LAB_WORK='$LAB_WORK' is a system folder; use a folder of its own (default /var/tmp/kernel-lab)" ;;
	esac
	case "$LAB_REPO/" in
	"$w"/*) die "LAB_WORK='$LAB_WORK' contains the repository ($LAB_REPO); it must be outside it" ;;
	esac
	case "$w/" in
	"$LAB_REPO"/*) die "LAB_WORK='$LAB_WORK' is inside the repository; the kernel tree stays out of it" ;;
	esac
}

# LAB_CONFIG_ARM names a fragment of lab/config/arms/ (lib.sh, lab_config_arm).
lab_check_config_arm() {
	local arm=${LAB_CONFIG_ARM:-}
	[ -n "$arm" ] || return 0
	[[ "$arm" =~ ^[a-z0-9-]+$ ]] && [ -f "$LAB_REPO/lab/config/arms/$arm.config" ] && return
	# shellcheck disable=SC2012 # names only
	die "LAB_CONFIG_ARM='$arm': no lab/config/arms/$arm.config (known: $(ls "$LAB_REPO/lab/config/arms" | sed 's/\.config$//' | xargs))"
}

# The architectures make check has a compiler for (lab/check.sh).
LAB_CHECK_KNOWN_ARCHES="x86_64 arm64 arm powerpc mips"

lab_check_inputs() {
	case "$VARIANT" in
	ours|upstream) ;;
	*) die "VARIANT='$VARIANT': must be 'ours' (our series) or 'upstream' (the oracle)" ;;
	esac
	case "$FLAVOR" in
	debug|nodebug) ;;
	*) die "FLAVOR='$FLAVOR': must be 'debug' or 'nodebug'" ;;
	esac
	lab_check_words LAB_FLAVORS "${LAB_FLAVORS:-}" debug nodebug
	# shellcheck disable=SC2046 # one word per name
	lab_check_words ONLY "${ONLY:-}" $(lab_known_features)
	lab_check_words LAB_FEATURES "${LAB_FEATURES:-}" $(lab_known_features)
	lab_check_words LAB_FIXTURES "${LAB_FIXTURES:-}" $(lab_known_fixtures)
	# shellcheck disable=SC2086 # one word per architecture
	lab_check_words LAB_CHECK_ARCHES "${LAB_CHECK_ARCHES:-}" $LAB_CHECK_KNOWN_ARCHES
	if ! [[ "${LAB_BENCH_BOOTS:-5}" =~ ^[1-9][0-9]*$ ]]; then
		die "LAB_BENCH_BOOTS='$LAB_BENCH_BOOTS': a number of boots (make bench) or rounds (make debug-cost)"
	fi
	if [ -n "${SUITE:-}" ] && ! [[ "$SUITE" =~ ^[A-Za-z0-9_.*?-]+$ ]]; then
		die "SUITE='$SUITE': a suite name or glob (letters, digits, _ - . * ?)"
	fi
	lab_check_config_arm
	lab_check_work
}
