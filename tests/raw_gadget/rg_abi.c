// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The mw57 authors. */
/*
 * rg_abi: the errno contract of /dev/raw-gadget (upstream ABI) and of our
 * extensions, on dummy_hcd (num=2).  TAP 13 on stdout.
 *
 *   rg_abi [UDC0 [UDC1]]     default dummy_udc.0 and dummy_udc.1
 *
 * UDC0 carries a vendor device (bulk IN 0x81, bulk OUT 0x02, int IN 0x85)
 * that enumerates on the host; UDC1 takes racing RUNs, then is left
 * unanswered to overflow the event queue.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <linux/usbdevice_fs.h>

#include <mw57/rawgadget.h>
#include "../lib/ktap.h"
#include "../lib/rg_test.h"
#include "../lib/rg_vendor.h"

#define PLAN		95
#define ROUNDS		10	/* of part_concurrent_run() */
#define KMALLOC_MAX	(4u << 20)	/* KMALLOC_MAX_SIZE on amd64 */
#define EP_BULK_IN	0
#define EP_BULK_OUT	1
#define EP_INT_IN	2

static const char *udc0 = "dummy_udc.0", *udc1 = "dummy_udc.1";

/* --- the enumerating device ------------------------------------------------ */

static const char *const strings[] = { "mw57 abi test", NULL };
static int handles[3] = { -1, -1, -1 };
static int n_eps;	/* from EPS_INFO */

/* Endpoints are enabled once and stay enabled across resets. */
static int abi_configure(struct rg_device *d)
{
	struct usb_endpoint_descriptor e;
	int i;

	for (i = 0; i < 3; i++) {
		if (handles[i] >= 0)
			continue;
		rg_ep_desc(&e, &cfg_desc.e[i]);
		handles[i] = rg_ep_enable(d->fd, &e);
		if (handles[i] < 0)
			return handles[i];
	}
	return 0;
}

static const struct rg_device_ops abi_ops = { .configure = abi_configure };

static struct rg_device dev = {
	.device = &dev_desc, .config = &cfg_desc,
	.config_len = sizeof(cfg_desc), .strings = strings, .ops = &abi_ops,
};

static void *loop_thread(void *arg)
{
	(void)arg;
	rg_device_loop(&dev);
	return NULL;
}

/* --- helpers -------------------------------------------------------------- */

static int expect(int ret, int want, const char *desc)
{
	int ok = want ? ret == -want : ret == 0;

	return ktap_result(ok, "%s: %s (got %d %s)", desc,
			   want ? strerrorname_np(want) : "success", ret,
			   ret < 0 ? strerrorname_np(-ret) : "");
}

static int open_init(const char *udc, int speed)
{
	int fd = rg_open();

	if (fd < 0 || rg_init(fd, "dummy_udc", udc, speed))
		ktap_bail("cannot open and INIT /dev/raw-gadget");
	return fd;
}

struct blocked_io {
	int fd, handle, ret;
	volatile int done;
	pthread_t t;
};

static void *read_thread(void *arg)
{
	struct blocked_io *b = arg;
	char buf[512];

	b->ret = rg_ep_read(b->fd, b->handle, buf, sizeof(buf));
	b->done = 1;
	return NULL;
}

static void *write_thread(void *arg)
{
	struct blocked_io *b = arg;

	b->ret = rg_ep_write(b->fd, b->handle, "x", 1, 0);
	b->done = 1;
	return NULL;
}

static void start_read(struct blocked_io *b, int fd, int handle)
{
	b->fd = fd;
	b->handle = handle;
	b->done = 0;
	pthread_create(&b->t, NULL, read_thread, b);
	usleep(200000);	/* give it time to block; checked through done */
}

struct blocked_poll {
	int fd, ret;
	short revents;
	pid_t tid;
	volatile int done;
	pthread_t t;
};

static void *poll_thread(void *arg)
{
	struct blocked_poll *b = arg;
	struct pollfd p = { .fd = b->fd, .events = POLLIN };

	b->tid = gettid();
	b->ret = poll(&p, 1, -1);	/* no timeout: only a wake ends it */
	b->revents = p.revents;
	b->done = 1;
	return NULL;
}

/* A thread blocked in poll() on @fd, seen asleep; SIGUSR1 ends it (EINTR). */
static void start_poll(struct blocked_poll *b, int fd)
{
	int i;

	b->fd = fd;
	b->tid = 0;
	b->done = 0;
	pthread_create(&b->t, NULL, poll_thread, b);
	for (i = 0; i < 500 && !b->done &&
	     !(b->tid && rg_test_thread_sleeps(b->tid)); i++)
		usleep(10000);
}

/*
 * EVENT_FETCH that SIGALRM (rg_test_alarm_setup(), from main()) ends
 * with EINTR after @seconds: with the reference module, which has no poll
 * handler, poll() always says ready and cannot guard a fetch.
 */
static int fetch_within(int fd, struct usb_raw_event *ev, __u32 len,
			unsigned int seconds)
{
	int ret;

	alarm(seconds);
	ret = rg_event_fetch(fd, ev, len);
	alarm(0);
	return ret;
}


/* The host's bulk IN read from 0x81 through usbfs: bytes, or -errno. */
static int host_bulk_in(int hfd)
{
	char buf[512];
	struct usbdevfs_bulktransfer bt = {
		.ep = USB_DIR_IN | 1, .len = sizeof(buf), .timeout = 2000,
		.data = buf,
	};
	int ret = ioctl(hfd, USBDEVFS_BULK, &bt);

	return ret < 0 ? -errno : ret;
}

/* The gadget sends one byte on bulk IN while the host reads it. */
static int host_reads_a_byte(int hfd, int fd)
{
	struct blocked_io b = { .fd = fd, .handle = handles[EP_BULK_IN] };
	int ret;

	pthread_create(&b.t, NULL, write_thread, &b);
	ret = host_bulk_in(hfd);
	rg_test_wait_until(&b.done, 5);
	if (!b.done)
		pthread_kill(b.t, SIGUSR1);
	pthread_join(b.t, NULL);
	return ret == 1 && b.ret == 1;
}

/*
 * Halts and stalls as the host sees them, through usbfs: a halted bulk IN
 * endpoint fails the host's read with EPIPE, a wedged one stays halted
 * after the host's CLEAR_FEATURE(ENDPOINT_HALT), and a request the device
 * loop stalls (EP0_STALL) fails the host's control transfer with EPIPE.
 */
static void part_halts(int fd)
{
	unsigned char buf[8];
	struct usbdevfs_ctrltransfer vendor = {
		.bRequestType = USB_DIR_IN | USB_TYPE_VENDOR, .bRequest = 0x42,
		.wLength = sizeof(buf), .timeout = 2000, .data = buf,
	};
	unsigned int ep = USB_DIR_IN | 1, intf = 0;
	char node[64];
	int hfd = -1;

	ktap_msg("-- halts, seen from the host --");
	if (rg_test_host_node(VID, PID, node, sizeof(node)))
		hfd = open(node, O_RDWR);
	if (hfd < 0 || ioctl(hfd, USBDEVFS_CLAIMINTERFACE, &intf))
		ktap_bail("cannot claim the host side's interface 0");
	expect(rg_ep_set_halt(fd, handles[EP_BULK_IN]), 0, "SET_HALT");
	expect(host_bulk_in(hfd), EPIPE, "SET_HALT: the host's bulk IN read");
	expect(rg_ep_clear_halt(fd, handles[EP_BULK_IN]), 0, "CLEAR_HALT");
	ktap_result(host_reads_a_byte(hfd, fd),
		    "CLEAR_HALT: the host reads the next transfer");
	expect(rg_ep_set_wedge(fd, handles[EP_BULK_IN]), 0, "SET_WEDGE");
	expect(host_bulk_in(hfd), EPIPE, "SET_WEDGE: the host's bulk IN read");
	expect(ioctl(hfd, USBDEVFS_CLEAR_HALT, &ep) ? -errno : 0, 0,
	       "the host's CLEAR_FEATURE(ENDPOINT_HALT) on the wedged endpoint");
	expect(host_bulk_in(hfd), EPIPE,
	       "the wedged endpoint stays halted: the host's bulk IN read");
	expect(rg_ep_clear_halt(fd, handles[EP_BULK_IN]), 0,
	       "CLEAR_HALT of a wedge");
	ktap_result(host_reads_a_byte(hfd, fd),
		    "CLEAR_HALT of a wedge: the host reads the next transfer");
	expect(ioctl(hfd, USBDEVFS_CONTROL, &vendor) < 0 ? -errno : 0, EPIPE,
	       "EP0_STALL (an unknown vendor request): the host's control transfer");
	ioctl(hfd, USBDEVFS_RELEASEINTERFACE, &intf);
	close(hfd);
}

static int kmsg_fd = -1;	/* /dev/kmsg from the start of the run on */

/*
 * The module says why an ioctl failed (dev_dbg; abi.sh turns on its
 * dynamic debug): @text is logged after what the last check found.  The
 * ioctl logged it before it returned, so nothing is waited for: a wait
 * would shift the timing of the checks that follow (with the reference
 * module, which logs none of these, the host's first request would
 * arrive before "EP0_WRITE with nothing pending").
 */
static void said(const char *text)
{
	ktap_result(kmsg_fd >= 0 && rg_test_kmsg_wait(kmsg_fd, text, 0),
		    "the log says why: \"%s\"", text);
}

/* --- parts ---------------------------------------------------------------- */

static void part_no_udc(void)
{
	struct usb_raw_init init;
	int fd;

	ktap_msg("-- without a UDC --");
	fd = open("/dev/raw-gadget", O_RDWR | O_NONBLOCK);
	expect(fd < 0 ? -errno : 0, 0, "open O_NONBLOCK");
	if (fd >= 0)
		close(fd);

	fd = rg_open();
	if (fd < 0)
		ktap_bail("cannot open /dev/raw-gadget");
	expect(ioctl(fd, _IOW('U', 16, __u32[3]), (__u32[3]){ 0 }) ? -errno : 0,
	       EINVAL, "'U' 16 (abandoned SET_TIMEOUT)");
	expect(ioctl(fd, _IO('U', 99), 0) ? -errno : 0, EINVAL, "'U' 99");
	expect(ioctl(fd, _IO(USB_RAW_MW57_IOCTL_MAGIC, 7), 0) ? -errno : 0,
	       EINVAL, "unknown mw57 ioctl");
	expect(rg_run(fd), EINVAL, "RUN before INIT");
	expect(rg_eps_info(fd, &(struct usb_raw_eps_info){ 0 }), EINVAL,
	       "EPS_INFO before INIT");
	expect(rg_info(fd, &(struct usb_raw_mw57_info){ 0 }), EINVAL,
	       "mw57 INFO before RUN");
	expect(lseek(fd, 0, SEEK_SET) < 0 ? -errno : 0, ESPIPE, "lseek");
	expect(rg_init(fd, "dummy_udc", udc0, 4), EINVAL, "INIT speed WIRELESS");
	said("INIT: speed 4 is not one of 0-3 or 5");
	expect(rg_init(fd, "dummy_udc", udc0, 6), EINVAL, "INIT speed SUPER_PLUS");
	memset(&init, 'x', sizeof(init));
	init.speed = USB_SPEED_HIGH;
	expect(ioctl(fd, USB_RAW_IOCTL_INIT, &init) ? -errno : 0, E2BIG,
	       "INIT with unterminated names");
	expect(rg_init(fd, "dummy_udc", udc0, USB_SPEED_HIGH), 0, "INIT");
	expect(rg_init(fd, "dummy_udc", udc0, USB_SPEED_HIGH), EINVAL,
	       "INIT twice");
	expect(ioctl(fd, USB_RAW_IOCTL_RUN, 1) ? -errno : 0, EINVAL,
	       "RUN with value 1");
	{
		struct pollfd p = { .fd = fd, .events = POLLIN };

		expect(poll(&p, 1, 0), 0, "poll before RUN: nothing ready");
		ktap_result(p.revents == 0, "poll before RUN: revents 0 (%#x)",
			    p.revents);
	}
	close(fd);

	/*
	 * The gadget core answers EBUSY ("couldn't find an available UDC or
	 * it's busy") for every match_existing_only failure since the gadget
	 * bus (5.19), and RUN returns the core's error, as upstream does.
	 */
	fd = open_init("dummy_udc.99", USB_SPEED_HIGH);
	{
		struct blocked_poll bp;
		int woken;

		/*
		 * The failed RUN fails the instance: a poller wakes on it.
		 * Any later wake-up (the kick below) also finds POLLERR, so
		 * what counts is that it returned before the kick.
		 */
		start_poll(&bp, fd);
		expect(rg_run(fd), EBUSY, "RUN on a missing UDC device");
		woken = rg_test_wait_until(&bp.done, 10);
		if (!woken)
			pthread_kill(bp.t, SIGUSR1);
		pthread_join(bp.t, NULL);
		ktap_result(woken && bp.ret == 1 && (bp.revents & POLLERR),
			    "a poller blocked before the failed RUN wakes with POLLERR (%s, poll %d, revents %#x)",
			    woken ? "woken" : "not woken in 10 s", bp.ret, bp.revents);
	}
	expect(rg_eps_info(fd, &(struct usb_raw_eps_info){ 0 }), EINVAL,
	       "after a failed RUN, EPS_INFO");
	close(fd);
	fd = rg_open();
	rg_init(fd, "no_such_udc", udc0, USB_SPEED_HIGH);
	expect(rg_run(fd), EBUSY, "RUN with a wrong UDC driver name");
	close(fd);
}

static void check_eps_info(int fd)
{
	/*
	 * dummy_hcd's table as built by Debian 6.1 and 6.12: its six iso
	 * endpoints are commented out in the source, so 24, not 30.
	 */
	static const char *const names[] = {
		"ep1in-bulk", "ep2out-bulk", "ep5in-int", "ep6in-bulk",
		"ep7out-bulk", "ep10in-int", "ep11in-bulk", "ep12out-bulk",
		"ep15in-int", "ep1out-bulk", "ep2in-bulk", "ep-aout", "ep-bin",
		"ep-cout", "ep-dout", "ep-ein", "ep-fout", "ep-gin", "ep-hout",
		"ep-iout", "ep-jin", "ep-kout", "ep-lin", "ep-mout",
	};
	const int want = sizeof(names) / sizeof(names[0]);
	struct usb_raw_eps_info info;
	int n, i, bad = 0;

	memset(&info, 0x5a, sizeof(info));
	n = rg_eps_info(fd, &info);
	n_eps = n;
	ktap_result(n == want, "EPS_INFO: %d endpoints (got %d)", want, n);
	for (i = n; i < USB_RAW_EPS_NUM_MAX && n >= 0; i++)
		bad += info.eps[i].name[0] != 0 || info.eps[i].addr != 0;
	for (i = 0; i < n && n == want; i++) {
		struct usb_raw_ep_info *e = &info.eps[i];
		const char *nm = (const char *)e->name;
		unsigned int num = 0xff;
		int in = strstr(nm, "in") != NULL;

		sscanf(nm, "ep%u", &num);
		if (strcmp(nm, names[i]) || e->addr != num ||
		    e->caps.type_control || e->caps.dir_in != in ||
		    e->caps.dir_out != !in || !e->limits.maxpacket_limit ||
		    e->limits.reserved ||
		    (strstr(nm, "-bulk") && (!e->caps.type_bulk || e->caps.type_iso)) ||
		    (strstr(nm, "-iso") && !e->caps.type_iso) ||
		    (strstr(nm, "-int") && !e->caps.type_int)) {
			__u32 caps;

			memcpy(&caps, &e->caps, sizeof(caps));
			ktap_msg("eps[%d]: %s addr %#x caps %#x limit %u",
				 i, nm, e->addr, caps, e->limits.maxpacket_limit);
			bad++;
		}
	}
	ktap_result(n == want && !bad,
		    "EPS_INFO: names, addr (0xff for ep-X), caps, limits; the rest zeroed");
}

/* ep0 rules while the host waits on its first control request. */
static void part_ep0(int fd)
{
	struct {
		struct usb_raw_event ev;
		unsigned char data[8];
	} e;
	struct usb_raw_ep_io io = { 0 };
	int i, ret;

	ktap_msg("-- ep0, before enumeration --");
	/* skip RESET and friends, truncate the first CONTROL to 4 bytes */
	for (i = 0; i < 20; i++) {
		memset(e.data, 0xaa, sizeof(e.data));
		ret = rg_event_fetch(fd, &e.ev, 4);
		if (ret || e.ev.type == USB_RAW_EVENT_CONTROL)
			break;
	}
	ktap_result(!ret && e.ev.type == USB_RAW_EVENT_CONTROL &&
		    e.ev.length == 8 && e.data[4] == 0xaa && e.data[3] != 0xaa,
		    "EVENT_FETCH into 4 bytes: length says 8, 4 bytes copied");
	ktap_msg("first request: bRequestType %#x bRequest %#x", e.data[0],
		 e.data[1]);
	expect(rg_ep0_read(fd, NULL, 0), EBUSY,
	       "EP0_READ answering an IN request (GET_DESCRIPTOR)");
	io.length = KMALLOC_MAX + 1;
	expect(ioctl(fd, USB_RAW_IOCTL_EP0_WRITE, &io) ? -errno : 0, EINVAL,
	       "EP0_WRITE length KMALLOC_MAX_SIZE + 1");
	io.length = 0xffffffff;
	expect(ioctl(fd, USB_RAW_IOCTL_EP0_READ, &io) ? -errno : 0, EINVAL,
	       "EP0_READ length 0xffffffff");
	io.length = 0;
	io.ep = USB_RAW_EPS_NUM_MAX;
	expect(ioctl(fd, USB_RAW_IOCTL_EP0_READ, &io) ? -errno : 0, EINVAL,
	       "EP0_READ with ep 30");
	io.ep = 0;
	io.flags = 2;
	expect(ioctl(fd, USB_RAW_IOCTL_EP0_READ, &io) ? -errno : 0, EINVAL,
	       "EP0_READ with unknown flag 2");
	expect(ioctl(fd, USB_RAW_IOCTL_EP0_STALL, 1) ? -errno : 0, EINVAL,
	       "EP0_STALL with value 1");
	expect(rg_ep0_stall(fd), 0, "EP0_STALL of the pending request");
}

static void part_endpoints(int fd)
{
	struct usb_endpoint_descriptor d = {
		.bLength = USB_DT_ENDPOINT_SIZE,
		.bDescriptorType = USB_DT_ENDPOINT,
		.bEndpointAddress = USB_DIR_IN | 5,
		.bmAttributes = USB_ENDPOINT_XFER_INT,
		.wMaxPacketSize = 64, .bInterval = 4,
	};
	struct usb_raw_ep_io io = { 0 };
	struct blocked_io b;
	int got[32], n = 0, ret, i;
	char node[64];

	ktap_msg("-- endpoints, enumerated --");
	/* int IN: ep5in-int and every configurable IN endpoint match */
	while (n < 32 && (ret = rg_ep_enable(fd, &d)) >= 0)
		got[n++] = ret;
	ktap_result(ret == -EBUSY && n >= 2,
		    "EP_ENABLE the same descriptor until all matches are busy: EBUSY after %d", n);
	for (i = 0, ret = 0; i < n; i++)
		ret |= rg_ep_disable(fd, got[i]);
	expect(ret, 0, "EP_DISABLE every one of them");
	expect(rg_ep_disable(fd, got[0]), EINVAL, "EP_DISABLE twice");
	expect(rg_ep_disable(fd, 99), EBUSY, "EP_DISABLE handle 99 (sic)");
	d.wMaxPacketSize = 0;
	expect(rg_ep_enable(fd, &d), EINVAL, "EP_ENABLE wMaxPacketSize 0");
	d.wMaxPacketSize = 2047;
	expect(rg_ep_enable(fd, &d), EINVAL,
	       "EP_ENABLE wMaxPacketSize 2047 (the UDC refuses it)");
	said("the UDC refused the descriptor: -22");
	d.wMaxPacketSize = 64;
	expect(rg_ep_enable_ss(fd, &d, &(struct usb_ss_ep_comp_descriptor)
			       RG_SS_COMP_DESC()), EINVAL,
	       "EP_ENABLE_SS on a high-speed connection");
	said("EP_ENABLE_SS: the connection is not SuperSpeed");

	expect(ioctl(fd, USB_RAW_IOCTL_CONFIGURE, 1) ? -errno : 0, EINVAL,
	       "CONFIGURE with value 1");
	expect(rg_configure(fd), 0, "CONFIGURE");

	expect(rg_ep_write(fd, handles[EP_BULK_OUT], "x", 1, 0), EINVAL,
	       "EP_WRITE on an OUT endpoint");
	said("EP_WRITE: handle 1 is an OUT endpoint");
	expect(rg_ep_read(fd, handles[EP_BULK_IN], node, 1), EINVAL,
	       "EP_READ on an IN endpoint");
	expect(rg_ep_write(fd, n_eps - 1, "x", 1, 0), EBUSY,
	       "EP_WRITE on a handle that is not enabled");
	expect(rg_ep_write(fd, n_eps, "x", 1, 0), EINVAL,
	       "EP_WRITE on handle = number of endpoints");
	io.ep = handles[EP_BULK_IN];
	io.length = KMALLOC_MAX + 1;
	expect(ioctl(fd, USB_RAW_IOCTL_EP_WRITE, &io) ? -errno : 0, EINVAL,
	       "EP_WRITE length KMALLOC_MAX_SIZE + 1");
	io.length = 1;
	io.flags = 0x8000;
	expect(ioctl(fd, USB_RAW_IOCTL_EP_WRITE, &io) ? -errno : 0, EINVAL,
	       "EP_WRITE with an unknown flag");

	/* halts */
	part_halts(fd);
	expect(rg_ep_set_halt(fd, 99), EBUSY, "SET_HALT handle 99 (sic)");
	expect(rg_ep_set_halt(fd, n_eps - 1), EINVAL,
	       "SET_HALT on a disabled endpoint");
	/* no iso endpoint on dummy_udc: halt-on-iso cannot be reached here */
	d.bEndpointAddress = USB_DIR_IN | 3;
	d.bmAttributes = USB_ENDPOINT_XFER_ISOC;
	d.wMaxPacketSize = 1024;
	d.bInterval = 1;
	expect(rg_ep_enable(fd, &d), EINVAL,
	       "EP_ENABLE of an iso descriptor (dummy_udc has no iso endpoint)");

	/* a transfer in flight blocks disable and halt; a signal ends it */
	start_read(&b, fd, handles[EP_BULK_OUT]);
	ktap_result(!b.done, "EP_READ with no host data blocks");
	expect(rg_ep_disable(fd, handles[EP_BULK_OUT]), EINVAL,
	       "EP_DISABLE while a transfer is in flight");
	expect(rg_ep_set_halt(fd, handles[EP_BULK_OUT]), EINVAL,
	       "SET_HALT while a transfer is in flight");
	expect(rg_ep_read(fd, handles[EP_BULK_OUT], node, 1), EBUSY,
	       "a second EP_READ on the same endpoint");
	pthread_kill(b.t, SIGUSR1);
	pthread_join(b.t, NULL);
	expect(b.ret, EINTR, "SIGUSR1 interrupts the blocked EP_READ");
	expect(rg_ep_disable(fd, handles[EP_BULK_OUT]), 0,
	       "EP_DISABLE after the interrupted transfer");
	d = (struct usb_endpoint_descriptor){ 0 };
	rg_ep_desc(&d, &cfg_desc.e[EP_BULK_OUT]);
	ret = rg_ep_enable(fd, &d);
	ktap_result(ret == handles[EP_BULK_OUT],
		    "EP_ENABLE it again: the same handle %d (got %d)",
		    handles[EP_BULK_OUT], ret);
	handles[EP_BULK_OUT] = ret;

	/* a port reset ends transfers in flight with ESHUTDOWN */
	start_read(&b, fd, handles[EP_BULK_OUT]);
	ret = rg_test_host_node(VID, PID, node, sizeof(node));
	if (ret) {
		int hfd = open(node, O_WRONLY);

		ret = hfd >= 0 && !ioctl(hfd, USBDEVFS_RESET, 0);
		if (hfd >= 0)
			close(hfd);
	}
	rg_test_wait_until(&b.done, 10);
	if (!b.done)
		pthread_kill(b.t, SIGUSR1);
	pthread_join(b.t, NULL);
	ktap_result(ret && b.ret == -ESHUTDOWN,
		    "USBDEVFS_RESET on %s: the blocked EP_READ gets ESHUTDOWN (got %d)",
		    node, b.ret);
}

static void part_running(void)
{
	struct usb_raw_mw57_info info;
	struct {
		struct usb_raw_event ev;
		unsigned char data[8];
	} e;
	struct pollfd p;
	pthread_t loop;
	int fd;

	ktap_msg("-- running on %s --", udc0);
	fd = open_init(udc0, USB_SPEED_HIGH);
	expect(rg_run(fd), 0, "RUN");
	expect(rg_run(fd), EINVAL, "RUN twice");
	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	ktap_result(poll(&p, 1, 5000) == 1 && (p.revents & POLLIN),
		    "poll: POLLIN once CONNECT is queued (revents %#x)", p.revents);
	e.ev.length = 8;
	expect(rg_event_fetch(fd, &e.ev, 8), 0, "EVENT_FETCH");
	ktap_result(e.ev.type == USB_RAW_EVENT_CONNECT && e.ev.length == 0,
		    "first event: CONNECT, length 0 (type %u length %u)",
		    e.ev.type, e.ev.length);
	/*
	 * Nothing is pending yet: the hub debounces a new connection for at
	 * least 100 ms before the first setup.  (After a stall the host
	 * retries at once, so these cannot be checked later.)
	 */
	expect(rg_ep0_stall(fd), EBUSY, "EP0_STALL with nothing pending");
	said("EP0_STALL: no control request is pending");
	expect(rg_ep0_write(fd, "x", 1), EBUSY, "EP0_WRITE with nothing pending");
	check_eps_info(fd);
	part_ep0(fd);

	dev.fd = fd;
	pthread_create(&loop, NULL, loop_thread, NULL);
	ktap_result(rg_test_wait_until(&dev.configured, 30),
		    "the host enumerates and configures the device");
	expect(rg_info(fd, &info), 0, "mw57 INFO once connected");
	ktap_result(info.speed == USB_SPEED_HIGH &&
		    info.max_speed == USB_SPEED_HIGH && info.ep0_maxpacket == 64,
		    "mw57 INFO: high speed, at most high speed, ep0 maxpacket 64 (got %u, %u, %u)",
		    info.speed, info.max_speed, info.ep0_maxpacket);
	part_endpoints(fd);

	rg_device_stop(&dev);
	pthread_join(loop, NULL);
	close(fd);
}

/*
 * The queue is empty and the host waits 5 s for an answer: O_NONBLOCK,
 * set by fcntl, makes EVENT_FETCH EAGAIN at once (an alarm ends a fetch
 * that blocks instead).  poll() says writable, as upstream's default mask.
 */
static void nonblocking_fetch(int fd)
{
	struct usb_raw_event ev = { 0 };
	struct pollfd p = { .fd = fd, .events = POLLOUT };

	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	expect(fetch_within(fd, &ev, 0, 3), EAGAIN,
	       "EVENT_FETCH, O_NONBLOCK, nothing queued");
	ktap_result(poll(&p, 1, 0) == 1 && p.revents == POLLOUT,
		    "poll: POLLOUT always (revents %#x)", p.revents);
}

/*
 * The first event (CONNECT, queued at RUN by ours and by the reference)
 * fetched into a page the process cannot write: EFAULT, not a count of
 * bytes (raw_gadget.md §4, class 2).  The event is lost, which only
 * shortens the event sequence that part_reset_drops_control() reads.
 */
static void fetch_efault(int fd)
{
	void *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int ret;

	if (ro == MAP_FAILED)
		ktap_bail("cannot mmap a read-only page");
	alarm(30);
	ret = ioctl(fd, USB_RAW_IOCTL_EVENT_FETCH, ro);
	if (ret < 0)
		ret = -errno;
	alarm(0);
	expect(ret, EFAULT, "EVENT_FETCH into a read-only page");
	munmap(ro, 4096);
}

/*
 * Nobody fetches until the host has given up on its first GET_DESCRIPTOR
 * (5 s) and reset the port: the reset must drop the unfetched CONTROL
 * event, which an answer would otherwise misdirect to the next request.
 */
static void part_reset_drops_control(void)
{
	static const char names[] = "?NCSURD";	/* event types 1-6 */
	struct {
		struct usb_raw_event ev;
		unsigned char data[8];
	} e;
	char seq[32] = "";
	const char *c;
	struct pollfd p;
	int fd, kfd, n = 0;

	ktap_msg("-- a port reset drops the unfetched control request, %s --",
		 udc1);
	kfd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (kfd < 0 || lseek(kfd, 0, SEEK_END) < 0)
		ktap_bail("cannot read /dev/kmsg");
	fd = open_init(udc1, USB_SPEED_HIGH);
	expect(rg_run(fd), 0, "RUN, then no EVENT_FETCH until a port reset");
	fetch_efault(fd);
	ktap_result(rg_test_kmsg_wait(kfd, "device descriptor read/64, error -110", 30),
		    "the host times out on GET_DESCRIPTOR and resets the port");
	close(kfd);
	/*
	 * Fetch what is queued, then the request the host sends 100 ms
	 * after the reset; stop at a CONTROL with nothing queued behind it.
	 */
	while (n < (int)sizeof(seq) - 1) {
		p = (struct pollfd){ .fd = fd, .events = POLLIN };
		if (poll(&p, 1, n && seq[n - 1] == 'C' ? 0 : 5000) != 1)
			break;
		e.ev.length = sizeof(e.data);
		if (fetch_within(fd, &e.ev, sizeof(e.data), 5))
			break;
		seq[n++] = e.ev.type < sizeof(names) - 1 ? names[e.ev.type] : 'X';
	}
	c = strchr(seq, 'C');
	ktap_result(!c || !strpbrk(c, "RD"),
		    "no unfetched CONTROL survives a RESET or DISCONNECT (events %s)",
		    seq);
	ktap_result(n && seq[n - 1] == 'C' && strchr(seq, 'R'),
		    "the request the host sends after the reset is queued (events %s)",
		    seq);
	nonblocking_fetch(fd);
	close(fd);
}

struct run_race {
	int fd, ret;
	pthread_barrier_t *start;
	pthread_t t;
};

static void *run_thread(void *arg)
{
	struct run_race *r = arg;

	pthread_barrier_wait(r->start);
	r->ret = rg_run(r->fd);
	return NULL;
}

/*
 * Two threads RUN one file at once (raw_gadget.md §4, class 6: upstream
 * once registered the driver twice).  They leave a barrier together and
 * registering takes milliseconds, so a RUN that claims the file only
 * once registered lets both through: the second registration fails with
 * EBUSY and takes the instance down.  Exactly one RUN succeeds, the other
 * gets EINVAL, and the instance runs (CONNECT is queued); ten rounds,
 * each on a new file.
 */
static void part_concurrent_run(void)
{
	int round, i, fd, ok = 0, einval = 0, other = 0, connected = 0;
	struct usb_raw_event ev;
	struct run_race r[2];
	pthread_barrier_t start;

	ktap_msg("-- two RUNs at once on one file, %s --", udc1);
	for (round = 0; round < ROUNDS; round++) {
		fd = open_init(udc1, USB_SPEED_HIGH);
		pthread_barrier_init(&start, NULL, 2);
		for (i = 0; i < 2; i++) {
			r[i] = (struct run_race){ .fd = fd, .start = &start };
			pthread_create(&r[i].t, NULL, run_thread, &r[i]);
		}
		for (i = 0; i < 2; i++) {
			pthread_join(r[i].t, NULL);
			if (r[i].ret == 0)
				ok++;
			else if (r[i].ret == -EINVAL)
				einval++;
			else
				other++;
		}
		pthread_barrier_destroy(&start);
		ev.length = 0;
		if (!fetch_within(fd, &ev, 0, 5) &&
		    ev.type == USB_RAW_EVENT_CONNECT)
			connected++;
		close(fd);
	}
	ktap_result(ok == ROUNDS && einval == ROUNDS && !other,
		    "%d rounds: one RUN succeeds, the other gets EINVAL (%d successes, %d EINVAL, %d other errors)",
		    ROUNDS, ok, einval, other);
	ktap_result(connected == ROUNDS,
		    "the instance runs: CONNECT fetched in %d of %d rounds",
		    connected, ROUNDS);
}

/* Nobody fetches: resets and control requests pile up past 16 events. */
static void part_overflow(void)
{
	struct usb_raw_eps_info info;
	struct pollfd p;
	int fd, i, ret = 0;

	ktap_msg("-- event queue overflow on %s --", udc1);
	fd = open_init(udc1, USB_SPEED_HIGH);
	expect(rg_run(fd), 0, "RUN, then never EVENT_FETCH");
	for (i = 0; i < 600; i++) {
		ret = rg_eps_info(fd, &info);
		if (ret < 0)
			break;
		usleep(100000);
	}
	expect(ret, EINVAL, "the instance fails once the queue overflows");
	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	poll(&p, 1, 0);
	ktap_result(p.revents & POLLERR, "poll: POLLERR on the failed instance (%#x)",
		    p.revents);
	expect(rg_event_fetch(fd, &(struct usb_raw_event){ 0 }, 0), EINVAL,
	       "EVENT_FETCH on the failed instance");
	close(fd);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		udc0 = argv[1];
	if (argc > 2)
		udc1 = argv[2];
	rg_test_setup();
	kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (kmsg_fd >= 0)
		lseek(kmsg_fd, 0, SEEK_END);
	ktap_header(PLAN);
	part_no_udc();
	part_running();
	part_concurrent_run();
	part_reset_drops_control();
	part_overflow();
	if (ktap_n != PLAN)
		ktap_msg("plan %d, ran %d", PLAN, ktap_n);
	return ktap_finish();
}
