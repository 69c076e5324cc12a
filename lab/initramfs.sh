#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Pack the guest for $VARIANT/$FLAVOR into $(lab_build_dir)/initramfs.cpio.gz:
# busybox-static, /init and the lab's guest tools, the kernel's and the
# fixtures' modules, the selected features' guest tests (static C), the host
# binaries they list with the libraries ldd names, and the DT overlays.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
out=$(lab_build_dir)
stage=$out/initramfs
release=$(cat "$out/include/config/kernel.release")
CFLAGS_GUEST="-static -O2 -Wall -Wextra -Werror -I$LAB_REPO/lab/guest -I$LAB_REPO/fixtures -pthread"

# The host libraries a dynamic ELF file needs, into the stage.
copy_libraries() {
	local lib
	file -L "$1" | grep -q 'ELF.*dynamic' || return 0
	for lib in $(ldd "$1" | grep -o '/[^ ]*'); do
		[ -e "$stage$lib" ] || { mkdir -p "$stage$(dirname "$lib")"; cp -aL "$lib" "$stage$lib"; }
	done
}

# Copy a host file (and, for ELF files, the libraries it needs).
copy_host_file() {
	local f=$1
	[ -e "$f" ] || die "guest needs $f, which is not on this machine (features/*/guest-bins)"
	mkdir -p "$stage$(dirname "$f")"
	cp -aL "$f" "$stage$f"
	copy_libraries "$f"
}

copy_host_path() {
	local f
	if [ -d "$1" ]; then
		while read -r f; do copy_host_file "$f"; done < <(find "$1" -type f)
	else
		copy_host_file "$1"
	fi
}

# Compile (or copy) the tests of one folder into /lab/tests/<feature>/.
install_tests() {
	local src=$1 dst=$stage/lab/tests/$2 t
	[ -d "$src" ] || return 0
	mkdir -p "$dst"
	for t in "$src"/*.c; do
		[ -e "$t" ] || continue
		gcc $CFLAGS_GUEST -o "$dst/$(basename "$t" .c)" "$t" ||
			die "guest test ${t#$LAB_REPO/} does not build"
	done
	for t in "$src"/*.sh; do
		[ -e "$t" ] && install -m 755 "$t" "$dst/$(basename "$t" .sh)"
	done
	return 0
}

compile_overlay() {
	local dtso=$1 name
	name=$(basename "$dtso" .dtso)
	gcc -E -nostdinc -undef -D__DTS__ -x assembler-with-cpp \
		-I"$(lab_tree)/include" -I"$(lab_tree)/scripts/dtc/include-prefixes" \
		-o "$out/$name.dts.tmp" "$dtso" ||
		die "overlay ${dtso#$LAB_REPO/} does not preprocess"
	# No -@: a __symbols__ node in an overlay makes 6.12 refuse it when
	# the live tree has none (x86's empty root), and references inside an
	# overlay resolve through __local_fixups__ without it.
	"$out/scripts/dtc/dtc" -q -I dts -O dtb -o "$stage/lab/overlays/$name.dtbo" \
		"$out/$name.dts.tmp" || die "overlay ${dtso#$LAB_REPO/} does not compile"
	rm -f "$out/$name.dts.tmp"
}

rm -rf "$stage"
mkdir -p "$stage"/{bin,sbin,dev,proc,sys,tmp,run,etc,root,lab/bin,lab/tests,lab/overlays,lab/demos}
cp /usr/bin/busybox "$stage/bin/busybox"
for a in $(/usr/bin/busybox --list); do
	[ -e "$stage/bin/$a" ] || ln -s busybox "$stage/bin/$a"
done
install -m 755 "$LAB_REPO/lab/guest/init" "$stage/init"
install -m 755 "$LAB_REPO/lab/guest/lab-run-tests" "$LAB_REPO/lab/guest/lab-run-demos" \
	"$LAB_REPO/lab/guest/lab-overlay" "$LAB_REPO/lab/guest/lab-run-bench" "$stage/lab/bin/"
install -m 644 "$LAB_REPO/lab/guest/lab-lib.sh" "$stage/lab/bin/"
gcc $CFLAGS_GUEST -o "$stage/lab/bin/qexit" "$LAB_REPO/lab/guest/qexit.c"
install_tests "$LAB_REPO/lab/guest/tests" lab
echo "root:x:0:0:root:/root:/bin/sh" >"$stage/etc/passwd"

kmake -s INSTALL_MOD_PATH="$stage" INSTALL_MOD_STRIP=1 modules_install >/dev/null
kmake -s M="$out/fixtures" INSTALL_MOD_PATH="$stage" INSTALL_MOD_STRIP=1 \
	INSTALL_MOD_DIR=extra modules_install >/dev/null
depmod -b "$stage" "$release"

for d in "$LAB_REPO"/fixtures/*/ ; do
	lab_fixture_selected "$(basename "$d")" || continue
	for o in "$d"*.dtso; do [ -e "$o" ] && compile_overlay "$o"; done
done
for f in $(lab_features); do
	dir=$LAB_REPO/features/$f
	if [ "$FLAVOR" = debug ]; then
		install_tests "$dir/guest" "$f"
	else
		install_tests "$dir/guest-nodebug" "$f"
		install_tests "$dir/bench" "../bench/$f"
	fi
	for o in "$dir"/*.dtso; do [ -e "$o" ] && compile_overlay "$o"; done
	[ -f "$dir/demo" ] && install -m 755 "$dir/demo" "$stage/lab/demos/$f"
	# Programs built from the tree at hand (its selftests): the script
	# installs them under the stage and names the ELF files it installed.
	if [ -x "$dir/guest-build" ]; then
		built=$(STAGE=$stage TREE=$(lab_tree) OUT=$out "$dir/guest-build") ||
			die "features/$f/guest-build failed"
		for b in $built; do copy_libraries "$stage$b"; done
	fi
	if [ -f "$dir/guest-bins" ]; then
		while read -r b; do copy_host_path "$b"; done < <(grep -v '^\s*#' "$dir/guest-bins" | awk 'NF{print $1}')
	fi
done
# Not compressed: unpacking is a copy, where gunzip under KASAN and TCG
# costs seconds of every boot.
(cd "$stage" && find . -print0 | cpio --null -o -H newc --quiet) >"$out/initramfs.cpio"
say "initramfs: $(du -h "$out/initramfs.cpio" | cut -f1) ($(find "$stage/lab/tests" -type f | wc -l) guest test programs) in $SECONDS s"
