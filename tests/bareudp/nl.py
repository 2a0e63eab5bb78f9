#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
"""Raw rtnetlink for the bareudp ABI tests: what iproute2 will not send.

  nl.py add NAME [port=N] [ethertype=N] [srcportmin=N] [multiproto] [nodata]
      RTM_NEWLINK kind "bareudp"; prints "OK" or "ERR <errno> <extack>"
  nl.py get NAME
      prints "port=N ethertype=0xNNNN srcportmin=N multiproto=0|1", decoding
      PORT and ETHERTYPE as big-endian and SRCPORT_MIN in host order
  nl.py dfroute PREFIX/LEN DEV TUNDST [SRC]
      RTM_NEWROUTE: the IPv4 PREFIX through DEV with lwtunnel metadata to
      TUNDST (ip or ip6 encap by its family), tunnel id 0 and the
      DONT_FRAGMENT flag, which iproute2's "encap ip" cannot set; SRC is
      the preferred source.  Prints "OK" or "ERR <errno> <extack>"
"""
import errno
import os
import socket
import struct
import sys

RTM_NEWLINK, RTM_GETLINK, RTM_NEWROUTE = 16, 18, 24
NLM_F_REQUEST, NLM_F_ACK, NLM_F_EXCL, NLM_F_CREATE = 1, 4, 0x200, 0x400
NLMSG_ERROR, NLM_F_ACK_TLVS = 2, 0x200
IFLA_IFNAME, IFLA_LINKINFO = 3, 18
IFLA_INFO_KIND, IFLA_INFO_DATA = 1, 2
PORT, ETHERTYPE, SRCPORT_MIN, MULTIPROTO = 1, 2, 3, 4
SOL_NETLINK, NETLINK_CAP_ACK, NETLINK_EXT_ACK = 270, 10, 11
RTA_DST, RTA_OIF, RTA_PREFSRC, RTA_ENCAP_TYPE, RTA_ENCAP = 1, 4, 7, 21, 22
RT_TABLE_MAIN, RTPROT_BOOT, RT_SCOPE_LINK, RTN_UNICAST = 254, 3, 253, 1
LWTUNNEL_ENCAP_IP, LWTUNNEL_ENCAP_IP6 = 2, 4
LWT_ID, LWT_DST, LWT_FLAGS = 1, 2, 6	# the same in LWTUNNEL_IP and _IP6
TUNNEL_DONT_FRAGMENT = 0x0100


def nla(kind, data):
    hdr = struct.pack("=HH", 4 + len(data), kind)
    return hdr + data + b"\0" * (-len(data) % 4)


def parse(buf):
    attrs = {}
    while len(buf) >= 4:
        length, kind = struct.unpack("=HH", buf[:4])
        attrs[kind & 0x3FFF] = buf[4:length]
        buf = buf[(length + 3) & ~3:]
    return attrs


def request(msg_type, flags, payload):
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
    s.setsockopt(SOL_NETLINK, NETLINK_CAP_ACK, 1)
    s.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
    s.send(struct.pack("=IHHII", 16 + len(payload), msg_type,
                       NLM_F_REQUEST | flags, 1, 0) + payload)
    return s.recv(65536)


def report(reply):
    """Print the outcome of an acked request; 0 or 1 for the exit code."""
    _, kind, flags = struct.unpack("=IHH", reply[:8])
    err = struct.unpack("=i", reply[16:20])[0] if kind == NLMSG_ERROR else 0
    if err == 0:
        print("OK")
        return 0
    msg = ""
    if flags & NLM_F_ACK_TLVS:
        tlvs = parse(reply[20 + 16:])
        msg = tlvs.get(1, b"").rstrip(b"\0").decode()
    print("ERR", errno.errorcode.get(-err, str(-err)), msg)
    return 1


def add(name, args):
    data = b""
    for a in args:
        key, _, val = a.partition("=")
        if key == "port":
            data += nla(PORT, struct.pack("!H", int(val, 0)))
        elif key == "ethertype":
            data += nla(ETHERTYPE, struct.pack("!H", int(val, 0)))
        elif key == "srcportmin":
            data += nla(SRCPORT_MIN, struct.pack("=H", int(val, 0)))
        elif key == "multiproto":
            data += nla(MULTIPROTO, b"")
    info = nla(IFLA_INFO_KIND, b"bareudp\0")
    if "nodata" not in args:
        info += nla(IFLA_INFO_DATA | 0x8000, data)
    payload = struct.pack("=BxHiII", 0, 0, 0, 0, 0)
    payload += nla(IFLA_IFNAME, name.encode() + b"\0")
    payload += nla(IFLA_LINKINFO | 0x8000, info)
    return report(request(RTM_NEWLINK,
                          NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL, payload))


def dfroute(prefix, dev, tundst, src=None):
    addr, _, plen = prefix.partition("/")
    family = socket.AF_INET6 if ":" in tundst else socket.AF_INET
    encap = nla(LWT_ID, struct.pack("!Q", 0))
    encap += nla(LWT_DST, socket.inet_pton(family, tundst))
    encap += nla(LWT_FLAGS, struct.pack("!H", TUNNEL_DONT_FRAGMENT))
    payload = struct.pack("=BBBBBBBBI", socket.AF_INET, int(plen or 32), 0, 0,
                          RT_TABLE_MAIN, RTPROT_BOOT, RT_SCOPE_LINK,
                          RTN_UNICAST, 0)
    payload += nla(RTA_DST, socket.inet_pton(socket.AF_INET, addr))
    payload += nla(RTA_OIF, struct.pack("=I", socket.if_nametoindex(dev)))
    if src:
        payload += nla(RTA_PREFSRC, socket.inet_pton(socket.AF_INET, src))
    payload += nla(RTA_ENCAP_TYPE, struct.pack(
        "=H", LWTUNNEL_ENCAP_IP6 if family == socket.AF_INET6
        else LWTUNNEL_ENCAP_IP))
    payload += nla(RTA_ENCAP | 0x8000, encap)
    return report(request(RTM_NEWROUTE,
                          NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL, payload))


def get(name):
    payload = struct.pack("=BxHiII", 0, 0, 0, 0, 0)
    payload += nla(IFLA_IFNAME, name.encode() + b"\0")
    reply = request(RTM_GETLINK, 0, payload)
    length, kind = struct.unpack("=IH", reply[:6])
    if kind == NLMSG_ERROR:
        print("ERR", errno.errorcode.get(-struct.unpack("=i", reply[16:20])[0]))
        return 1
    attrs = parse(reply[16 + 16:length])
    info = parse(attrs[IFLA_LINKINFO])
    data = parse(info[IFLA_INFO_DATA])
    print("port=%d ethertype=0x%04x srcportmin=%d multiproto=%d" % (
        struct.unpack("!H", data[PORT])[0],
        struct.unpack("!H", data[ETHERTYPE])[0],
        struct.unpack("=H", data[SRCPORT_MIN])[0],
        MULTIPROTO in data))
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("add", "get", "dfroute"):
        sys.exit(__doc__)
    if sys.argv[1] == "dfroute":
        sys.exit(dfroute(*sys.argv[2:]))
    sys.exit(add(sys.argv[2], sys.argv[3:]) if sys.argv[1] == "add"
             else get(sys.argv[2]))
