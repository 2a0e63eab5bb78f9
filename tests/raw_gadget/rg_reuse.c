// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The mw57 authors. */
/*
 * rg_reuse UDC_DEVICE: the raw gadget half of udc_reuse.sh.  INIT at
 * SuperSpeed on dummy_udc UDC_DEVICE, RUN, wait for the host's first
 * request (the port is enabled once its reset is over), then EP_ENABLE bulk IN 0x81 and bulk OUT 0x02 with the wMaxPacketSize of
 * the negotiated speed, and disable them again.  Prints "speed N", then
 * "in H" and "out H" (a handle, or -errno).  It never answers ep0: the
 * host does not enumerate it.  Exit 1 when it cannot get that far.
 */
#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <mw57/rawgadget.h>

/* Fetch events until a CONTROL, waiting at most 30 s for each. */
static int wait_control(int fd)
{
	struct {
		struct usb_raw_event ev;
		unsigned char data[8];
	} e;
	struct pollfd p;
	int ret;

	do {
		p = (struct pollfd){ .fd = fd, .events = POLLIN };
		if (poll(&p, 1, 30000) != 1)
			return -ETIMEDOUT;
		e.ev.length = sizeof(e.data);
		ret = rg_event_fetch(fd, &e.ev, sizeof(e.data));
	} while (!ret && e.ev.type != USB_RAW_EVENT_CONTROL);
	return ret;
}

int main(int argc, char **argv)
{
	static const __u8 addrs[] = { USB_DIR_IN | 1, USB_DIR_OUT | 2 };
	struct usb_endpoint_descriptor d = {
		.bLength = USB_DT_ENDPOINT_SIZE,
		.bDescriptorType = USB_DT_ENDPOINT,
		.bmAttributes = USB_ENDPOINT_XFER_BULK,
	};
	struct usb_raw_mw57_info info = { 0 };
	int fd, i, h, ret;

	if (argc != 2) {
		fprintf(stderr, "usage: rg_reuse UDC_DEVICE\n");
		return 2;
	}
	fd = rg_open();
	ret = fd < 0 ? fd : rg_init(fd, "dummy_udc", argv[1], USB_SPEED_SUPER);
	if (!ret)
		ret = rg_run(fd);
	if (!ret)
		ret = wait_control(fd);
	if (!ret)
		ret = rg_info(fd, &info);
	if (ret) {
		fprintf(stderr, "rg_reuse: %s\n", strerror(-ret));
		return 1;
	}
	printf("speed %u\n", info.speed);
	d.wMaxPacketSize = htole16(info.speed == USB_SPEED_SUPER ? 1024 : 512);
	for (i = 0; i < 2; i++) {
		d.bEndpointAddress = addrs[i];
		h = rg_ep_enable(fd, &d);
		printf("%s %d\n", i ? "out" : "in", h);
		if (h >= 0)
			rg_ep_disable(fd, h);
	}
	close(fd);
	return 0;
}
