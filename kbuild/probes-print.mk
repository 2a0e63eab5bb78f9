# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# make -s -f kbuild/probes-print.mk srctree=DIR: the outcome of every probe
# of probes.mk against the kernel source tree DIR, one NAME=y|n a line
# (kbuild/probes.sh finds DIR for a build tree).

mw57_probes_mk := $(dir $(lastword $(MAKEFILE_LIST)))probes.mk
include $(mw57_probes_mk)

mw57_all := $(sort $(shell sed -n 's/.*-DMW57_HAVE_\([A-Z0-9_]*\).*/\1/p' $(mw57_probes_mk)))
mw57_set := $(patsubst -DMW57_HAVE_%,%,$(filter -DMW57_HAVE_%,$(ccflags-y)))

.PHONY: all
all:
	@$(foreach p,$(mw57_all),echo $(p)=$(if $(filter $(p),$(mw57_set)),y,n);)
