# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# User entry point.  Kbuild lines live in Kbuild files only: DKMS runs
# `make KERNELRELEASE=<kver> KDIR=<tree> modules` here, and the classic
# ifneq ($(KERNELRELEASE),) idiom would stop with "No targets".
#
#   make                 build every module for every installed Debian 6.1/6.12
#                        header tree (or KVER=...), W=1, warnings are errors
#   make modules KDIR=   build in place against one tree (what DKMS runs)
#   make clean-modules   delete the build products under modules/ (DKMS's CLEAN)
#   make userspace       tools, library and examples
#   make dkms-install    the DKMS trees to $(DESTDIR)/usr/src/<package>-<ver>
#                        (every dkms/<package>.conf, or DKMS_PKGS=...)
#   make style | sparse | check-version | unit
#   make deps            install the host packages (apt, idempotent)
#   make probes          the feature probes' outcomes per kernel (KVER=...)
#   make matrix          build every module for every Debian kernel ABI in a
#                        chroot of its release (kbuild/matrix.list)
#   make support-table   README's kernel table from the last matrix and run
#   make vmtest          tests/run-vm.sh --kernel all
#   make deb             the Debian source and binary packages, lintian-checked
#   make deb-cleanbuild  make deb's source package built in clean chroots
#   make smoke           one kernel: DKMS install, load, a quick test per module
#   make check           everything CI runs

SHELL := /bin/bash
# (recursive: the DKMS tree has no version.sh, and `make modules` needs none)
VERSION = $(shell kbuild/version.sh)
BUILD ?= $(CURDIR)/build
CACHE ?= $(or $(MW57_CACHE),/var/cache/mw57)

# Every installed header tree of the supported series, or the one asked for.
KVERS := $(if $(KVER),$(KVER),$(shell ls -d /lib/modules/*/build 2>/dev/null | \
	sed -nE 's:^/lib/modules/(6\.(1|12)\.[^/]*)/build$$:\1:p'))

# Benchmarks (make bench-NAME runs the guest suite tests/bench_NAME)
BENCHES := bench-raw-gadget bench-bareudp bench-uacce

.PHONY: all modules clean-modules userspace dkms-install check-version style \
	sparse unit deps probes matrix support-table vmtest smoke check clean $(BENCHES) deb \
	deb-cleanbuild mutants

all:
	@test -n "$(KVERS)" || { echo "no 6.1/6.12 header tree installed (make deps)"; exit 1; }
	@set -e; for k in $(KVERS); do \
		kbuild/host-build.sh "$$k" "$(BUILD)/$$k" W=1; \
	done

modules:
	@test -n "$(KDIR)" || { echo "make modules needs KDIR=<kernel build tree>"; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR)/modules modules

# What DKMS runs before and after a build (CLEAN=): delete every file under
# modules/ that is not source.  No kernel make: under TCG, kbuild's clean
# spent 12-20 s reading the kernel's makefiles, twice per build.
clean-modules:
	find modules -type f \( -name '*.mod.c' -o ! \( -name '*.[ch]' -o -name Kbuild \
		-o -name README.md \) \) -delete

userspace:
	$(MAKE) -C userspace

dkms-install:
	kbuild/dkms-install.sh "$(DESTDIR)" $(DKMS_PKGS)

check-version:
	kbuild/check-version.sh

style:
	kbuild/style.sh "$(CACHE)"

sparse:
	@test -n "$(KVERS)" || { echo "no 6.1/6.12 header tree installed (make deps)"; exit 1; }
	@set -e; for k in $(KVERS); do \
		kbuild/host-build.sh "$$k" "$(BUILD)/sparse-$$k" C=2 CF=-D__CHECK_ENDIAN__; \
	done

unit:
	$(MAKE) -C userspace test

deps:
	kbuild/deps.sh

# the host's trees, then those of the matrix chroots (after make matrix)
probes:
	@for k in $(KVERS); do echo "$$k: $$(kbuild/probes.sh /lib/modules/$$k/build | xargs)"; done
	@for b in $(CACHE)/matrix/*/lib/modules/*/build; do \
		[ -e "$$b" ] || continue; r=$${b%/lib/modules/*}; k=$${b#$$r/lib/modules/}; k=$${k%/build}; \
		[ -z "$(KVER)" ] || [ "$(KVER)" = "$$k" ] || continue; \
		echo "$$k ($$(basename $$r)): $$(kbuild/probes.sh --root $$r /lib/modules/$$k/build | xargs)"; \
	done

matrix:
	kbuild/matrix.sh "$(CACHE)"

# README's kernel table from the last make matrix and tests/run-vm.sh
support-table:
	kbuild/support-table.sh --update README.md

vmtest: deps
	tests/run-vm.sh --kernel all

SMOKE_KERNEL ?= 6.12
smoke: deps
	tests/run-vm.sh --kernel $(SMOKE_KERNEL) --smoke

# deps first: a fresh machine has nothing (see README)
check: deps
	$(MAKE) check-version style matrix userspace unit vmtest

# The Debian source package and its binaries (mw57-dkms, mw57-uacce-dkms,
# mw57-tools) from a copy of the working tree (dpkg-buildpackage writes to
# the parent directory), checked by lintian --pedantic.  In a git checkout
# the copy holds the files git tracks, so that a stray untracked file (a
# run's --out directory) stays out of the source package; a tree without
# .git (git archive's, as tests/mutants.sh makes) is copied whole.
deb:
	rm -rf $(BUILD)/deb && mkdir -p $(BUILD)/deb/mw57
	set -o pipefail; if [ -e .git ]; then git ls-files -z | tar -c --null -T -; \
	else tar -c --exclude=./build .; fi | tar -x -C $(BUILD)/deb/mw57
	cd $(BUILD)/deb/mw57 && dpkg-buildpackage -us -uc
	lintian --pedantic --info --fail-on error,warning,pedantic $(BUILD)/deb/*.changes
	@ls $(BUILD)/deb/*.deb

# make deb's source package, built in a clean chroot of each release with
# only the build dependencies debian/control declares (not part of check)
CLEANBUILD_RELEASES ?= bookworm trixie
deb-cleanbuild: deb
	kbuild/deb-cleanbuild.sh $(BUILD)/deb $(CLEANBUILD_RELEASES)

# Each known bug put back in a scratch copy, one at a time, against the
# tests that must catch it (tests/mutants/*.patch); not part of check.
mutants: deps
	tests/mutants.sh $(MUTANTS)

# Benchmarks, not tests: ratios measured side by side in one guest run.
BENCH_KERNEL ?= 6.12
$(BENCHES):
	rm -rf $(BUILD)/$@
	tests/run-vm.sh --kernel $(BENCH_KERNEL) --suite $(subst -,_,$@) \
		--out $(BUILD)/$@
	@cat $(BUILD)/$@/*/$@.txt

clean:
	rm -rf $(BUILD)
	$(MAKE) -C userspace clean
