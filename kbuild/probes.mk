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

# 6.5: a dst's reference count is an rcuref_t (__rcuref); before, the
# atomic_t __refcnt.
ifeq ($(call mw57_grep,net/dst.h,rcuref_t		__rcuref;),y)
ccflags-y += -DMW57_HAVE_DST_RCUREF
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

# 6.15: rtnl_link_ops.newlink(dev, struct rtnl_newlink_params *, extack);
# before, newlink(net, dev, tb, data, extack).
ifeq ($(call mw57_grep,net/rtnetlink.h,struct rtnl_newlink_params {),y)
ccflags-y += -DMW57_HAVE_RTNL_NEWLINK_PARAMS
endif

# udp_tunnel_xmit_skb() and udp_tunnel6_xmit_skb() with a last argument of
# IP (IPv6) control-block flags.
ifeq ($(call mw57_grep,net/udp_tunnel.h,u16 ipcb_flags),y)
ccflags-y += -DMW57_HAVE_UDP_TUNNEL_XMIT_IPCB_FLAGS
endif
ifeq ($(call mw57_grep,net/udp_tunnel.h,u16 ip6cb_flags),y)
ccflags-y += -DMW57_HAVE_UDP_TUNNEL6_XMIT_IP6CB_FLAGS
endif

# ipv6_stub->ipv6_dst_lookup_flow (net/ipv6_stubs.h, for IPv6 as a module);
# without it IPv6 is always built in and ip6_dst_lookup_flow() is called.
ifeq ($(call mw57_grep,net/ipv6_stubs.h,ipv6_dst_lookup_flow),y)
ccflags-y += -DMW57_HAVE_IPV6_STUB
endif

# crc32c(crc, p, len) of the CRC library (<linux/crc32.h>); before,
# __crc32c_le() with the same meaning.
ifeq ($(call mw57_grep,linux/crc32.h,u32 crc32c),y)
ccflags-y += -DMW57_HAVE_CRC32C_LIB
endif

# iommu_dev_enable_feature(): the driver enables IOPF and SVA itself;
# without it the IOMMU core does so when a device is bound.
ifeq ($(call mw57_grep,linux/iommu.h,iommu_dev_enable_feature),y)
ccflags-y += -DMW57_HAVE_IOMMU_DEV_FEATURE
endif

# 7.x: setup_udp_tunnel_sock() and udp_tunnel_sock_release() take the
# struct sock; before, the struct socket.
ifeq ($(call mw57_grep,net/udp_tunnel.h,void udp_tunnel_sock_release(struct sock *sk)),y)
ccflags-y += -DMW57_HAVE_UDP_TUNNEL_SOCK_SK
endif

# 7.x: struct flowi4 carries flowi4_dscp (dscp_t), not flowi4_tos.
ifeq ($(call mw57_grep,net/flow.h,define flowi4_dscp),y)
ccflags-y += -DMW57_HAVE_FLOWI4_DSCP
endif

# 6.12: pernet_operations.exit_rtnl(net, dev_kill_list); 6.1 has only
# exit_batch_rtnl, 7.x only exit_rtnl.
ifeq ($(call mw57_grep,net/net_namespace.h,exit_rtnl),y)
ccflags-y += -DMW57_HAVE_PERNET_EXIT_RTNL
endif
