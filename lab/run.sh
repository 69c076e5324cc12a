#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make run: build what is stale, boot the non-debug kernel and run every
# feature's demo; exits non-zero when a demo fails. make run CMD='...'
# runs one command in the guest instead and exits with its status, so
# 'git bisect run make run CMD=...' works.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
lab_work_init
lab_lock
"$LAB_REPO/lab/build.sh"
"$LAB_REPO/lab/initramfs.sh"
mode=run
[ -n "${LAB_CMD:-}" ] && mode=cmd
run=$(lab_run_dir "$mode")/$FLAVOR
"$LAB_REPO/lab/boot.sh" "$mode" "$run" || exit 2
console=$(tr -d '\r' <"$run/console.log")
where="console: $run/console.log; QEMU: $run/qemu.sh"
if [ "$mode" = cmd ]; then
	rc=$(sed -n 's/^lab: command exit status \([0-9]*\)$/\1/p' <<<"$console" | tail -n 1)
	[ -n "$rc" ] || die "the guest did not report the command's exit status ($where)"
	exit "$rc"
fi
summary=$(grep -E '^=== demos: [0-9]+ passed, [0-9]+ failed ===$' <<<"$console" | tail -n 1)
[ -n "$summary" ] || die "the guest did not finish the demos ($where)"
[[ "$summary" != "=== demos: 0 passed,"* ]] || die "no demo ran ($where)"
[[ "$summary" == *" 0 failed ==="* ]] || die "a demo failed: ${summary//=/} ($where)"
