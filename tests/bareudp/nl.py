#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
"""Raw rtnetlink for the bareudp ABI tests: what iproute2 will not send.

  nl.py add NAME [port=N] [ethertype=N] [srcportmin=N] [multiproto] [nodata]
      RTM_NEWLINK kind "bareudp"; prints "OK" or "ERR <errno> <extack>"
  nl.py get NAME
      prints "port=N ethertype=0xNNNN srcportmin=N multiproto=0|1", decoding
      PORT and ETHERTYPE as big-endian and SRCPORT_MIN in host order
"""
import errno
import os
import socket
import struct
import sys

RTM_NEWLINK, RTM_GETLINK = 16, 18
NLM_F_REQUEST, NLM_F_ACK, NLM_F_EXCL, NLM_F_CREATE = 1, 4, 0x200, 0x400
NLMSG_ERROR, NLM_F_ACK_TLVS = 2, 0x200
IFLA_IFNAME, IFLA_LINKINFO = 3, 18
IFLA_INFO_KIND, IFLA_INFO_DATA = 1, 2
PORT, ETHERTYPE, SRCPORT_MIN, MULTIPROTO = 1, 2, 3, 4
SOL_NETLINK, NETLINK_CAP_ACK, NETLINK_EXT_ACK = 270, 10, 11


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
    reply = request(RTM_NEWLINK, NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL, payload)
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
    if len(sys.argv) < 3 or sys.argv[1] not in ("add", "get"):
        sys.exit(__doc__)
    sys.exit(add(sys.argv[2], sys.argv[3:]) if sys.argv[1] == "add"
             else get(sys.argv[2]))
