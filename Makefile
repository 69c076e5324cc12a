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

.PHONY: help deps tree series refresh config kernel initramfs test run shell bench check clean distclean

help:
	@sed -n 's/^#   //p' lab/help.txt

deps:
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
run: deps
	@export FLAVOR=$(or $(FLAVOR),nodebug); $(LAB)/build.sh && $(LAB)/initramfs.sh && \
	if [ -n "$(CMD)" ]; then LAB_CMD='$(subst ','\'',$(CMD))' LAB_EXTRA='$(EXTRA)' $(LAB)/boot.sh cmd; \
	else $(LAB)/boot.sh run; fi

shell: deps
	@[ -t 0 ] || { echo "make shell needs a terminal on stdin" >&2; exit 1; }
	@export FLAVOR=$(or $(FLAVOR),debug); $(LAB)/build.sh && $(LAB)/initramfs.sh && $(LAB)/boot.sh shell

bench: deps
	@$(LAB)/bench.sh

check: series
	@$(LAB)/check.sh

clean:
	rm -rf out $(or $(LAB_WORK),/var/tmp/kernel-lab)/runs

distclean: clean
	rm -rf $(or $(LAB_WORK),/var/tmp/kernel-lab)
