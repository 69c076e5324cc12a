# SPDX-License-Identifier: GPL-2.0
# Shell helpers of the guest's lab scripts (lab-run-tests, lab-run-bench).
# Sourced, not run.

# Is feature $1 selected by ONLY= (LAB_ONLY on the kernel command line)?
selected() {
	[ -z "$LAB_ONLY" ] && return 0
	case " $LAB_ONLY " in *" $1 "*) return 0 ;; esac
	return 1
}
