#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
"""Open vSwitch's egress tunnel lookup (ndo_fill_metadata_dst), the way
ovs-vswitchd asks for it, without Open vSwitch's userspace.

  ovs.py DEV DST...
      creates datapath mw57dp with DEV as a netdev port, then for each
      tunnel destination DST (IPv4 or IPv6) executes a packet with the
      actions set(tunnel(dst=DST,ttl=64)) and
      userspace(pid=<ours>,egress_tun_port=<DEV's port>), as
      ovs-vswitchd does for IPFIX and sFlow.  The datapath asks DEV's
      driver to fill in the tunnel's egress metadata; the upcall that
      comes back carries it, or nothing when the driver refused.  Prints
      per DST "DST: src=ADDR tp_dst=PORT" or "DST: none"; deletes the
      datapath.  Exit 0, or 1 when a request failed.
"""
import errno
import os
import socket
import struct
import sys

from nl import nla, parse

NETLINK_GENERIC = 16	# (not in Python's socket module)
GENL_ID_CTRL, CTRL_CMD_GETFAMILY = 16, 3
CTRL_ATTR_FAMILY_ID, CTRL_ATTR_FAMILY_NAME = 1, 2
NLM_F_REQUEST, NLM_F_ACK, NLM_F_ECHO, NLMSG_ERROR = 1, 4, 8, 2
# include/uapi/linux/openvswitch.h
OVS_DP_CMD_NEW, OVS_DP_CMD_DEL = 1, 2
OVS_DP_ATTR_NAME, OVS_DP_ATTR_UPCALL_PID = 1, 2
OVS_VPORT_CMD_NEW, OVS_VPORT_TYPE_NETDEV = 1, 1
OVS_VPORT_ATTR_PORT_NO, OVS_VPORT_ATTR_TYPE = 1, 2
OVS_VPORT_ATTR_NAME, OVS_VPORT_ATTR_UPCALL_PID = 3, 5
OVS_PACKET_CMD_ACTION, OVS_PACKET_CMD_EXECUTE = 2, 3
OVS_PACKET_ATTR_PACKET, OVS_PACKET_ATTR_KEY = 1, 2
OVS_PACKET_ATTR_ACTIONS, OVS_PACKET_ATTR_EGRESS_TUN_KEY = 3, 5
OVS_KEY_ATTR_IN_PORT, OVS_KEY_ATTR_TUNNEL = 3, 16
OVS_ACTION_ATTR_USERSPACE, OVS_ACTION_ATTR_SET = 2, 3
OVS_USERSPACE_ATTR_PID, OVS_USERSPACE_ATTR_EGRESS_TUN_PORT = 1, 3
TUN_ID, TUN_IPV4_SRC, TUN_IPV4_DST, TUN_TTL = 0, 1, 2, 4
TUN_TP_DST, TUN_IPV6_SRC, TUN_IPV6_DST = 10, 12, 13
VERSIONS = {"ovs_datapath": 2, "ovs_vport": 1, "ovs_packet": 1}
NESTED = 0x8000


class Genl:
    def __init__(self):
        self.s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                               NETLINK_GENERIC)
        self.s.bind((0, 0))
        self.pid = self.s.getsockname()[0]
        self.seq = 0
        self.ids = {}
        self.upcalls = []

    def send(self, family, cmd, version, hdr, attrs):
        self.seq += 1
        body = struct.pack("=BBH", cmd, version, 0) + hdr + attrs
        # (ECHO: Open vSwitch answers a request with a notification, which
        # reaches the requester only when it asks for the echo)
        self.s.send(struct.pack("=IHHII", 16 + len(body), family,
                                NLM_F_REQUEST | NLM_F_ACK | NLM_F_ECHO,
                                self.seq, 0) + body)
        reply = None
        while True:	# our reply and its ack; upcalls are kept aside
            buf = self.s.recv(65536)
            while len(buf) >= 16:
                length, kind, _, seq, _ = struct.unpack("=IHHII", buf[:16])
                msg, buf = buf[16:length], buf[(length + 3) & ~3:]
                if kind == NLMSG_ERROR:
                    if seq != self.seq:
                        continue
                    err = -struct.unpack("=i", msg[:4])[0]
                    if err:
                        raise OSError(err, os.strerror(err))
                    return reply
                if seq == self.seq:
                    reply = msg
                elif msg[0] == OVS_PACKET_CMD_ACTION:
                    self.upcalls.append(msg)

    def family(self, name):
        if name not in self.ids:
            msg = self.send(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, b"",
                            nla(CTRL_ATTR_FAMILY_NAME, name.encode() + b"\0"))
            self.ids[name] = struct.unpack(
                "=H", parse(msg[4:])[CTRL_ATTR_FAMILY_ID][:2])[0]
        return self.ids[name]

    def ovs(self, name, cmd, ifindex, attrs, answered=True):
        """An OVS request; returns the reply's ovs_header ifindex, attrs
        (a request that is not answered: ifindex, {})."""
        msg = self.send(self.family(name), cmd, VERSIONS[name],
                        struct.pack("=i", ifindex), attrs)
        if msg is None and not answered:
            return ifindex, {}
        if msg is None:
            raise OSError(errno.EPROTO, "no reply to %s command %d" % (name, cmd))
        return struct.unpack("=i", msg[4:8])[0], parse(msg[8:])


def u32(v):
    return struct.pack("=I", v)


def frame():
    """Ethernet, IPv4, UDP: a packet the datapath's key extraction takes."""
    udp = struct.pack("!HHHH", 4000, 4001, 8 + 4, 0) + b"mw57"
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64, 17,
                     0, socket.inet_aton("192.168.1.1"),
                     socket.inet_aton("192.168.2.1"))
    return b"\x02\0\0\0\0\x02" + b"\x02\0\0\0\0\x01" + b"\x08\x00" + ip + udp


def egress(g, dp, port, dst):
    fam = socket.AF_INET6 if ":" in dst else socket.AF_INET
    tun = nla(TUN_ID, struct.pack("!Q", 0))
    tun += nla(TUN_IPV6_DST if fam == socket.AF_INET6 else TUN_IPV4_DST,
               socket.inet_pton(fam, dst))
    tun += nla(TUN_TTL, b"\x40")
    actions = nla(OVS_ACTION_ATTR_SET | NESTED,
                  nla(OVS_KEY_ATTR_TUNNEL | NESTED, tun))
    actions += nla(OVS_ACTION_ATTR_USERSPACE | NESTED,
                   nla(OVS_USERSPACE_ATTR_PID, u32(g.pid)) +
                   nla(OVS_USERSPACE_ATTR_EGRESS_TUN_PORT, u32(port)))
    g.upcalls = []
    g.ovs("ovs_packet", OVS_PACKET_CMD_EXECUTE, dp,
          nla(OVS_PACKET_ATTR_PACKET, frame()) +
          nla(OVS_PACKET_ATTR_KEY | NESTED,
              nla(OVS_KEY_ATTR_IN_PORT, u32(0))) +
          nla(OVS_PACKET_ATTR_ACTIONS | NESTED, actions), answered=False)
    if len(g.upcalls) != 1:
        raise OSError(errno.EPROTO, "%d upcalls, not 1" % len(g.upcalls))
    attrs = parse(g.upcalls[0][8:])
    if OVS_PACKET_ATTR_EGRESS_TUN_KEY not in attrs:
        return "none"
    key = parse(attrs[OVS_PACKET_ATTR_EGRESS_TUN_KEY])
    src = key.get(TUN_IPV6_SRC if fam == socket.AF_INET6 else TUN_IPV4_SRC)
    return "src=%s tp_dst=%s" % (
        socket.inet_ntop(fam, src) if src else "?",
        struct.unpack("!H", key[TUN_TP_DST])[0] if TUN_TP_DST in key else "?")


def main(dev, dsts):
    g = Genl()
    name = b"mw57dp\0"
    dp, _ = g.ovs("ovs_datapath", OVS_DP_CMD_NEW, 0,
                  nla(OVS_DP_ATTR_NAME, name) +
                  nla(OVS_DP_ATTR_UPCALL_PID, u32(g.pid)))
    try:
        _, attrs = g.ovs("ovs_vport", OVS_VPORT_CMD_NEW, dp,
                         nla(OVS_VPORT_ATTR_NAME, dev.encode() + b"\0") +
                         nla(OVS_VPORT_ATTR_TYPE, u32(OVS_VPORT_TYPE_NETDEV)) +
                         nla(OVS_VPORT_ATTR_UPCALL_PID, u32(g.pid)))
        port = struct.unpack("=I", attrs[OVS_VPORT_ATTR_PORT_NO])[0]
        for dst in dsts:
            print("%s: %s" % (dst, egress(g, dp, port, dst)), flush=True)
    finally:
        g.ovs("ovs_datapath", OVS_DP_CMD_DEL, 0, nla(OVS_DP_ATTR_NAME, name),
              answered=False)
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    try:
        sys.exit(main(sys.argv[1], sys.argv[2:]))
    except OSError as e:
        print("ovs.py: %s" % e, file=sys.stderr)
        sys.exit(1)
