/* SPDX-License-Identifier: GPL-2.0 */
/* Copyright (C) 2026 The mw57 authors. */
/*
 * Force-included into every mw57 module (kbuild/Kbuild.include).  Each
 * block covers one kernel API difference between Debian's 6.1 and 6.12
 * trees, selected by a MW57_HAVE_* feature probe from kbuild/probes.mk.
 * Module sources contain no version checks of their own.
 */
#ifndef _MW57_COMPAT_H
#define _MW57_COMPAT_H

#include "../version.h"

/*
 * Tunnel flags (bareudp).  MW57_HAVE_IP_TUNNEL_FLAGS_BITMAP: 6.12's bitmap;
 * otherwise 6.1's __be16.  mw57_tun_csum() and mw57_tun_df() read the CSUM
 * and DONT_FRAGMENT flags of a tunnel key; mw57_udp_tun_rx_dst_key() makes
 * an RX metadata dst flagged KEY (the core adds CSUM from the UDP header).
 */
#if defined(__KERNEL__) && defined(MW57_NEED_TUNNEL_COMPAT)
#include <net/ip_tunnels.h>
#include <net/udp_tunnel.h>

#ifdef MW57_HAVE_IP_TUNNEL_FLAGS_BITMAP
static inline bool mw57_tun_csum(const struct ip_tunnel_key *key)
{
	return test_bit(IP_TUNNEL_CSUM_BIT, key->tun_flags);
}

static inline bool mw57_tun_df(const struct ip_tunnel_key *key)
{
	return test_bit(IP_TUNNEL_DONT_FRAGMENT_BIT, key->tun_flags);
}

static inline struct metadata_dst *
mw57_udp_tun_rx_dst_key(struct sk_buff *skb, unsigned short family)
{
	IP_TUNNEL_DECLARE_FLAGS(flags) = { };

	__set_bit(IP_TUNNEL_KEY_BIT, flags);
	return udp_tun_rx_dst(skb, family, flags, 0, 0);
}
#else
static inline bool mw57_tun_csum(const struct ip_tunnel_key *key)
{
	return key->tun_flags & TUNNEL_CSUM;
}

static inline bool mw57_tun_df(const struct ip_tunnel_key *key)
{
	return key->tun_flags & TUNNEL_DONT_FRAGMENT;
}

static inline struct metadata_dst *
mw57_udp_tun_rx_dst_key(struct sk_buff *skb, unsigned short family)
{
	return udp_tun_rx_dst(skb, family, TUNNEL_KEY, 0, 0);
}
#endif

/* Lockless Tx.  MW57_HAVE_NETDEV_LLTX: 6.12's dev->lltx; else the feature. */
static inline void mw57_netdev_set_lltx(struct net_device *dev)
{
#ifdef MW57_HAVE_NETDEV_LLTX
	dev->lltx = true;
#else
	dev->features |= NETIF_F_LLTX;
#endif
}
#endif /* MW57_NEED_TUNNEL_COMPAT */

/*
 * uacce.  MW57_HAVE_VM_FLAGS_SET: 6.3+ vm_flags_set(), else vm_flags is
 * written directly.  MW57_HAVE_SVA_BIND_DRVDATA: 6.1's three-argument
 * iommu_sva_bind_device().
 */
#if defined(__KERNEL__) && defined(MW57_NEED_UACCE_COMPAT)
#include <linux/iommu.h>
#include <linux/mm.h>

static inline void mw57_vm_flags_set(struct vm_area_struct *vma,
				     unsigned long flags)
{
#ifdef MW57_HAVE_VM_FLAGS_SET
	vm_flags_set(vma, flags);
#else
	vma->vm_flags |= flags;
#endif
}

static inline struct iommu_sva *
mw57_iommu_sva_bind_device(struct device *dev, struct mm_struct *mm)
{
#ifdef MW57_HAVE_SVA_BIND_DRVDATA
	return iommu_sva_bind_device(dev, mm, NULL);
#else
	return iommu_sva_bind_device(dev, mm);
#endif
}
#endif /* MW57_NEED_UACCE_COMPAT */

#endif /* _MW57_COMPAT_H */
