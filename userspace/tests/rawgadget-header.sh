#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# Host unit test of the installed raw gadget client files: `make install`
# into a scratch root, build a client with `pkg-config mw57-rawgadget`, and
# compare every ABI number and struct size with the upstream values (the
# spec's table) and pin our extensions' (0xB9), so a typo in our header can
# never ship.  Also checks that
# our header, not Debian's 6.1 one, is the one found (events 3-6 exist).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../tests/lib/ktap.sh"

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
ktap_print_header
ktap_set_plan 4
make -s -C "$here/.." install DESTDIR="$root" >/dev/null 2>&1
ktap_test_result "make install DESTDIR=...: header, library, pkg-config file" \
	test -f "$root/usr/include/mw57/linux/usb/raw_gadget.h" -a \
	-f "$root/usr/lib/librawgadget.a" -a -f "$root/usr/lib/pkgconfig/mw57-rawgadget.pc"

export PKG_CONFIG_SYSROOT_DIR=$root PKG_CONFIG_LIBDIR=$root/usr/lib/pkgconfig
cat >"$root/abi.c" <<'C'
#include <stddef.h>
#include <stdio.h>
#include <linux/usb/raw_gadget.h>
#include <mw57/rawgadget.h>
#define P(x) printf("%s %#lx\n", #x, (unsigned long)(x))
int main(void)
{
	P(USB_RAW_IOCTL_INIT); P(USB_RAW_IOCTL_RUN); P(USB_RAW_IOCTL_EVENT_FETCH);
	P(USB_RAW_IOCTL_EP0_WRITE); P(USB_RAW_IOCTL_EP0_READ);
	P(USB_RAW_IOCTL_EP_ENABLE); P(USB_RAW_IOCTL_EP_DISABLE);
	P(USB_RAW_IOCTL_EP_WRITE); P(USB_RAW_IOCTL_EP_READ);
	P(USB_RAW_IOCTL_CONFIGURE); P(USB_RAW_IOCTL_VBUS_DRAW);
	P(USB_RAW_IOCTL_EPS_INFO); P(USB_RAW_IOCTL_EP0_STALL);
	P(USB_RAW_IOCTL_EP_SET_HALT); P(USB_RAW_IOCTL_EP_CLEAR_HALT);
	P(USB_RAW_IOCTL_EP_SET_WEDGE);
	P(USB_RAW_EVENT_SUSPEND); P(USB_RAW_EVENT_RESUME);
	P(USB_RAW_EVENT_RESET); P(USB_RAW_EVENT_DISCONNECT);
	P(UDC_NAME_LENGTH_MAX); P(USB_RAW_EPS_NUM_MAX); P(USB_RAW_EP_NAME_MAX);
	P(USB_RAW_EP_ADDR_ANY); P(USB_RAW_IO_FLAGS_ZERO); P(USB_RAW_IO_FLAGS_MASK);
	P(sizeof(struct usb_raw_init)); P(sizeof(struct usb_raw_event));
	P(sizeof(struct usb_raw_ep_io)); P(sizeof(struct usb_raw_ep_info));
	P(sizeof(struct usb_raw_eps_info)); P(offsetof(struct usb_raw_ep_info, caps));
	P(offsetof(struct usb_raw_ep_info, limits));
	P(sizeof(struct usb_endpoint_descriptor));
	P(USB_RAW_MW57_IOCTL_INFO); P(sizeof(struct usb_raw_mw57_info));
	P(USB_RAW_MW57_IOCTL_EP_ENABLE_SS); P(sizeof(struct usb_raw_mw57_ep_ss));
	P(offsetof(struct usb_raw_mw57_ep_ss, comp));
	P(USB_RAW_MW57_IOCTL_EP_WRITE_STREAM); P(USB_RAW_MW57_IOCTL_EP_READ_STREAM);
	P(sizeof(struct usb_raw_mw57_ep_io_stream));
	P(offsetof(struct usb_raw_mw57_ep_io_stream, stream_id));
	P(USB_RAW_MW57_IOCTL_SUBMIT); P(USB_RAW_MW57_IOCTL_REAP);
	P(USB_RAW_MW57_IOCTL_CANCEL); P(sizeof(struct usb_raw_mw57_urb));
	P(offsetof(struct usb_raw_mw57_urb, stream_id));
	P(sizeof(struct usb_raw_mw57_completion));
	P(offsetof(struct usb_raw_mw57_completion, ep));
	P(sizeof(struct usb_raw_mw57_cancel));
	P(USB_RAW_MW57_ASYNC_DEPTH); P(USB_RAW_MW57_ASYNC_BYTES);
	P(USB_RAW_MW57_MAP_MAX); P(USB_RAW_MW57_URB_MAPPED);
	return !rg_event_name(1);
}
C
# shellcheck disable=SC2046 # pkg-config output is a word list
gcc -Wall -Werror -o "$root/abi" "$root/abi.c" $(pkg-config --cflags --libs mw57-rawgadget) 2>"$root/cc.log"
ktap_test_result "a client builds with pkg-config --cflags --libs mw57-rawgadget" test -x "$root/abi"
[ -s "$root/cc.log" ] && ktap_print_msg "$(cat "$root/cc.log")"
expected="USB_RAW_IOCTL_INIT 0x41015500
USB_RAW_IOCTL_RUN 0x5501
USB_RAW_IOCTL_EVENT_FETCH 0x80085502
USB_RAW_IOCTL_EP0_WRITE 0x40085503
USB_RAW_IOCTL_EP0_READ 0xc0085504
USB_RAW_IOCTL_EP_ENABLE 0x40095505
USB_RAW_IOCTL_EP_DISABLE 0x40045506
USB_RAW_IOCTL_EP_WRITE 0x40085507
USB_RAW_IOCTL_EP_READ 0xc0085508
USB_RAW_IOCTL_CONFIGURE 0x5509
USB_RAW_IOCTL_VBUS_DRAW 0x4004550a
USB_RAW_IOCTL_EPS_INFO 0x83c0550b
USB_RAW_IOCTL_EP0_STALL 0x550c
USB_RAW_IOCTL_EP_SET_HALT 0x4004550d
USB_RAW_IOCTL_EP_CLEAR_HALT 0x4004550e
USB_RAW_IOCTL_EP_SET_WEDGE 0x4004550f
USB_RAW_EVENT_SUSPEND 0x3
USB_RAW_EVENT_RESUME 0x4
USB_RAW_EVENT_RESET 0x5
USB_RAW_EVENT_DISCONNECT 0x6
UDC_NAME_LENGTH_MAX 0x80
USB_RAW_EPS_NUM_MAX 0x1e
USB_RAW_EP_NAME_MAX 0x10
USB_RAW_EP_ADDR_ANY 0xff
USB_RAW_IO_FLAGS_ZERO 0x1
USB_RAW_IO_FLAGS_MASK 0x1
sizeof(struct usb_raw_init) 0x101
sizeof(struct usb_raw_event) 0x8
sizeof(struct usb_raw_ep_io) 0x8
sizeof(struct usb_raw_ep_info) 0x20
sizeof(struct usb_raw_eps_info) 0x3c0
offsetof(struct usb_raw_ep_info, caps) 0x14
offsetof(struct usb_raw_ep_info, limits) 0x18
sizeof(struct usb_endpoint_descriptor) 0x9
USB_RAW_MW57_IOCTL_INFO 0x8010b900
sizeof(struct usb_raw_mw57_info) 0x10
USB_RAW_MW57_IOCTL_EP_ENABLE_SS 0x4010b901
sizeof(struct usb_raw_mw57_ep_ss) 0x10
offsetof(struct usb_raw_mw57_ep_ss, comp) 0x9
USB_RAW_MW57_IOCTL_EP_WRITE_STREAM 0x4010b902
USB_RAW_MW57_IOCTL_EP_READ_STREAM 0xc010b903
sizeof(struct usb_raw_mw57_ep_io_stream) 0x10
offsetof(struct usb_raw_mw57_ep_io_stream, stream_id) 0x8
USB_RAW_MW57_IOCTL_SUBMIT 0x4020b904
USB_RAW_MW57_IOCTL_REAP 0x8020b905
USB_RAW_MW57_IOCTL_CANCEL 0x4010b906
sizeof(struct usb_raw_mw57_urb) 0x20
offsetof(struct usb_raw_mw57_urb, stream_id) 0x18
sizeof(struct usb_raw_mw57_completion) 0x20
offsetof(struct usb_raw_mw57_completion, ep) 0x14
sizeof(struct usb_raw_mw57_cancel) 0x10
USB_RAW_MW57_ASYNC_DEPTH 0x20
USB_RAW_MW57_ASYNC_BYTES 0x2000000
USB_RAW_MW57_MAP_MAX 0x400000
USB_RAW_MW57_URB_MAPPED 0x8000"
got=$("$root/abi" 2>&1)
ktap_test_result "every ioctl number, event type, constant and layout is upstream's, ours are pinned" \
	test "$got" = "$expected"
[ "$got" = "$expected" ] || ktap_print_msg "$(diff <(echo "$expected") <(echo "$got"))"
# the dpkg-owned header must not be what a pkg-config client sees
ktap_test_result "the installed header is ours (mw57 extension present)" \
	grep -q USB_RAW_MW57_IOCTL_INFO "$root/usr/include/mw57/linux/usb/raw_gadget.h"
ktap_finished
