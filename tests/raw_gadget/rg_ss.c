// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The mw57 authors. */
/*
 * rg_ss: a SuperSpeed device through /dev/raw-gadget (superspeed.sh), on
 * dummy_hcd is_super_speed=1.  A vendor device (bcdUSB 3.0, ep0 512)
 * with bulk IN 0x81 and bulk OUT 0x02, 1024 bytes, each with a companion
 * (burst of 4, 16 streams) that EP_ENABLE_SS hands to the UDC.  The host
 * enumerates it at 5 Gb/s; data goes both ways through usbfs, then on
 * bulk streams the host allocates (EP_WRITE_STREAM, EP_READ_STREAM);
 * malformed companions are refused.  dummy_hcd's "enabled ... stream enabled" log
 * line (superspeed.sh turns it on) shows that the UDC got the companion.
 * TAP 13 on stdout.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
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

#define PLAN		21
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
#define SS_COMP RG_SS_COMP_DESC(.bMaxBurst = 3, .bmAttributes = 4)

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

/* A gadget stream transfer that an alarm ends after @secs (EINTR). */
static int gadget_stream(int in, unsigned int stream, void *buf, int len,
			 unsigned int secs)
{
	int ret;

	alarm(secs);
	ret = in ? rg_ep_write_stream(dev.fd, h_in, stream, buf, len, 0) :
		   rg_ep_read_stream(dev.fd, h_out, stream, buf, len);
	alarm(0);
	return ret;
}

/* The host's bulk URB on @stream, submitted through usbfs; or NULL. */
static struct usbdevfs_urb *host_submit(int hfd, int in, unsigned int stream,
					void *buf, int len)
{
	static struct usbdevfs_urb urbs[4];
	static int next;
	struct usbdevfs_urb *u = &urbs[next++ % 4];

	memset(u, 0, sizeof(*u));
	u->type = USBDEVFS_URB_TYPE_BULK;
	u->endpoint = in ? USB_DIR_IN | 1 : 2;
	u->buffer = buf;
	u->buffer_length = len;
	u->stream_id = stream;
	return ioctl(hfd, USBDEVFS_SUBMITURB, u) ? NULL : u;
}

/* A URB the host has got back within @ms, or NULL. */
static struct usbdevfs_urb *host_reap(int hfd, int ms)
{
	struct pollfd p = { .fd = hfd, .events = POLLOUT };
	void *u = NULL;

	if (poll(&p, 1, ms) == 1 && !ioctl(hfd, USBDEVFS_REAPURBNDELAY, &u))
		return u;
	return NULL;
}

/*
 * Bulk streams: the host allocates 4 streams on both endpoints and
 * queues an IN URB on stream 2; the gadget's stream-1 write does not
 * complete it (an alarm ends the write), its stream-2 write does.  Then
 * stream 1 the same way, and an OUT URB on stream 3 reaches the gadget's
 * stream-3 read.  (dummy_hcd looks only at the first URB queued on an
 * endpoint in each frame, so one URB at a time.)
 */
static void part_streams(int hfd)
{
	static unsigned char a[1024], b[1024], c[1024], got[3][1024];
	unsigned char st[sizeof(struct usbdevfs_streams) + 2];
	struct usbdevfs_streams *streams = (void *)st;
	struct usbdevfs_urb *u1, *u2, *u3, *r;

	memset(a, 'a', sizeof(a));
	memset(b, 'b', sizeof(b));
	memset(c, 'c', sizeof(c));
	streams->num_streams = 4;
	streams->num_eps = 2;
	streams->eps[0] = USB_DIR_IN | 1;
	streams->eps[1] = 2;
	ktap_result(ioctl(hfd, USBDEVFS_ALLOC_STREAMS, streams) == 4,
		    "the host allocates 4 streams on both bulk endpoints");
	u2 = host_submit(hfd, 1, 2, got[1], sizeof(got[1]));
	ktap_result(u2 && gadget_stream(1, 1, a, sizeof(a), 2) == -EINTR &&
		    !host_reap(hfd, 0),
		    "EP_WRITE_STREAM on stream 1 does not complete the host's stream-2 URB");
	ktap_result(gadget_stream(1, 2, b, sizeof(b), 5) == sizeof(b),
		    "EP_WRITE_STREAM on stream 2");
	r = host_reap(hfd, 5000);
	ktap_result(r == u2 && !r->status && r->actual_length == sizeof(b) &&
		    !memcmp(got[1], b, sizeof(b)),
		    "the host's stream-2 URB got it, intact");
	u1 = host_submit(hfd, 1, 1, got[0], sizeof(got[0]));
	ktap_result(u1 && gadget_stream(1, 1, a, sizeof(a), 5) == sizeof(a) &&
		    host_reap(hfd, 5000) == u1 && !memcmp(got[0], a, sizeof(a)),
		    "EP_WRITE_STREAM on stream 1 completes a stream-1 URB");
	u3 = host_submit(hfd, 0, 3, c, sizeof(c));
	ktap_result(u3 && gadget_stream(0, 3, got[2], sizeof(got[2]), 5) ==
		    sizeof(c) && host_reap(hfd, 5000) == u3 &&
		    !memcmp(got[2], c, sizeof(c)),
		    "a host OUT URB on stream 3 reaches EP_READ_STREAM on stream 3");
	ktap_result(gadget_stream(1, 17, a, 1, 5) == -EINVAL,
		    "EP_WRITE_STREAM on stream 17 of 16: EINVAL");
	ktap_result(gadget_stream(1, 0, a, 1, 5) == -EINVAL,
		    "EP_WRITE_STREAM on stream 0: EINVAL");
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

	rg_test_setup();
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
	part_streams(hfd);
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
	ktap_result(rg_ep_write_stream(dev.fd, ret, 1, "x", 1, 0) == -EINVAL,
		    "EP_WRITE_STREAM on an endpoint without streams: EINVAL");
	rg_device_stop(&dev);
	pthread_join(loop, NULL);
	close(dev.fd);
	return ktap_finish();
}
