// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The mw57 authors. */
/*
 * rg_ss: a SuperSpeed device through /dev/raw-gadget (superspeed.sh), on
 * dummy_hcd is_super_speed=1.  A vendor device (bcdUSB 3.0, ep0 512)
 * with bulk IN 0x81 and bulk OUT 0x02, 1024 bytes, each with a companion
 * (burst of 4, 16 streams) that EP_ENABLE_SS hands to the UDC.  The host
 * enumerates it at 5 Gb/s; data goes both ways through usbfs; malformed
 * companions are refused.  dummy_hcd's "enabled ... stream enabled" log
 * line (superspeed.sh turns it on) shows that the UDC got the companion.
 * TAP 13 on stdout.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/usbdevice_fs.h>

#include <mw57/rawgadget.h>
#include "../lib/ktap.h"
#include "../lib/rg_test.h"

#define PLAN		12
#define VID		0x1d6b
#define PID		0x5708
#define XFER		16384

static struct usb_device_descriptor dev_desc = {
	.bLength = USB_DT_DEVICE_SIZE, .bDescriptorType = USB_DT_DEVICE,
	.bcdUSB = 0x0300, .bDeviceClass = USB_CLASS_VENDOR_SPEC,
	.bMaxPacketSize0 = 9, .idVendor = VID, .idProduct = PID,
	.bcdDevice = 0x0100, .iProduct = 1, .bNumConfigurations = 1,
};

/* 16 streams (2^4) and a burst of 4 packets on both bulk endpoints */
#define SS_COMP {						\
	.bLength = USB_DT_SS_EP_COMP_SIZE,			\
	.bDescriptorType = USB_DT_SS_ENDPOINT_COMP,		\
	.bMaxBurst = 3, .bmAttributes = 4,			\
}

static const struct {
	struct usb_config_descriptor c;
	struct usb_interface_descriptor i;
	struct rg_endpoint_descriptor in;
	struct usb_ss_ep_comp_descriptor in_comp;
	struct rg_endpoint_descriptor out;
	struct usb_ss_ep_comp_descriptor out_comp;
} __attribute__((packed)) cfg_desc = {
	.c = RG_CONFIG_DESC(cfg_desc),
	.i = RG_INTERFACE_DESC(2, USB_CLASS_VENDOR_SPEC),
	.in = RG_BULK_EP_DESC(USB_DIR_IN | 1, 1024),
	.in_comp = SS_COMP,
	.out = RG_BULK_EP_DESC(USB_DIR_OUT | 2, 1024),
	.out_comp = SS_COMP,
};

static const char *const strings[] = { "mw57 superspeed test", NULL };
static int h_in = -1, h_out = -1;

static int ss_configure(struct rg_device *d)
{
	struct usb_endpoint_descriptor e;

	if (h_in < 0) {
		rg_ep_desc(&e, &cfg_desc.in);
		h_in = rg_ep_enable_ss(d->fd, &e, &cfg_desc.in_comp);
	}
	if (h_out < 0) {
		rg_ep_desc(&e, &cfg_desc.out);
		h_out = rg_ep_enable_ss(d->fd, &e, &cfg_desc.out_comp);
	}
	return h_in < 0 ? h_in : h_out < 0 ? h_out : 0;
}

static const struct rg_device_ops ss_ops = { .configure = ss_configure };

static struct rg_device dev = {
	.device = &dev_desc, .config = &cfg_desc,
	.config_len = sizeof(cfg_desc), .strings = strings, .ops = &ss_ops,
};

static void *loop_thread(void *arg)
{
	(void)arg;
	rg_device_loop(&dev);
	return NULL;
}

/* One gadget-side transfer of XFER bytes in a thread. */
struct xfer {
	pthread_t t;
	int in, ret;
	volatile int done;
	unsigned char buf[XFER];
};

static void *xfer_thread(void *arg)
{
	struct xfer *x = arg;

	x->ret = x->in ? rg_ep_write(dev.fd, h_in, x->buf, XFER, 0) :
			 rg_ep_read(dev.fd, h_out, x->buf, XFER);
	x->done = 1;
	return NULL;
}

/* The host moves XFER bytes over usbfs while the gadget does its side. */
static int both_ways(int hfd, int in)
{
	static struct xfer x;
	static unsigned char host[XFER];
	struct usbdevfs_bulktransfer bt = {
		.ep = in ? USB_DIR_IN | 1 : 2, .len = XFER, .timeout = 5000,
		.data = host,
	};
	int i, ret;

	memset(&x, 0, sizeof(x));
	x.in = in;
	for (i = 0; i < XFER; i++)
		(in ? x.buf : host)[i] = i * 7 + in;
	pthread_create(&x.t, NULL, xfer_thread, &x);
	ret = ioctl(hfd, USBDEVFS_BULK, &bt);
	rg_test_wait_until(&x.done, 5);
	if (!x.done)
		pthread_kill(x.t, SIGUSR1);
	pthread_join(x.t, NULL);
	return ret == XFER && x.ret == XFER && !memcmp(x.buf, host, XFER);
}

/* EP_ENABLE_SS of what the caller set up: the handle, or -errno. */
static int enable_bad(struct usb_raw_mw57_ep_ss *arg)
{
	int ret = ioctl(dev.fd, USB_RAW_MW57_IOCTL_EP_ENABLE_SS, arg);

	return ret < 0 ? -errno : ret;
}

int main(void)
{
	struct usb_raw_mw57_ep_ss bad;
	struct usb_raw_mw57_info info;
	unsigned int intf = 0;
	pthread_t loop;
	char node[64];
	int kfd, hfd = -1, ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	rg_thread_setup();
	kfd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (kfd >= 0)
		lseek(kfd, 0, SEEK_END);
	ktap_header(PLAN);
	if (rg_device_start(&dev, "dummy_udc", "dummy_udc.0", USB_SPEED_SUPER))
		ktap_bail("cannot start the device on dummy_udc.0");
	pthread_create(&loop, NULL, loop_thread, NULL);
	ktap_result(rg_test_wait_until(&dev.configured, 30),
		    "the host enumerates and configures the device");
	ret = rg_info(dev.fd, &info);
	/* dummy_hcd keeps ep0's maxpacket as the exponent at SuperSpeed */
	ktap_result(!ret && info.speed == USB_SPEED_SUPER &&
		    info.max_speed == USB_SPEED_SUPER && info.ep0_maxpacket == 9,
		    "mw57 INFO: speed %u, max_speed %u, ep0 maxpacket %u (want 5, 5, 9)",
		    info.speed, info.max_speed, info.ep0_maxpacket);
	ktap_result(h_in >= 0 && h_out >= 0,
		    "EP_ENABLE_SS of bulk IN and OUT with their companions (handles %d, %d)",
		    h_in, h_out);
	ktap_result(kfd >= 0 && rg_test_kmsg_wait(kfd,
		    "enabled ep1in-bulk (ep1in-bulk) maxpacket 1024 stream enabled", 5),
		    "dummy_hcd enabled ep1in-bulk with the companion's streams");
	ktap_result(kfd >= 0 && rg_test_kmsg_wait(kfd,
		    "enabled ep2out-bulk (ep2out-bulk) maxpacket 1024 stream enabled", 5),
		    "dummy_hcd enabled ep2out-bulk with the companion's streams");

	if (rg_test_host_node(VID, PID, node, sizeof(node)))
		hfd = open(node, O_RDWR);
	if (hfd < 0 || ioctl(hfd, USBDEVFS_CLAIMINTERFACE, &intf))
		ktap_bail("cannot claim the host side's interface 0");
	ktap_result(both_ways(hfd, 0), "%d bytes OUT at SuperSpeed, intact", XFER);
	ktap_result(both_ways(hfd, 1), "%d bytes IN at SuperSpeed, intact", XFER);
	close(hfd);

	memset(&bad, 0, sizeof(bad));
	bad.desc = (struct usb_endpoint_descriptor){
		.bLength = USB_DT_ENDPOINT_SIZE,
		.bDescriptorType = USB_DT_ENDPOINT,
		.bEndpointAddress = USB_DIR_IN | 5,
		.bmAttributes = USB_ENDPOINT_XFER_INT,
		.wMaxPacketSize = htole16(1024), .bInterval = 4,
	};
	bad.comp = (struct usb_ss_ep_comp_descriptor)SS_COMP;
	bad.comp.bmAttributes = 0;
	bad.comp.bDescriptorType = USB_DT_ENDPOINT;
	ktap_result(enable_bad(&bad) == -EINVAL,
		    "EP_ENABLE_SS with a companion of the wrong type: EINVAL");
	bad.comp.bDescriptorType = USB_DT_SS_ENDPOINT_COMP;
	bad.comp.bMaxBurst = 16;
	ktap_result(enable_bad(&bad) == -EINVAL,
		    "EP_ENABLE_SS with bMaxBurst 16: EINVAL");
	bad.comp.bMaxBurst = 0;
	bad.comp.bmAttributes = 4;
	ktap_result(enable_bad(&bad) == -EINVAL,
		    "EP_ENABLE_SS of an interrupt endpoint with streams: EINVAL");
	bad.comp.bmAttributes = 0;
	bad.reserved = 1;
	ktap_result(enable_bad(&bad) == -EINVAL,
		    "EP_ENABLE_SS with the reserved byte set: EINVAL");
	bad.reserved = 0;
	ret = enable_bad(&bad);
	ktap_result(ret >= 0,
		    "EP_ENABLE_SS of the interrupt endpoint, fixed: a handle (%d)",
		    ret);
	rg_device_stop(&dev);
	pthread_join(loop, NULL);
	close(dev.fd);
	return ktap_finish();
}
