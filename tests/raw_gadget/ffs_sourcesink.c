// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The mw57 authors. */
/*
 * ffs_sourcesink: the benchmark's FunctionFS twin of `rg-zero -P 2`: a
 * vendor interface with bulk OUT (sink: read and drop) and bulk IN
 * (source: write zeroes), BUFLEN bytes per read()/write().
 *
 *   ffs_sourcesink MOUNTPOINT BUFLEN
 *
 * Little-endian hosts only (amd64 guests).  Writes the descriptors and strings to MOUNTPOINT/ep0, prints "ready" on
 * stdout (the caller then binds the gadget to a UDC), serves until killed.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/usb/ch9.h>
#include <linux/usb/functionfs.h>

struct ep_desc {	/* 7-byte endpoint descriptor */
	__u8 bLength, bDescriptorType, bEndpointAddress, bmAttributes;
	__le16 wMaxPacketSize;
	__u8 bInterval;
} __attribute__((packed));

struct speed_descs {
	struct usb_interface_descriptor intf;
	struct ep_desc sink, source;
} __attribute__((packed));

static const struct {
	struct usb_functionfs_descs_head_v2 head;
	__le32 fs_count, hs_count;
	struct speed_descs fs, hs;
} __attribute__((packed)) descs = {
	.head = {
		.magic = FUNCTIONFS_DESCRIPTORS_MAGIC_V2,
		.length = sizeof(descs),
		.flags = FUNCTIONFS_HAS_FS_DESC | FUNCTIONFS_HAS_HS_DESC,
	},
	.fs_count = 3,
	.hs_count = 3,
#define SPEED(mp) { \
	.intf = { .bLength = sizeof(struct usb_interface_descriptor), \
		  .bDescriptorType = USB_DT_INTERFACE, .bNumEndpoints = 2, \
		  .bInterfaceClass = USB_CLASS_VENDOR_SPEC, .iInterface = 1 }, \
	.sink = { 7, USB_DT_ENDPOINT, USB_DIR_OUT | 1, USB_ENDPOINT_XFER_BULK, \
		  mp, 0 }, \
	.source = { 7, USB_DT_ENDPOINT, USB_DIR_IN | 2, USB_ENDPOINT_XFER_BULK, \
		    mp, 0 } }
	.fs = SPEED(64),
	.hs = SPEED(512),
};

static const struct {
	struct usb_functionfs_strings_head head;
	__le16 lang;
	char str[sizeof("ffs source/sink")];
} __attribute__((packed)) strs = {
	.head = {
		.magic = FUNCTIONFS_STRINGS_MAGIC,
		.length = sizeof(strs),
		.str_count = 1,
		.lang_count = 1,
	},
	.lang = 0x0409,
	.str = "ffs source/sink",
};

static size_t buflen;

static int open_ep(const char *dir, const char *name, int flags)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return open(path, flags);
}

/* ep1 (OUT): read and drop; ep2 (IN): write zeroes.  Errors while the
 * function is disabled (ESHUTDOWN) are retried. */
static void *pump(void *arg)
{
	int fd = (int)(long)arg >> 1, in = (int)(long)arg & 1;
	char *buf = calloc(1, buflen);
	ssize_t n;

	for (;;) {
		n = in ? write(fd, buf, buflen) : read(fd, buf, buflen);
		if (n < 0 && errno != EINTR)
			usleep(10000);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct usb_functionfs_event ev;
	pthread_t t;
	int ep0, sink, source;

	if (argc != 3) {
		fprintf(stderr, "usage: ffs_sourcesink MOUNTPOINT BUFLEN\n");
		return 2;
	}
	buflen = strtoul(argv[2], NULL, 0);
	ep0 = open_ep(argv[1], "ep0", O_RDWR);
	if (ep0 < 0 || write(ep0, &descs, sizeof(descs)) < 0 ||
	    write(ep0, &strs, sizeof(strs)) < 0) {
		perror("ffs_sourcesink: ep0");
		return 1;
	}
	sink = open_ep(argv[1], "ep1", O_RDWR);
	source = open_ep(argv[1], "ep2", O_RDWR);
	if (sink < 0 || source < 0) {
		perror("ffs_sourcesink: ep1/ep2");
		return 1;
	}
	pthread_create(&t, NULL, pump, (void *)(long)(sink << 1));
	pthread_create(&t, NULL, pump, (void *)(long)(source << 1 | 1));
	printf("ready\n");
	fflush(stdout);
	/* ep0 events (bind, enable, setup); setups are not used */
	while (read(ep0, &ev, sizeof(ev)) > 0 || errno == EINTR)
		;
	return 0;
}
