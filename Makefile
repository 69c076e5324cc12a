# SPDX-License-Identifier: GPL-2.0
# The project's front door. Every target installs what it needs first.
#
#   make run      build what is stale, boot our kernel, show every feature
#   make test     build, boot, run every suite, judge (VARIANT=upstream: the oracle)
#   make help     all targets and variables
#
# Variables: VARIANT=ours|upstream  FLAVOR=debug|nodebug  ONLY="<feature> ..."
#            LAB_WORK=<work folder, default /var/tmp/kernel-lab>
#            LAB_FEATURES="<feature> ..." (narrow the series)  CMD='...'  EXTRA=dir

SHELL := /bin/bash
LAB := lab
export VARIANT ?= ours
export ONLY
export LAB_WORK
export LAB_FEATURES
export SUITE

.PHONY: help inputs deps tree series refresh config kernel initramfs test run shell bench ack-cost debug-cost check kunit clean distclean

# Every target checks its inputs (VARIANT, FLAVOR, ONLY, LAB_*) before it
# installs, extracts or builds anything.
CHECK_INPUTS = @FLAVOR=$(or $(FLAVOR),debug) bash -c '. $(LAB)/lib.sh'

help:
	@sed -n 's/^#   //p' lab/help.txt

inputs:
	$(CHECK_INPUTS)

deps: inputs
	@$(LAB)/deps.sh

tree: deps
	@$(LAB)/tree.sh

series: tree
	@$(LAB)/series.sh export

refresh:
	@$(LAB)/series.sh refresh

config: tree
	@FLAVOR=$(or $(FLAVOR),debug) $(LAB)/config.sh

kernel: deps
	@FLAVOR=$(or $(FLAVOR),debug) $(LAB)/build.sh

initramfs: kernel
	@FLAVOR=$(or $(FLAVOR),debug) $(LAB)/initramfs.sh

test: deps
	@$(LAB)/test.sh

# make run: the demos on the non-debug kernel (timing is part of what they
# show); make run CMD='...' [EXTRA=dir] runs one command in the guest.
# Either way the exit status is the demos' verdict or the command's.
run: deps
	@FLAVOR=$(or $(FLAVOR),nodebug) LAB_CMD='$(subst ','\'',$(CMD))' LAB_EXTRA='$(EXTRA)' $(LAB)/run.sh

shell: deps
	@[ -t 0 ] || { echo "make shell needs a terminal on stdin" >&2; exit 1; }
	@export FLAVOR=$(or $(FLAVOR),debug); . $(LAB)/lib.sh && lab_work_init && lab_lock && \
	$(LAB)/build.sh && $(LAB)/initramfs.sh && $(LAB)/boot.sh shell

bench: deps
	@$(LAB)/bench.sh

# Instructions per tcp_ack() on ours and 6.12, single-stepped through
# QEMU's gdb stub (features/tlp/bench/ack-cost).
ack-cost: deps
	@$(LAB)/deps.sh features/tlp/bench/ack-cost.packages && features/tlp/bench/ack-cost

# What each detector of the debug kernel that a boot parameter switches off
# costs in boot-and-test time (README, "Debug kernel").
debug-cost: deps
	@$(LAB)/debug-cost.sh

check: series
	@$(LAB)/deps.sh $(LAB)/packages-check.txt && $(LAB)/check.sh

kunit: deps
	@$(LAB)/kunit.sh

clean: inputs
	@$(LAB)/clean.sh clean

distclean: inputs
	@$(LAB)/clean.sh distclean
