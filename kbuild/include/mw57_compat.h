/* SPDX-License-Identifier: GPL-2.0 */
/* Copyright (C) 2026 The mw57 authors. */
/*
 * Force-included into every mw57 module (kbuild/Kbuild.include).  Each
 * block covers one kernel API difference between Debian's kernels (6.1,
 * 6.12, 7.x), selected by a MW57_HAVE_* feature probe from kbuild/probes.mk.
 * Module sources contain no version checks of their own.
 */
#ifndef _MW57_COMPAT_H
#define _MW57_COMPAT_H

#include "../version.h"

/*
 * Tunnel flags (bareudp).  MW57_HAVE_IP_TUNNEL_FLAGS_BITMAP: 6.12's bitmap;
 * otherwise 6.1's __be16.  mw57_tun_csum() and mw57_tun_df() read the CSUM
 * and DONT_FRAGMENT flags of a tunnel key; mw57_udp_tun_rx_dst_key() makes
 * an RX metadata dst flagged KEY (the core adds CSUM from the UDP header);
 * mw57_tun_set_rx_flags() gives a zeroed key the same flags.
 */
#if defined(__KERNEL__) && defined(MW57_NEED_TUNNEL_COMPAT)
#include <net/inet_dscp.h>
#include <net/ip_tunnels.h>
#include <net/net_namespace.h>
#include <net/rtnetlink.h>
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

static inline void mw57_tun_set_rx_flags(struct ip_tunnel_key *key, bool csum)
{
	__set_bit(IP_TUNNEL_KEY_BIT, key->tun_flags);
	if (csum)
		__set_bit(IP_TUNNEL_CSUM_BIT, key->tun_flags);
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

static inline void mw57_tun_set_rx_flags(struct ip_tunnel_key *key, bool csum)
{
	key->tun_flags = TUNNEL_KEY | (csum ? TUNNEL_CSUM : 0);
}
#endif

/*
 * A dst's reference count.  MW57_HAVE_DST_RCUREF: the rcuref_t of 6.5 on;
 * before, an atomic_t.  mw57_dst_held_once() is true when one reference is
 * left (the caller's), read with acquire order: the stores that follow
 * come after the last other holder's use of the dst.
 */
static inline bool mw57_dst_held_once(struct dst_entry *dst)
{
#ifdef MW57_HAVE_DST_RCUREF
	if (rcuref_read(&dst->__rcuref) != 1)
		return false;
#else
	if (atomic_read(&dst->__refcnt) != 1)
		return false;
#endif
	smp_acquire__after_ctrl_dep();
	return true;
}

/*
 * UDP tunnel transmit.  MW57_HAVE_UDP_TUNNEL_XMIT_IPCB_FLAGS and
 * MW57_HAVE_UDP_TUNNEL6_XMIT_IP6CB_FLAGS: the 7.x calls take control-block
 * flags last; mw57 sets none, as the older calls did.
 */
static inline void
mw57_udp_tunnel_xmit_skb(struct rtable *rt, struct sock *sk,
			 struct sk_buff *skb, __be32 src, __be32 dst, __u8 tos,
			 __u8 ttl, __be16 df, __be16 src_port, __be16 dst_port,
			 bool xnet, bool nocheck)
{
#ifdef MW57_HAVE_UDP_TUNNEL_XMIT_IPCB_FLAGS
	udp_tunnel_xmit_skb(rt, sk, skb, src, dst, tos, ttl, df, src_port,
			    dst_port, xnet, nocheck, 0);
#else
	udp_tunnel_xmit_skb(rt, sk, skb, src, dst, tos, ttl, df, src_port,
			    dst_port, xnet, nocheck);
#endif
}

static inline void
mw57_udp_tunnel6_xmit_skb(struct dst_entry *dst, struct sock *sk,
			  struct sk_buff *skb, struct net_device *dev,
			  struct in6_addr *saddr, struct in6_addr *daddr,
			  __u8 prio, __u8 ttl,
			  __be32 label, __be16 src_port, __be16 dst_port,
			  bool nocheck)
{
#ifdef MW57_HAVE_UDP_TUNNEL6_XMIT_IP6CB_FLAGS
	udp_tunnel6_xmit_skb(dst, sk, skb, dev, saddr, daddr, prio, ttl, label,
			     src_port, dst_port, nocheck, 0);
#else
	udp_tunnel6_xmit_skb(dst, sk, skb, dev, saddr, daddr, prio, ttl, label,
			     src_port, dst_port, nocheck);
#endif
}

/*
 * IPv6 route lookup.  MW57_HAVE_IPV6_STUB: through ipv6_stub (IPv6 may be
 * a module); without it IPv6 is built in and called directly.
 */
#ifdef MW57_HAVE_IPV6_STUB
#include <net/ipv6_stubs.h>
#else
#include <net/ipv6.h>
#endif

static inline struct dst_entry *
mw57_ip6_dst_lookup_flow(struct net *net, const struct sock *sk,
			 struct flowi6 *fl6)
{
#ifdef MW57_HAVE_IPV6_STUB
	return ipv6_stub->ipv6_dst_lookup_flow(net, sk, fl6, NULL);
#else
	return ip6_dst_lookup_flow(net, sk, fl6, NULL);
#endif
}

/*
 * rtnl_link_ops.newlink.  MW57_HAVE_RTNL_NEWLINK_PARAMS: 6.15+ passes
 * struct rtnl_newlink_params; before, (net, dev, tb, data, extack).
 * mw57_rtnl_link_set_newlink(ops, fn), before rtnl_link_register(), makes
 * ops->newlink call fn(net, dev, tb, data, extack) on every kernel; net is
 * the link's namespace (link_net, else the caller's), which is what the
 * older core passed.  One module, one link type: one fn.
 */
typedef int (*mw57_newlink_fn)(struct net *net, struct net_device *dev,
			       struct nlattr *tb[], struct nlattr *data[],
			       struct netlink_ext_ack *extack);
static mw57_newlink_fn mw57_newlink __ro_after_init;

#ifdef MW57_HAVE_RTNL_NEWLINK_PARAMS
static int mw57_rtnl_newlink(struct net_device *dev,
			     struct rtnl_newlink_params *p,
			     struct netlink_ext_ack *extack)
{
	return mw57_newlink(rtnl_newlink_link_net(p), dev, p->tb, p->data,
			    extack);
}
#else
static int mw57_rtnl_newlink(struct net *net, struct net_device *dev,
			     struct nlattr *tb[], struct nlattr *data[],
			     struct netlink_ext_ack *extack)
{
	return mw57_newlink(net, dev, tb, data, extack);
}
#endif

static inline void mw57_rtnl_link_set_newlink(struct rtnl_link_ops *ops,
					      mw57_newlink_fn fn)
{
	mw57_newlink = fn;
	ops->newlink = mw57_rtnl_newlink;
}

/*
 * Per-namespace exit under RTNL.  MW57_HAVE_PERNET_EXIT_RTNL: 6.12+'s
 * exit_rtnl(net, dev_kill_list) (7.x has only that); 6.1 has only
 * exit_batch_rtnl(net_list, dev_kill_list), which calls fn for each net.
 * mw57_pernet_set_exit_rtnl(ops, fn) before registering ops.
 */
typedef void (*mw57_exit_rtnl_fn)(struct net *net,
				  struct list_head *dev_kill_list);

#ifndef MW57_HAVE_PERNET_EXIT_RTNL
static mw57_exit_rtnl_fn mw57_exit_rtnl __ro_after_init;

static void __net_exit mw57_exit_batch_rtnl(struct list_head *net_list,
					    struct list_head *dev_kill_list)
{
	struct net *net;

	list_for_each_entry(net, net_list, exit_list)
		mw57_exit_rtnl(net, dev_kill_list);
}
#endif

static inline void mw57_pernet_set_exit_rtnl(struct pernet_operations *ops,
					     mw57_exit_rtnl_fn fn)
{
#ifdef MW57_HAVE_PERNET_EXIT_RTNL
	ops->exit_rtnl = fn;
#else
	mw57_exit_rtnl = fn;
	ops->exit_batch_rtnl = mw57_exit_batch_rtnl;
#endif
}

/*
 * UDP tunnel sockets.  MW57_HAVE_UDP_TUNNEL_SOCK_SK: 7.x's
 * setup_udp_tunnel_sock() and udp_tunnel_sock_release() take the struct
 * sock; before, the struct socket.
 */
static inline void mw57_setup_udp_tunnel_sock(struct net *net,
					      struct socket *sock,
					      struct udp_tunnel_sock_cfg *cfg)
{
#ifdef MW57_HAVE_UDP_TUNNEL_SOCK_SK
	setup_udp_tunnel_sock(net, sock->sk, cfg);
#else
	setup_udp_tunnel_sock(net, sock, cfg);
#endif
}

static inline void mw57_udp_tunnel_sock_release(struct socket *sock)
{
#ifdef MW57_HAVE_UDP_TUNNEL_SOCK_SK
	udp_tunnel_sock_release(sock->sk);
#else
	udp_tunnel_sock_release(sock);
#endif
}

/*
 * The route's DS field.  MW57_HAVE_FLOWI4_DSCP: 7.x's flowi4_dscp
 * (dscp_t); before, flowi4_tos holding the DSCP bits.
 */
static inline void mw57_flowi4_set_dscp(struct flowi4 *fl4, u8 tos)
{
#ifdef MW57_HAVE_FLOWI4_DSCP
	fl4->flowi4_dscp = inet_dsfield_to_dscp(tos);
#else
	fl4->flowi4_tos = tos & INET_DSCP_MASK;
#endif
}

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
 * Memory mappings (raw_gadget's transfer area, uacce's queues).
 * MW57_HAVE_VM_FLAGS_SET: 6.3+ vm_flags_set(), else vm_flags is written
 * directly.
 */
#if defined(__KERNEL__) && defined(MW57_NEED_MM_COMPAT)
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
#endif /* MW57_NEED_MM_COMPAT */

/*
 * uacce.  MW57_HAVE_SVA_BIND_DRVDATA: 6.1's three-argument
 * iommu_sva_bind_device().
 */
#if defined(__KERNEL__) && defined(MW57_NEED_UACCE_COMPAT)
#include <linux/iommu.h>

static inline struct iommu_sva *
mw57_iommu_sva_bind_device(struct device *dev, struct mm_struct *mm)
{
#ifdef MW57_HAVE_SVA_BIND_DRVDATA
	return iommu_sva_bind_device(dev, mm, NULL);
#else
	return iommu_sva_bind_device(dev, mm);
#endif
}

/*
 * SVA setup of a parent device.  MW57_HAVE_IOMMU_DEV_FEATURE: the driver
 * enables IOPF, then SVA, with iommu_dev_enable_feature() (and disables
 * both in reverse).  Without it (7.x) the IOMMU core does that on
 * iommu_sva_bind_device(): each step only needs the device to sit behind
 * an IOMMU (-ENODEV otherwise, as before) and disabling does nothing.
 */
static inline int mw57_iommu_enable_iopf(struct device *dev)
{
#ifdef MW57_HAVE_IOMMU_DEV_FEATURE
	return iommu_dev_enable_feature(dev, IOMMU_DEV_FEAT_IOPF);
#else
	return device_iommu_mapped(dev) ? 0 : -ENODEV;
#endif
}

static inline int mw57_iommu_enable_sva(struct device *dev)
{
#ifdef MW57_HAVE_IOMMU_DEV_FEATURE
	return iommu_dev_enable_feature(dev, IOMMU_DEV_FEAT_SVA);
#else
	return device_iommu_mapped(dev) ? 0 : -ENODEV;
#endif
}

static inline void mw57_iommu_disable_iopf(struct device *dev)
{
#ifdef MW57_HAVE_IOMMU_DEV_FEATURE
	iommu_dev_disable_feature(dev, IOMMU_DEV_FEAT_IOPF);
#endif
}

static inline void mw57_iommu_disable_sva(struct device *dev)
{
#ifdef MW57_HAVE_IOMMU_DEV_FEATURE
	iommu_dev_disable_feature(dev, IOMMU_DEV_FEAT_SVA);
#endif
}
#endif /* MW57_NEED_UACCE_COMPAT */

/*
 * CRC32C (softacc).  MW57_HAVE_CRC32C_LIB: the CRC library's crc32c();
 * before, __crc32c_le().  Both take the running CRC as is (no inversion).
 */
#if defined(__KERNEL__) && defined(MW57_NEED_CRC32C_COMPAT)
#include <linux/crc32.h>

static inline u32 mw57_crc32c(u32 crc, const void *p, size_t len)
{
#ifdef MW57_HAVE_CRC32C_LIB
	return crc32c(crc, p, len);
#else
	return __crc32c_le(crc, p, len);
#endif
}
#endif /* MW57_NEED_CRC32C_COMPAT */

#endif /* _MW57_COMPAT_H */
