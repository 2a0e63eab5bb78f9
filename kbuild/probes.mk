# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# Feature probes against the kernel tree we build for.  Each probe looks at
# the tree's headers ($(srctree)) or its Module.symvers ($(objtree)), never
# at a version number: Debian backports into 6.1.y and `uname -r` is an ABI
# name.  Each probe sets one -DMW57_HAVE_* flag that mw57_compat.h reads.
#
#   $(call mw57_grep,FILE,STRING)  non-empty when FILE under
#                                  $(srctree)/include contains STRING

mw57_grep = $(shell grep -s -q -F -e '$(2)' $(srctree)/include/$(1) && echo y)

# 6.10: tunnel flags became a bitmap (IP_TUNNEL_DECLARE_FLAGS, *_BIT);
# before, a __be16 of TUNNEL_* values.
ifeq ($(call mw57_grep,net/ip_tunnels.h,IP_TUNNEL_DECLARE_FLAGS),y)
ccflags-y += -DMW57_HAVE_IP_TUNNEL_FLAGS_BITMAP
endif

# 6.12: lockless Tx is the net_device bit dev->lltx, NETIF_F_LLTX is gone.
ifeq ($(call mw57_grep,linux/netdevice.h,lltx:1),y)
ccflags-y += -DMW57_HAVE_NETDEV_LLTX
endif

# 6.3: vm_flags_set() (vm_flags became read-only for drivers).
ifeq ($(call mw57_grep,linux/mm.h,static inline void vm_flags_set),y)
ccflags-y += -DMW57_HAVE_VM_FLAGS_SET
endif

# before 6.2: iommu_sva_bind_device(dev, mm, drvdata).
ifeq ($(call mw57_grep,linux/iommu.h,void *drvdata),y)
ccflags-y += -DMW57_HAVE_SVA_BIND_DRVDATA
endif
