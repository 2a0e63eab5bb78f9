// SPDX-License-Identifier: GPL-2.0
/*
 * bareudp: an L3 payload (IPv4, IPv6, MPLS, or any ethertype) directly in
 * UDP (RFC 7510 for MPLS), metadata mode only, with the upstream rtnetlink
 * ABI (kind "bareudp", IFLA_BAREUDP_*), for Debian's 6.1 and 6.12 kernels.
 * See README.md next to this file for what differs from upstream.
 *
 * Copyright (C) 2026 The mw57 authors.
 */

#include <linux/etherdevice.h>
#include <linux/if_link.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rculist.h>
#include <net/dst_cache.h>
#include <net/dst_metadata.h>
#include <net/gro.h>
#include <net/gro_cells.h>
#include <net/inet_dscp.h>
#include <net/inet_ecn.h>
#include <net/ip6_route.h>
#include <net/ip_tunnels.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/route.h>
#include <net/rtnetlink.h>
#include <net/udp_tunnel.h>

#define BU_BASE_HLEN	sizeof(struct udphdr)
#define BU_IPV4_HLEN	(sizeof(struct iphdr) + sizeof(struct udphdr))
#define BU_IPV6_HLEN	(sizeof(struct ipv6hdr) + sizeof(struct udphdr))

static bool log_ecn_error = true;
module_param(log_ecn_error, bool, 0644);
MODULE_PARM_DESC(log_ecn_error, "Log packets received with corrupted ECN");

static unsigned int bu_net_id;

struct bu_net {
	struct list_head devs;		/* bu_dev.next, under rtnl */
};

struct bu_conf {
	__be16 ethertype;
	__be16 port;
	u16 sport_min;
	bool multi_proto_mode;
};

struct bu_dev {
	struct net *net;		/* netns of the socket */
	struct net_device *dev;
	struct list_head next;
	struct socket __rcu *sock;	/* while up */
	struct gro_cells gro_cells;
	__be16 ethertype;
	__be16 port;
	u16 sport_min;
	bool multi_proto_mode;
};

static struct rtnl_link_ops bu_link_ops;

/* --- receive ------------------------------------------------------------ */

/* The protocol of a received payload, or 0 to drop it. */
static __be16 bu_rx_proto(struct bu_dev *bu, struct sk_buff *skb,
			  unsigned short family)
{
	u8 version;

	if (bu->ethertype == htons(ETH_P_IP)) {
		/* the payload may not be linear */
		if (skb_copy_bits(skb, BU_BASE_HLEN, &version, 1))
			return 0;
		version >>= 4;
		if (version == 4)
			return htons(ETH_P_IP);
		if (version == 6 && bu->multi_proto_mode)
			return htons(ETH_P_IPV6);
		return 0;
	}
	if (bu->ethertype == htons(ETH_P_MPLS_UC)) {
		bool mcast = family == AF_INET ?
			ipv4_is_multicast(ip_hdr(skb)->daddr) :
			ipv6_addr_is_multicast(&ipv6_hdr(skb)->daddr);

		/* the outer destination tells multicast MPLS apart */
		if (!mcast)
			return htons(ETH_P_MPLS_UC);
		return bu->multi_proto_mode ? htons(ETH_P_MPLS_MC) : 0;
	}
	return bu->ethertype;
}

/*
 * Receive metadata dsts, recycled.  Metadata mode gives every received
 * packet a metadata dst with its tunnel key; allocating one (kmalloc) and
 * freeing it (call_rcu, then kfree) for each packet is a large part of
 * what a small packet costs.  Each CPU keeps a ring of BU_MD_RING dsts, each
 * holding a reference of the ring's own, and takes them in turn: a dst
 * whose only reference is the ring's is attached to no skb any more, so
 * its key is written anew and it is handed out again; one still held is
 * left to its holders (the last one frees it) and replaced by a new dst.
 * Nobody writes a held one: whoever changes an skb's key takes a copy
 * first (skb_tunnel_info_unclone()).  The ring is sized for a NAPI poll's
 * batch of packets queued to the gro_cells before any of them is done.
 */
#define BU_MD_RING	64

struct bu_md_ring {
	struct metadata_dst *md[BU_MD_RING];
	unsigned int next;
};

static struct bu_md_ring __percpu *bu_md_rings;

/* The key udp_tun_rx_dst() gives skb, written into a dst nobody else holds */
static void bu_rx_key_set(struct ip_tunnel_info *info,
			  const struct sk_buff *skb, unsigned short family)
{
	const struct udphdr *uh = udp_hdr(skb);
	struct ip_tunnel_key *key = &info->key;

	memset(info, 0, sizeof(*info));	/* no options follow */
	if (family == AF_INET) {
		const struct iphdr *iph = ip_hdr(skb);

		key->u.ipv4.src = iph->saddr;
		key->u.ipv4.dst = iph->daddr;
		key->tos = iph->tos;
		key->ttl = iph->ttl;
	} else {
		const struct ipv6hdr *ip6h = ipv6_hdr(skb);

		info->mode = IP_TUNNEL_INFO_IPV6;
		key->u.ipv6.src = ip6h->saddr;
		key->u.ipv6.dst = ip6h->daddr;
		key->tos = ipv6_get_dsfield(ip6h);
		key->ttl = ip6h->hop_limit;
		key->label = ip6_flowlabel(ip6h);
	}
	key->tp_src = uh->source;
	key->tp_dst = uh->dest;
	mw57_tun_set_rx_flags(key, uh->check != 0);
}

/*
 * skb's RX metadata dst, with a reference for skb.  The UDP receive path
 * runs with BH off (as gro_cells_receive() relies on too), so this CPU's
 * ring is ours alone.
 */
static struct metadata_dst *bu_rx_md(struct sk_buff *skb,
				     unsigned short family)
{
	struct bu_md_ring *ring = this_cpu_ptr(bu_md_rings);
	struct metadata_dst **slot = &ring->md[ring->next];
	struct metadata_dst *md = *slot;

	ring->next = (ring->next + 1) % BU_MD_RING;
	if (md && mw57_dst_held_once(&md->dst)) {
		bu_rx_key_set(&md->u.tun_info, skb, family);
		dst_hold(&md->dst);
		return md;
	}
	md = mw57_udp_tun_rx_dst_key(skb, family);
	if (!md)
		return NULL;
	if (*slot)
		dst_release(&(*slot)->dst);
	dst_hold(&md->dst);
	*slot = md;
	return md;
}

static void bu_md_rings_free(void)
{
	unsigned int cpu, i;

	for_each_possible_cpu(cpu) {
		struct bu_md_ring *ring = per_cpu_ptr(bu_md_rings, cpu);

		for (i = 0; i < BU_MD_RING; i++)
			if (ring->md[i])
				dst_release(&ring->md[i]->dst);
	}
	free_percpu(bu_md_rings);
}

/* A CE outer header over a not-ECT payload: name the sender, as upstream */
static void bu_log_ecn_error(const struct bu_dev *bu, unsigned short family,
			     const void *oiph)
{
	const struct ipv6hdr *ip6h = oiph;
	const struct iphdr *iph = oiph;

	if (family == AF_INET)
		net_info_ratelimited("%s: non-ECT from %pI4 with TOS=%#x\n",
				     bu->dev->name, &iph->saddr, iph->tos);
	else
		net_info_ratelimited("%s: non-ECT from %pI6\n",
				     bu->dev->name, &ip6h->saddr);
}

static int bu_udp_encap_recv(struct sock *sk, struct sk_buff *skb)
{
	unsigned short family = ip_hdr(skb)->version == 4 ? AF_INET : AF_INET6;
	struct metadata_dst *tun_dst;
	struct bu_dev *bu;
	unsigned int len;
	int outer_off, err;
	__be16 proto;
	void *oiph;

	bu = rcu_dereference_sk_user_data(sk);
	if (!bu)
		goto drop;

	proto = bu_rx_proto(bu, skb, family);
	if (!proto)
		goto drop_count;
	if (iptunnel_pull_header(skb, BU_BASE_HLEN, proto,
				 !net_eq(bu->net, dev_net(bu->dev))))
		goto drop_count;

	tun_dst = bu_rx_md(skb, family);
	if (!tun_dst)
		goto drop_count;
	skb_dst_set(skb, &tun_dst->dst);
	skb->dev = bu->dev;

	/* the pull below may move the head: keep the outer header's offset */
	outer_off = skb_network_header(skb) - skb->head;
	/* an L3 device: no link header, so mac_len is 0 for tc and taps */
	skb_reset_mac_header(skb);
	skb_reset_network_header(skb);
	if (!pskb_inet_may_pull(skb)) {
		DEV_STATS_INC(bu->dev, rx_length_errors);
		DEV_STATS_INC(bu->dev, rx_errors);
		goto drop;
	}
	oiph = skb->head + outer_off;
	if (family == AF_INET)
		err = IP_ECN_decapsulate(oiph, skb);
	else
		err = IP6_ECN_decapsulate(oiph, skb);
	if (unlikely(err)) {
		if (log_ecn_error)
			bu_log_ecn_error(bu, family, oiph);
		if (err > 1) {
			DEV_STATS_INC(bu->dev, rx_frame_errors);
			DEV_STATS_INC(bu->dev, rx_errors);
			goto drop;
		}
	}

	len = skb->len;
	if (gro_cells_receive(&bu->gro_cells, skb) == NET_RX_SUCCESS)
		dev_sw_netstats_rx_add(bu->dev, len);
	return 0;

drop_count:
	dev_core_stats_rx_dropped_inc(bu->dev);
drop:
	kfree_skb(skb);
	return 0;
}

/*
 * Outer-UDP GRO: packets of one flow aggregate before decapsulation, as
 * with geneve and fou.  For IP payloads: the ethertype's, or in IPv4
 * multiproto mode IPv4 or IPv6 by the version nibble (packets of the other
 * version are a different flow).  MPLS has no GRO: flushed as it comes.
 */
static __be16 bu_gro_proto(const struct bu_dev *bu, const u8 *payload)
{
	if (!bu->multi_proto_mode)
		return bu->ethertype;
	if (bu->ethertype != htons(ETH_P_IP))
		return 0;
	switch (*payload >> 4) {
	case 4:
		return htons(ETH_P_IP);
	case 6:
		return htons(ETH_P_IPV6);
	}
	return 0;
}

static struct sk_buff *bu_gro_receive(struct sock *sk, struct list_head *head,
				      struct sk_buff *skb)
{
	struct bu_dev *bu = rcu_dereference_sk_user_data(sk);
	const struct packet_offload *ptype = NULL;
	unsigned int off = skb_gro_offset(skb);
	struct sk_buff *pp = NULL, *p;
	const u8 *payload;
	int flush = 1;

	payload = skb_gro_header(skb, off + 1, off);
	if (bu && payload)
		ptype = gro_find_receive_by_type(bu_gro_proto(bu, payload));
	if (!ptype)
		goto out;
	if (bu->multi_proto_mode)
		list_for_each_entry(p, head, list)
			if (NAPI_GRO_CB(p)->same_flow &&
			    (p->data[off] >> 4) != (*payload >> 4))
				NAPI_GRO_CB(p)->same_flow = 0;
	pp = call_gro_receive(ptype->callbacks.gro_receive, head, skb);
	flush = 0;
out:
	skb_gro_flush_final(skb, pp, flush);
	return pp;
}

static int bu_gro_complete(struct sock *sk, struct sk_buff *skb, int nhoff)
{
	struct bu_dev *bu = rcu_dereference_sk_user_data(sk);
	const struct packet_offload *ptype = NULL;
	int err = -EOPNOTSUPP;

	if (bu)
		ptype = gro_find_complete_by_type(bu_gro_proto(bu,
							       skb->data + nhoff));
	if (ptype)
		err = ptype->callbacks.gro_complete(skb, nhoff);
	skb_set_inner_mac_header(skb, nhoff);
	return err;
}

/* --- socket ----------------------------------------------------------- */

/*
 * ICMP errors about our packets (their destination port is the peer's
 * bareudp port, which is ours) are ours: the UDP core then updates the
 * underlay's path MTU on "fragmentation needed" and "packet too big".
 * Without this hook it drops them.  Any such error is accepted, as
 * upstream does: there is no per-tunnel state to match it against.
 */
static int bu_err_lookup(struct sock *sk, struct sk_buff *skb)
{
	return 0;
}

static int bu_open(struct net_device *dev)
{
	struct bu_dev *bu = netdev_priv(dev);
	struct udp_tunnel_sock_cfg cfg = { };
	struct udp_port_cfg conf = { };
	struct socket *sock;
	int err, one = 1;

	/* decided at run time: ipv6.disable=1 still gives IPv4 tunnels */
	if (ipv6_mod_enabled()) {
		conf.family = AF_INET6;
		conf.ipv6_v6only = 0;
	} else {
		conf.family = AF_INET;
	}
	conf.local_udp_port = bu->port;
	err = udp_sock_create(bu->net, &conf, &sock);
	if (err)
		return err;
	/*
	 * IPv4 multicast (multicast MPLS) reaches a socket that has not
	 * joined the group only with IP_MULTICAST_ALL, which a dual-stack
	 * IPv6 socket does not set for IPv4 (upstream never receives it).
	 */
	if (conf.family == AF_INET6) {
		err = ip_setsockopt(sock->sk, SOL_IP, IP_MULTICAST_ALL,
				    KERNEL_SOCKPTR(&one), sizeof(one));
		if (err) {
			mw57_udp_tunnel_sock_release(sock);
			return err;
		}
	}
	udp_allow_gso(sock->sk);

	cfg.sk_user_data = bu;
	cfg.encap_type = 1;
	cfg.encap_rcv = bu_udp_encap_recv;
	cfg.encap_err_lookup = bu_err_lookup;
	cfg.gro_receive = bu_gro_receive;
	cfg.gro_complete = bu_gro_complete;
	mw57_setup_udp_tunnel_sock(bu->net, sock, &cfg);
	rcu_assign_pointer(bu->sock, sock);
	return 0;
}

static int bu_stop(struct net_device *dev)
{
	struct bu_dev *bu = netdev_priv(dev);
	struct socket *sock = rtnl_dereference(bu->sock);

	rcu_assign_pointer(bu->sock, NULL);
	synchronize_net();
	if (sock)
		mw57_udp_tunnel_sock_release(sock);
	return 0;
}

/* --- transmit ----------------------------------------------------------- */

static struct rtable *bu_route4(struct sk_buff *skb, struct net_device *dev,
				struct net *net, __be32 *saddr,
				const struct ip_tunnel_key *key, __be16 sport,
				__be16 dport, struct dst_cache *cache)
{
	struct flowi4 fl4 = {
		.flowi4_proto = IPPROTO_UDP,
		.flowi4_mark = skb->mark,
		.flowi4_flags = key->flow_flags,
		.daddr = key->u.ipv4.dst,
		.saddr = key->u.ipv4.src,
		.fl4_sport = sport,
		.fl4_dport = dport,
	};
	struct rtable *rt;

	mw57_flowi4_set_dscp(&fl4, key->tos);
	if (cache) {
		rt = dst_cache_get_ip4(cache, saddr);
		if (rt)
			return rt;
	}
	rt = ip_route_output_key(net, &fl4);
	if (IS_ERR(rt))
		return ERR_PTR(-ENETUNREACH);
	if (rt->dst.dev == dev) {	/* would loop back into us */
		ip_rt_put(rt);
		return ERR_PTR(-ELOOP);
	}
	if (cache)
		dst_cache_set_ip4(cache, &rt->dst, fl4.saddr);
	*saddr = fl4.saddr;
	return rt;
}

static struct dst_entry *bu_route6(struct sk_buff *skb, struct net_device *dev,
				   struct net *net, struct socket *sock,
				   struct in6_addr *saddr,
				   const struct ip_tunnel_key *key,
				   __be16 sport, __be16 dport,
				   struct dst_cache *cache)
{
	struct flowi6 fl6 = {
		.flowi6_proto = IPPROTO_UDP,
		.flowi6_mark = skb->mark,
		.flowlabel = ip6_make_flowinfo(key->tos, key->label),
		.daddr = key->u.ipv6.dst,
		.saddr = key->u.ipv6.src,
		.fl6_sport = sport,
		.fl6_dport = dport,
	};
	struct dst_entry *dst;

	if (cache) {
		dst = dst_cache_get_ip6(cache, saddr);
		if (dst)
			return dst;
	}
	dst = mw57_ip6_dst_lookup_flow(net, sock->sk, &fl6);
	if (IS_ERR(dst))
		return ERR_PTR(-ENETUNREACH);
	if (dst->dev == dev) {
		dst_release(dst);
		return ERR_PTR(-ELOOP);
	}
	if (cache)
		dst_cache_set_ip6(cache, dst, &fl6.saddr);
	*saddr = fl6.saddr;
	return dst;
}

static __be16 bu_sport(struct bu_dev *bu, struct sk_buff *skb)
{
	return udp_flow_src_port(bu->net, skb, bu->sport_min, USHRT_MAX, true);
}

/* Common tail of both families: headroom, offloads, inner protocol. */
static int bu_prepare_skb(struct sk_buff *skb, struct dst_entry *dst,
			  const struct ip_tunnel_info *info, int ip_hlen,
			  bool xnet, bool udp_sum)
{
	int err;

	skb_scrub_packet(skb, xnet);
	if (!skb_pull(skb, skb_network_offset(skb)))
		return -ENOSPC;
	err = skb_cow_head(skb, LL_RESERVED_SPACE(dst->dev) + dst->header_len +
			   BU_BASE_HLEN + info->options_len + ip_hlen);
	if (err)
		return err;
	err = udp_tunnel_handle_offloads(skb, udp_sum);
	if (err)
		return err;
	/* the real payload, so software GSO picks the right inner handler */
	skb_set_inner_protocol(skb, skb->protocol);
	return 0;
}

/*
 * ECN encapsulation reads the inner IP header, looking through VLAN tags
 * (skb_protocol(skb, true)): pull what it reads, tags included, and point
 * the network header at it, as upstream does.  Non-zero: drop.
 */
static int bu_pull_inner(struct sk_buff *skb)
{
	return skb_vlan_inet_prepare(skb, true);
}

static int bu_xmit4(struct sk_buff *skb, struct net_device *dev,
		    struct bu_dev *bu, struct ip_tunnel_info *info)
{
	bool xnet = !net_eq(bu->net, dev_net(bu->dev));
	const struct ip_tunnel_key *key = &info->key;
	bool udp_sum = mw57_tun_csum(key);
	struct socket *sock;
	struct rtable *rt;
	__be16 sport, df;
	__be32 saddr;
	u8 tos, ttl;
	int err;

	sock = rcu_dereference(bu->sock);
	if (!sock)
		return -ESHUTDOWN;
	if (bu_pull_inner(skb))
		return -EINVAL;

	sport = bu_sport(bu, skb);
	rt = bu_route4(skb, dev, bu->net, &saddr, key, sport, bu->port,
		       ip_tunnel_dst_cache_usable(skb, info) ?
		       &info->dst_cache : NULL);
	if (IS_ERR(rt))
		return PTR_ERR(rt);

	skb_tunnel_check_pmtu(skb, &rt->dst, BU_IPV4_HLEN + info->options_len,
			      false);
	tos = ip_tunnel_ecn_encap(key->tos, ip_hdr(skb), skb);
	/* tc tunnel_key leaves ttl 0 unless told: use the route's */
	ttl = key->ttl ? : ip4_dst_hoplimit(&rt->dst);
	df = mw57_tun_df(key) ? htons(IP_DF) : 0;

	err = bu_prepare_skb(skb, &rt->dst, info, sizeof(struct iphdr), xnet,
			     udp_sum);
	if (err) {
		ip_rt_put(rt);
		return err;
	}
	mw57_udp_tunnel_xmit_skb(rt, sock->sk, skb, saddr, key->u.ipv4.dst, tos,
				 ttl, df, sport, bu->port, xnet, !udp_sum);
	return 0;
}

static int bu_xmit6(struct sk_buff *skb, struct net_device *dev,
		    struct bu_dev *bu, struct ip_tunnel_info *info)
{
	bool xnet = !net_eq(bu->net, dev_net(bu->dev));
	const struct ip_tunnel_key *key = &info->key;
	bool udp_sum = mw57_tun_csum(key);
	struct in6_addr saddr, daddr;
	struct dst_entry *dst;
	struct socket *sock;
	__be16 sport;
	u8 prio, ttl;
	int err;

	sock = rcu_dereference(bu->sock);
	if (!sock)
		return -ESHUTDOWN;
	if (bu_pull_inner(skb))
		return -EINVAL;

	sport = bu_sport(bu, skb);
	dst = bu_route6(skb, dev, bu->net, sock, &saddr, key, sport, bu->port,
			ip_tunnel_dst_cache_usable(skb, info) ?
			&info->dst_cache : NULL);
	if (IS_ERR(dst))
		return PTR_ERR(dst);

	skb_tunnel_check_pmtu(skb, dst, BU_IPV6_HLEN + info->options_len, false);
	prio = ip_tunnel_ecn_encap(key->tos, ip_hdr(skb), skb);
	ttl = key->ttl ? : ip6_dst_hoplimit(dst);
	daddr = key->u.ipv6.dst;

	err = bu_prepare_skb(skb, dst, info, sizeof(struct ipv6hdr), xnet,
			     udp_sum);
	if (err) {
		dst_release(dst);
		return err;
	}
	mw57_udp_tunnel6_xmit_skb(dst, sock->sk, skb, dev, &saddr, &daddr, prio,
				  ttl, key->label, sport, bu->port, !udp_sum);
	return 0;
}

static bool bu_proto_valid(const struct bu_dev *bu, __be16 proto)
{
	if (proto == bu->ethertype)
		return true;
	if (!bu->multi_proto_mode)
		return false;
	/* multiproto: IPv4 also carries IPv6, MPLS unicast also multicast */
	return (bu->ethertype == htons(ETH_P_IP) && proto == htons(ETH_P_IPV6)) ||
	       (bu->ethertype == htons(ETH_P_MPLS_UC) &&
		proto == htons(ETH_P_MPLS_MC));
}

static netdev_tx_t bu_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct bu_dev *bu = netdev_priv(dev);
	struct ip_tunnel_info *info;
	int err = -EINVAL;

	info = skb_tunnel_info(skb);
	if (!bu_proto_valid(bu, skb->protocol) || !info ||
	    !(info->mode & IP_TUNNEL_INFO_TX))
		goto tx_error;

	rcu_read_lock();
	if (info->mode & IP_TUNNEL_INFO_IPV6)
		err = ipv6_mod_enabled() ? bu_xmit6(skb, dev, bu, info) :
			-EAFNOSUPPORT;
	else
		err = bu_xmit4(skb, dev, bu, info);
	rcu_read_unlock();
	if (likely(!err))
		return NETDEV_TX_OK;

tx_error:
	dev_kfree_skb(skb);
	if (err == -ELOOP)
		DEV_STATS_INC(dev, collisions);
	else if (err == -ENETUNREACH)
		DEV_STATS_INC(dev, tx_carrier_errors);
	DEV_STATS_INC(dev, tx_errors);
	return NETDEV_TX_OK;
}

/* Outer source address and ports for OVS' userspace path (no sending). */
static int bu_fill_metadata_dst(struct net_device *dev, struct sk_buff *skb)
{
	struct ip_tunnel_info *info = skb_tunnel_info(skb);
	struct bu_dev *bu = netdev_priv(dev);
	struct dst_cache *cache;
	struct socket *sock;
	__be16 sport;
	int err = 0;

	if (!info)
		return -EINVAL;
	cache = ip_tunnel_dst_cache_usable(skb, info) ? &info->dst_cache : NULL;
	sport = bu_sport(bu, skb);

	rcu_read_lock();
	/* down: no socket (upstream dereferenced NULL here, CVE-2026-45846) */
	sock = rcu_dereference(bu->sock);
	if (!sock) {
		err = -ESHUTDOWN;
	} else if (ip_tunnel_info_af(info) == AF_INET) {
		struct rtable *rt;
		__be32 saddr;

		rt = bu_route4(skb, dev, bu->net, &saddr, &info->key, sport,
			       bu->port, cache);
		if (IS_ERR(rt)) {
			err = PTR_ERR(rt);
		} else {
			ip_rt_put(rt);
			info->key.u.ipv4.src = saddr;
		}
	} else if (ipv6_mod_enabled()) {
		struct dst_entry *dst;
		struct in6_addr saddr;

		dst = bu_route6(skb, dev, bu->net, sock, &saddr, &info->key,
				sport, bu->port, cache);
		if (IS_ERR(dst)) {
			err = PTR_ERR(dst);
		} else {
			dst_release(dst);
			info->key.u.ipv6.src = saddr;
		}
	} else {
		err = -EAFNOSUPPORT;
	}
	rcu_read_unlock();
	if (!err) {
		info->key.tp_src = sport;
		info->key.tp_dst = bu->port;
	}
	return err;
}

/* --- device ------------------------------------------------------------- */

static int bu_init(struct net_device *dev)
{
	struct bu_dev *bu = netdev_priv(dev);

	return gro_cells_init(&bu->gro_cells, dev);
}

static void bu_uninit(struct net_device *dev)
{
	struct bu_dev *bu = netdev_priv(dev);

	gro_cells_destroy(&bu->gro_cells);
}

static const struct net_device_ops bu_netdev_ops = {
	.ndo_init		= bu_init,
	.ndo_uninit		= bu_uninit,
	.ndo_open		= bu_open,
	.ndo_stop		= bu_stop,
	.ndo_start_xmit		= bu_xmit,
	/* 6.1 has no tstats fallback in dev_get_stats(); harmless on 6.12 */
	.ndo_get_stats64	= dev_get_tstats64,
	.ndo_fill_metadata_dst	= bu_fill_metadata_dst,
};

static const struct device_type bu_type = {
	.name = "bareudp",
};

static void bu_setup(struct net_device *dev)
{
	dev->netdev_ops = &bu_netdev_ops;
	dev->needs_free_netdev = true;
	SET_NETDEV_DEVTYPE(dev, &bu_type);
	dev->features |= NETIF_F_SG | NETIF_F_HW_CSUM | NETIF_F_FRAGLIST |
			 NETIF_F_RXCSUM | NETIF_F_GSO_SOFTWARE;
	dev->hw_features |= NETIF_F_SG | NETIF_F_HW_CSUM | NETIF_F_FRAGLIST |
			    NETIF_F_RXCSUM | NETIF_F_GSO_SOFTWARE;
	mw57_netdev_set_lltx(dev);	/* nested tunnels: no Tx lock */
	dev->hard_header_len = 0;
	dev->addr_len = 0;
	dev->mtu = ETH_DATA_LEN;
	dev->min_mtu = IPV4_MIN_MTU;
	dev->max_mtu = IP_MAX_MTU - BU_BASE_HLEN;
	dev->type = ARPHRD_NONE;
	netif_keep_dst(dev);
	dev->priv_flags |= IFF_NO_QUEUE;
	dev->flags = IFF_POINTOPOINT | IFF_NOARP | IFF_MULTICAST;
	/* the core allocates tstats; 6.12's iptunnel_xmit_stats needs them */
	dev->pcpu_stat_type = NETDEV_PCPU_STAT_TSTATS;
}

/* --- rtnetlink ---------------------------------------------------------- */

static const struct nla_policy bu_policy[IFLA_BAREUDP_MAX + 1] = {
	[IFLA_BAREUDP_PORT]		= { .type = NLA_U16 },
	[IFLA_BAREUDP_ETHERTYPE]	= { .type = NLA_U16 },
	[IFLA_BAREUDP_SRCPORT_MIN]	= { .type = NLA_U16 },
	[IFLA_BAREUDP_MULTIPROTO_MODE]	= { .type = NLA_FLAG },
};

static int bu_validate(struct nlattr *tb[], struct nlattr *data[],
		       struct netlink_ext_ack *extack)
{
	if (!data) {
		NL_SET_ERR_MSG(extack,
			       "Not enough attributes provided to perform the operation");
		return -EINVAL;
	}
	return 0;
}

static int bu_parse(struct nlattr *data[], struct bu_conf *conf,
		    struct netlink_ext_ack *extack)
{
	memset(conf, 0, sizeof(*conf));
	if (!data[IFLA_BAREUDP_PORT]) {
		NL_SET_ERR_MSG(extack, "port not specified");
		return -EINVAL;
	}
	if (!data[IFLA_BAREUDP_ETHERTYPE]) {
		NL_SET_ERR_MSG(extack, "ethertype not specified");
		return -EINVAL;
	}
	/* PORT and ETHERTYPE travel big-endian, SRCPORT_MIN in host order */
	conf->port = nla_get_be16(data[IFLA_BAREUDP_PORT]);
	conf->ethertype = nla_get_be16(data[IFLA_BAREUDP_ETHERTYPE]);
	if (data[IFLA_BAREUDP_SRCPORT_MIN])
		conf->sport_min = nla_get_u16(data[IFLA_BAREUDP_SRCPORT_MIN]);
	conf->multi_proto_mode = nla_get_flag(data[IFLA_BAREUDP_MULTIPROTO_MODE]);
	if (conf->multi_proto_mode && conf->ethertype != htons(ETH_P_IP) &&
	    conf->ethertype != htons(ETH_P_MPLS_UC)) {
		NL_SET_ERR_MSG_ATTR(extack, data[IFLA_BAREUDP_MULTIPROTO_MODE],
				    "Cannot set multiproto mode for this ethertype (only IPv4 and unicast MPLS are supported)");
		return -EINVAL;
	}
	return 0;
}

static void bu_dellink(struct net_device *dev, struct list_head *head)
{
	struct bu_dev *bu = netdev_priv(dev);

	list_del_init(&bu->next);
	unregister_netdevice_queue(dev, head);
}

static int bu_create(struct net *net, struct net_device *dev,
		     struct nlattr *tb[], struct nlattr *data[],
		     struct netlink_ext_ack *extack)
{
	struct bu_net *bn = net_generic(net, bu_net_id);
	struct bu_dev *bu = netdev_priv(dev), *t;
	struct bu_conf conf;
	int err;

	err = bu_parse(data, &conf, extack);
	if (err)
		return err;
	list_for_each_entry(t, &bn->devs, next) {
		if (t->port == conf.port) {
			NL_SET_ERR_MSG(extack,
				       "Another bareudp device using the same port already exists");
			return -EBUSY;
		}
	}
	bu->net = net;
	bu->dev = dev;
	bu->port = conf.port;
	bu->ethertype = conf.ethertype;
	bu->sport_min = conf.sport_min;
	bu->multi_proto_mode = conf.multi_proto_mode;
	INIT_LIST_HEAD(&bu->next);

	err = register_netdevice(dev);
	if (err)
		return err;
	list_add(&bu->next, &bn->devs);

	if (tb[IFLA_MTU]) {
		err = dev_set_mtu(dev, nla_get_u32(tb[IFLA_MTU]));
		if (err) {
			NL_SET_ERR_MSG(extack, "Cannot set the requested MTU");
			bu_dellink(dev, NULL);
			return err;
		}
	}
	return 0;
}

static size_t bu_get_size(const struct net_device *dev)
{
	return nla_total_size(sizeof(__be16)) +	/* PORT */
	       nla_total_size(sizeof(__be16)) +	/* ETHERTYPE */
	       nla_total_size(sizeof(u16)) +	/* SRCPORT_MIN */
	       nla_total_size(0);		/* MULTIPROTO_MODE */
}

static int bu_fill_info(struct sk_buff *skb, const struct net_device *dev)
{
	struct bu_dev *bu = netdev_priv(dev);

	if (nla_put_be16(skb, IFLA_BAREUDP_PORT, bu->port) ||
	    nla_put_be16(skb, IFLA_BAREUDP_ETHERTYPE, bu->ethertype) ||
	    nla_put_u16(skb, IFLA_BAREUDP_SRCPORT_MIN, bu->sport_min) ||
	    (bu->multi_proto_mode &&
	     nla_put_flag(skb, IFLA_BAREUDP_MULTIPROTO_MODE)))
		return -EMSGSIZE;
	return 0;
}

static struct rtnl_link_ops bu_link_ops __read_mostly = {
	.kind		= "bareudp",
	.maxtype	= IFLA_BAREUDP_MAX,
	.policy		= bu_policy,
	.priv_size	= sizeof(struct bu_dev),
	.setup		= bu_setup,
	.validate	= bu_validate,
	.dellink	= bu_dellink,
	.get_size	= bu_get_size,
	.fill_info	= bu_fill_info,
};

/* --- netns ---------------------------------------------------------------- */

static int __net_init bu_init_net(struct net *net)
{
	struct bu_net *bn = net_generic(net, bu_net_id);

	INIT_LIST_HEAD(&bn->devs);
	return 0;
}

/* under RTNL, per namespace (mw57_pernet_set_exit_rtnl()) */
static void __net_exit bu_exit_rtnl(struct net *net,
				    struct list_head *dev_kill_list)
{
	struct bu_net *bn = net_generic(net, bu_net_id);
	struct bu_dev *bu, *next;

	/*
	 * Devices whose socket is in this netns, wherever they live; the
	 * core deletes those living here (default_device_exit_batch()).
	 */
	list_for_each_entry_safe(bu, next, &bn->devs, next)
		bu_dellink(bu->dev, dev_kill_list);
}

static struct pernet_operations bu_net_ops = {
	.init		= bu_init_net,
	.id		= &bu_net_id,
	.size		= sizeof(struct bu_net),
};

static int __init bu_mod_init(void)
{
	int err;

	/* the callbacks whose signature differs between kernels */
	mw57_pernet_set_exit_rtnl(&bu_net_ops, bu_exit_rtnl);
	mw57_rtnl_link_set_newlink(&bu_link_ops, bu_create);
	bu_md_rings = alloc_percpu(struct bu_md_ring);
	if (!bu_md_rings) {
		err = -ENOMEM;
		goto out;
	}
	err = register_pernet_subsys(&bu_net_ops);
	if (err)
		goto out_rings;
	err = rtnl_link_register(&bu_link_ops);
	if (err)
		goto out_pernet;
	return 0;

out_pernet:
	unregister_pernet_subsys(&bu_net_ops);
out_rings:
	free_percpu(bu_md_rings);
out:
	return err;
}

static void __exit bu_mod_exit(void)
{
	rtnl_link_unregister(&bu_link_ops);
	unregister_pernet_subsys(&bu_net_ops);
	/* no socket is left to receive with them */
	bu_md_rings_free();
}

module_init(bu_mod_init);
module_exit(bu_mod_exit);

MODULE_ALIAS_RTNL_LINK("bareudp");
MODULE_DESCRIPTION("L3 encapsulation over UDP (bareudp), upstream netlink ABI");
MODULE_AUTHOR("The mw57 authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(MW57_VERSION);
