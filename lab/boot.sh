#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot the $VARIANT/$FLAVOR kernel in QEMU: boot.sh MODE [RUN_DIR]
#   MODE: test (KTAP to the second serial port), run (demos), cmd (LAB_CMD,
#   files of LAB_EXTRA in /lab/extra), shell (interactive), probe.
# Console (first serial port) goes to RUN_DIR/console.log, results to
# RUN_DIR/results.ktap; QEMU's exit status to RUN_DIR/qemu.rc: 33 = the
# guest finished (isa-debug-exit 0x10), 1 = guest panic (pvpanic),
# 124 = host deadline, 0 = the guest powered off without finishing.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mode=${1:?usage: boot.sh MODE [RUN_DIR]}
out=$(lab_build_dir)
run=${2:-$(lab_run_dir "$mode")/$FLAVOR}
deadline=${LAB_TIMEOUT:-1500}
mkdir -p "$run"
rm -rf "$run/console.log" "$run/results.ktap" "$run/qemu.rc" "$run"/initrd* "$run"/run.cpio* "$run/qemu.sh"
link=$LAB_WORK/runs/$VARIANT-$FLAVOR-$mode
[ -L "$link" ] || rm -rf -- "$link"	# a run folder of the old layout
ln -sfn "$run" "$link"

# The per-run part of the guest, appended to the built initramfs as a second
# cpio archive (the kernel unpacks concatenated archives in order).
pack_run_archive() {
	local rs=$run/stage feats=""
	rm -rf "$rs"
	mkdir -p "$rs/lab/extra"
	[ "$VARIANT" = ours ] && [ -f "$LAB_WORK/series-features" ] &&
		feats=$(tr '\n' ' ' <"$LAB_WORK/series-features")
	cat >"$rs/lab/env" <<-ENV
		LAB_MODE=$mode
		LAB_VARIANT=$VARIANT
		LAB_FLAVOR=$FLAVOR
		LAB_FEATURES="$feats"
		LAB_ONLY="${ONLY:-}"
		LAB_SUITE="${SUITE:-}"
		LAB_KUNIT_SUITES="${LAB_KUNIT_SUITES:-}"
		LAB_RELEASE=$(cat "$out/include/config/kernel.release")
		LAB_BUILD_ID=$(readelf -n "$out/vmlinux" | sed -n 's/.*Build ID: //p' | head -n 1)
	ENV
	printf '%s\n' "${LAB_CMD:-true}" >"$rs/lab/cmd"
	[ -n "${LAB_EXTRA:-}" ] && cp -a "$LAB_EXTRA/." "$rs/lab/extra/"
	(cd "$rs" && find . -print0 | cpio --null -o -H newc --quiet) >"$run/run.cpio"
	cat "$out/initramfs.cpio" "$run/run.cpio" >"$run/initrd"
}

# KVM only when a probe boot proves it: on these hosts /dev/kvm opens but
# guests hang. The verdict is kept per host kernel and QEMU version.
accel() {
	local key verdict=tcg cache=$LAB_WORK/accel
	key="$(uname -r) $(qemu-system-x86_64 --version | head -n 1)"
	if [ -n "${LAB_ACCEL:-}" ]; then echo "$LAB_ACCEL"; return; fi
	if [ -f "$cache" ] && [ "$(head -n 1 "$cache")" = "$key" ]; then
		tail -n 1 "$cache"; return
	fi
	if [ -r /dev/kvm ] && [ "$mode" != probe ]; then
		if LAB_ACCEL=kvm LAB_TIMEOUT=${LAB_KVM_PROBE_TIMEOUT:-20} \
		   "$LAB_REPO/lab/boot.sh" probe "$LAB_WORK/runs/kvm-probe" >/dev/null 2>&1 &&
		   grep -q 'lab: guest up' "$LAB_WORK/runs/kvm-probe/console.log"; then
			verdict=kvm
		fi
	fi
	printf '%s\n%s\n' "$key" "$verdict" >"$cache"
	echo "$verdict"
}

# Under TCG the guest's TSC runs at the host's rate, but calibrating it
# against the emulated PIT fails when the host is busy, and the guest then
# falls back to 1 ms jiffies. Tell it the host's TSC frequency instead.
tsc_khz() {
	awk -F: '/^cpu MHz/ { printf "tsc_early_khz=%d", $2 * 1000; exit }' /proc/cpuinfo
}

pack_run_archive
acc=$(accel)
if [ "$acc" = tcg ]; then
	say "QEMU under TCG (KVM probe did not reach the guest's marker, or no /dev/kvm)"
	cpu=max
else
	cpu=host
fi
# Tests keep the whole console for the judge; the interactive modes show
# the user only what the guest prints (the log keeps the rest).
quiet=""
if [ "$mode" = test ] || [ "$mode" = probe ] || [ "$mode" = bench ]; then
	con="-chardev \"file,id=con,path=\$out/console.log\""
else
	con="-chardev \"stdio,id=con,signal=off,logfile=\$out/console.log\""
	quiet=quiet
fi
# KUnit suites run only on test boots: a demo or a shell boots quietly.
# SUITE narrows them (and the guest programs) to a name or a glob.
kunit=kunit.enable=0
if [ "$mode" = test ]; then
	kunit="kunit.enable=1${SUITE:+ kunit.filter_glob=$SUITE}"
fi
append="console=ttyS0 panic=-1 tsc=reliable $(tsc_khz) printk_devkmsg=on $kunit $quiet ${LAB_APPEND:-}"

# The exact command, kept runnable by hand with the kernel it booted.
cp "$out/arch/x86/boot/bzImage" "$run/bzImage"
cat >"$run/qemu.sh" <<-CMD
	#!/bin/sh
	# $mode boot of $VARIANT/$FLAVOR, $(date -u '+%F %T UTC'); run from anywhere.
	# The console and KTAP go to the folder given (default: this run's,
	# overwriting what the lab judged): qemu.sh /tmp/again
	out=\${1:-$run}
	mkdir -p "\$out"
	exec qemu-system-x86_64 -accel $acc -cpu $cpu -m ${LAB_MEM:-2048} -smp ${LAB_SMP:-2} \\
	  -nodefaults -nographic -no-reboot -bios /usr/share/qemu/qboot.rom \\
	  $con -serial chardev:con -serial "file:\$out/results.ktap" \\
	  -device isa-debug-exit,iobase=0xf4,iosize=0x04 \\
	  -device pvpanic-pci -action panic=exit-failure \\
	  -kernel $run/bzImage -initrd $run/initrd ${LAB_QEMU_EXTRA:-} \\
	  -append '$append'
CMD
chmod +x "$run/qemu.sh"

# What the guest is doing, for the progress line of a long test boot.
guest_status() {
	local n last
	n=$(grep -acE '^\s*(not )?ok ' "$run/results.ktap" 2>/dev/null)
	last=$(grep -aE '^\s*(not )?ok ' "$run/results.ktap" 2>/dev/null | tail -n 1 | xargs | cut -c1-60)
	echo "guest running, ${n:-0} results so far${last:+, last: $last}"
}

# make shell has no deadline: the user ends it.
[ "$mode" = shell ] && deadline=0
set +e
if [ "$mode" = test ] || [ "$mode" = bench ]; then
	timeout -k 5 "$deadline" "$run/qemu.sh" </dev/null &
	qpid=$!
	lab_progress $qpid "${LAB_PROGRESS:-60}" guest_status
	wait $qpid
else
	timeout --foreground -k 5 "$deadline" "$run/qemu.sh"
fi
rc=$?
set -e
echo $rc >"$run/qemu.rc"
case $rc in
33) exit 0 ;;
124|137) say "guest killed at the host deadline ($deadline s); console tail:" ;;
1) say "guest panicked (pvpanic); console tail:" ;;
*) say "QEMU exited $rc without the guest finishing; console tail:" ;;
esac
tail -n 30 "$run/console.log"
say "console: $run/console.log"
say "KTAP:    $run/results.ktap"
say "QEMU:    $run/qemu.sh (runs the same boot again)"
exit 1
