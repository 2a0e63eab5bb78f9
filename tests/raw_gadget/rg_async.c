// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The mw57 authors. */
/*
 * rg_async: asynchronous requests (SUBMIT, REAP, CANCEL) on the vendor
 * device of rg_vendor.h, at high speed on dummy_udc.0 (async.sh).  The
 * host side is usbfs.  Round one: several requests in flight both ways,
 * each host transfer spread over them in order; cancelling one; the
 * blocking ioctls and the async ones kept apart; the per-endpoint depth
 * and the per-file byte budget; EP_DISABLE, a port reset and close()
 * ending what is in flight; O_NONBLOCK and poll(); requests in the
 * mmap()ed transfer area, which the UDC reads and fills in place (and
 * close() with such requests in flight).  Round two: the UDC
 * unbound under requests in flight.  TAP 13 on stdout.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/usbdevice_fs.h>

#include <mw57/rawgadget.h>
#include "../lib/ktap.h"
#include "../lib/rg_test.h"
#include "../lib/rg_vendor.h"

#define PLAN		50
#define UDC		"dummy_udc.0"
#define PLATFORM	"/sys/bus/platform/drivers/dummy_udc/"
#define CHUNK		4096
#define MANY		8
#define KMALLOC_MAX	(4u << 20)	/* KMALLOC_MAX_SIZE on amd64 */
#define BIG		(1u << 20)	/* fills the 32 MiB budget with 31 */
#define AREA		(256u << 10)	/* the transfer area in part_mapped() */

static const char *const strings[] = { "mw57 async test", NULL };
static int h_in = -1, h_out = -1;

static int async_configure(struct rg_device *d)
{
	return rg_vendor_enable_bulk(d->fd, &h_in, &h_out);
}

static const struct rg_device_ops async_ops = { .configure = async_configure };

static struct rg_device dev = {
	.device = &dev_desc, .config = &cfg_desc,
	.config_len = sizeof(cfg_desc), .strings = strings, .ops = &async_ops,
};

static pthread_t loop;
static int hfd = -1;

static void *loop_thread(void *arg)
{
	(void)arg;
	rg_device_loop(&dev);
	return NULL;
}

static const char *err(int ret)
{
	return ret < 0 ? strerrorname_np(-ret) : ret ? "?" : "0";
}

/* Start the instance, have the host configure it, claim its interface. */
static void start_round(void)
{
	unsigned int intf = 0;
	char node[64];

	h_in = h_out = -1;
	dev.stop = 0;
	dev.configured = 0;
	dev.loop_tid = 0;
	if (rg_device_start(&dev, "dummy_udc", UDC, USB_SPEED_HIGH))
		ktap_bail("cannot start the device on " UDC);
	pthread_create(&loop, NULL, loop_thread, NULL);
	ktap_result(rg_test_wait_until(&dev.configured, 30),
		    "the host enumerates and configures the device");
	hfd = -1;
	if (rg_test_host_node(VID, PID, node, sizeof(node)))
		hfd = open(node, O_RDWR);
	if (hfd < 0 || ioctl(hfd, USBDEVFS_CLAIMINTERFACE, &intf))
		ktap_bail("cannot claim the host side's interface 0");
}

static void stop_loop(void)
{
	rg_device_stop(&dev);
	pthread_join(loop, NULL);
}

/* A host bulk transfer through usbfs: bytes, or -errno. */
static int host_bulk(int in, void *buf, unsigned int len)
{
	struct usbdevfs_bulktransfer bt = {
		.ep = in ? USB_DIR_IN | 1 : 2, .len = len, .timeout = 5000,
		.data = buf,
	};
	int ret = ioctl(hfd, USBDEVFS_BULK, &bt);

	return ret < 0 ? -errno : ret;
}

/* REAP, ended by an alarm after @secs if it blocks: 0 or -errno. */
static int reap_within(struct usb_raw_mw57_completion *c, unsigned int secs)
{
	int ret;

	memset(c, 0xff, sizeof(*c));
	alarm(secs);
	ret = rg_reap(dev.fd, c);
	alarm(0);
	return ret;
}

/*
 * Reap @n completions: 1 if each has tag @tag0 + i (in that order unless
 * @any_order), endpoint handle @ep (unless -1), status @status and, for
 * status 0, @actual bytes.
 */
static int reap_n(int n, int ep, uint64_t tag0, int any_order, int status,
		  unsigned int actual)
{
	struct usb_raw_mw57_completion c;
	unsigned long long seen = 0;
	int i, ok = 1;

	for (i = 0; i < n; i++) {
		if (reap_within(&c, 5)) {
			ktap_msg("completion %d of %d: none", i + 1, n);
			return 0;
		}
		if (any_order ? c.tag < tag0 || c.tag >= tag0 + n ||
				seen & 1ull << (c.tag - tag0) :
				c.tag != tag0 + i)
			ok = 0;
		else
			seen |= 1ull << (c.tag - tag0);
		if (c.status != status || (!status && c.actual != actual) ||
		    c.frame_number || (ep >= 0 && c.ep != ep) ||
		    c.reserved0 || c.reserved[0] || c.reserved[1])
			ok = 0;
		if (!ok) {
			ktap_msg("completion %d: tag %llu status %s actual %u",
				 i + 1, (unsigned long long)c.tag,
				 err(c.status), c.actual);
			return 0;
		}
	}
	return ok;
}

/* MANY reads in flight; one host URB of MANY * CHUNK fills them in order. */
static void part_out(void)
{
	static unsigned char host[MANY * CHUNK], got[MANY][CHUNK];
	struct pollfd p = { .fd = dev.fd, .events = POLLRDBAND };
	int i, ok = 1;

	ktap_msg("-- several requests in flight --");
	for (i = 0; i < MANY * CHUNK; i++)
		host[i] = i / CHUNK * 31 + i % 251;
	memset(got, 0, sizeof(got));
	for (i = 0; i < MANY; i++)
		ok &= !rg_submit(dev.fd, h_out, 100 + i, got[i], CHUNK, 0, 0);
	ktap_result(ok, "SUBMIT %d reads of %d bytes on bulk OUT", MANY, CHUNK);
	ktap_result(poll(&p, 1, 0) == 0,
		    "poll: no POLLRDBAND while nothing has completed");
	ktap_result(host_bulk(0, host, sizeof(host)) == sizeof(host),
		    "the host writes %zu bytes in one URB", sizeof(host));
	ktap_result(poll(&p, 1, 5000) == 1 && p.revents & POLLRDBAND,
		    "poll: POLLRDBAND once they completed");
	ktap_result(reap_n(MANY, h_out, 100, 0, 0, CHUNK) &&
		    !memcmp(got, host, sizeof(host)),
		    "REAP: tags in order, status 0, %d bytes each, the data where each buffer was",
		    CHUNK);
}

/* MANY writes queued; one host URB reads them all, in order. */
static void part_in(void)
{
	static unsigned char data[MANY][CHUNK], host[MANY * CHUNK];
	int i, ok = 1;

	for (i = 0; i < MANY * CHUNK; i++)
		data[i / CHUNK][i % CHUNK] = i / CHUNK * 17 + i % 241;
	for (i = 0; i < MANY; i++)
		ok &= !rg_submit(dev.fd, h_in, 200 + i, data[i], CHUNK, 0, 0);
	/* the buffers are copied at SUBMIT */
	memset(data, 0, sizeof(data));
	ktap_result(ok, "SUBMIT %d writes of %d bytes on bulk IN", MANY, CHUNK);
	ok = host_bulk(1, host, sizeof(host)) == sizeof(host);
	for (i = 0; ok && i < MANY * CHUNK; i++)
		ok = host[i] == (unsigned char)(i / CHUNK * 17 + i % 241);
	ktap_result(ok, "the host reads them in one URB, in order, intact");
	ktap_result(reap_n(MANY, h_in, 200, 0, 0, CHUNK),
		    "REAP: tags in order, status 0, %d bytes each", CHUNK);
}

/* Cancel the first of two reads: the second gets the host's data. */
static void part_cancel(void)
{
	struct usb_raw_mw57_completion c;
	static char a[512], b[512], host[512];
	int ret;

	ktap_msg("-- cancel --");
	memset(host, 'z', sizeof(host));
	ktap_result(!rg_submit(dev.fd, h_out, 300, a, sizeof(a), 0, 0) &&
		    !rg_submit(dev.fd, h_out, 301, b, sizeof(b), 0, 0) &&
		    !rg_cancel(dev.fd, h_out, 300),
		    "SUBMIT two reads, CANCEL the first");
	ret = reap_within(&c, 5);
	ktap_result(!ret && c.tag == 300 && c.status == -ECONNRESET && !c.actual,
		    "REAP: the cancelled one, ECONNRESET, 0 bytes (%s: tag %llu, %s, %u)",
		    err(ret), (unsigned long long)c.tag, err(c.status), c.actual);
	ktap_result(rg_cancel(dev.fd, h_out, 300) == -EINVAL &&
		    rg_cancel(dev.fd, h_out, 999) == -EINVAL,
		    "CANCEL of a request no longer or never in flight: EINVAL");
	ktap_result(host_bulk(0, host, sizeof(host)) == sizeof(host) &&
		    reap_n(1, h_out, 301, 0, 0, sizeof(host)) &&
		    !memcmp(b, host, sizeof(host)),
		    "the host's next 512 bytes go to the second read");
}

struct blocked {
	pthread_t t;
	int ret;
	volatile int done;
	pid_t tid;
};

/*
 * More than dummy_hcd's 64-byte FIFO: a shorter IN request on an idle
 * endpoint completes at once, its data held for the host.
 */
static char wbuf[512];

static void *write_thread(void *arg)
{
	struct blocked *b = arg;

	b->tid = gettid();
	b->ret = rg_ep_write(dev.fd, h_in, wbuf, sizeof(wbuf), 0);
	b->done = 1;
	return NULL;
}

/* Blocking and async transfers never share an endpoint. */
static void part_mixing(void)
{
	static char buf[512];
	struct blocked b = { 0 };
	int i, ret;

	ktap_msg("-- blocking and async on one endpoint --");
	ret = rg_submit(dev.fd, h_out, 400, buf, sizeof(buf), 0, 0);
	alarm(5);
	ret = ret ? ret : rg_ep_read(dev.fd, h_out, buf, sizeof(buf));
	alarm(0);
	ktap_result(ret == -EBUSY,
		    "EP_READ on an endpoint with a request in flight: EBUSY (%s)",
		    err(ret));
	ktap_result(!rg_cancel(dev.fd, h_out, 400) && reap_n(1, h_out, 400, 0,
		    -ECONNRESET, 0), "that request cancelled and reaped");

	pthread_create(&b.t, NULL, write_thread, &b);
	for (i = 0; i < 50 && !(b.tid && rg_test_thread_sleeps(b.tid)); i++)
		usleep(100000);
	ret = rg_submit(dev.fd, h_in, 401, buf, sizeof(buf), 0, 0);
	ktap_result(!b.done && ret == -EBUSY,
		    "SUBMIT on an endpoint a blocked EP_WRITE uses: EBUSY (%s)",
		    err(ret));
	pthread_kill(b.t, SIGUSR1);
	pthread_join(b.t, NULL);
	ktap_result(b.ret == -EINTR, "the EP_WRITE ends on a signal (%s)",
		    err(b.ret));
}

/*
 * The depth (32 in flight per endpoint) and the byte budget (32 MiB per
 * file), then EP_DISABLE ends everything in flight with ESHUTDOWN.
 */
static void part_limits(void)
{
	static char small[USB_RAW_MW57_ASYNC_DEPTH + 1][64];
	static char big[BIG];
	int i, ok = 1, ret, n_big = 0;

	ktap_msg("-- limits, and EP_DISABLE --");
	for (i = 0; i < USB_RAW_MW57_ASYNC_DEPTH; i++)
		ok &= !rg_submit(dev.fd, h_out, 500 + i, small[i], 64, 0, 0);
	ret = rg_submit(dev.fd, h_out, 599, small[i], 64, 0, 0);
	ktap_result(ok && ret == -EAGAIN,
		    "%d reads in flight on one endpoint, one more: EAGAIN (%s)",
		    USB_RAW_MW57_ASYNC_DEPTH, err(ret));
	do {
		ret = rg_submit(dev.fd, h_in, 600 + n_big, big, BIG, 0, 0);
		n_big += !ret;
	} while (!ret && n_big < 32);
	/* 31 * (1 MiB + a record) fit in 32 MiB beside the 32 small ones */
	ktap_result(n_big == 31 && ret == -ENOMEM,
		    "writes of 1 MiB: %d fit in the budget, then ENOMEM (%s; want 31)",
		    n_big, err(ret));
	ktap_result(!rg_ep_disable(dev.fd, h_out) &&
		    reap_n(USB_RAW_MW57_ASYNC_DEPTH, h_out, 500, 1,
			   -ESHUTDOWN, 0),
		    "EP_DISABLE of bulk OUT: its %d requests end with ESHUTDOWN",
		    USB_RAW_MW57_ASYNC_DEPTH);
	ktap_result(!rg_ep_disable(dev.fd, h_in) &&
		    reap_n(n_big, h_in, 600, 1, -ESHUTDOWN, 0),
		    "EP_DISABLE of bulk IN: its %d requests end with ESHUTDOWN",
		    n_big);
	ret = rg_submit(dev.fd, h_out, 0, small[0], 64, 0, 0);
	ktap_result(ret == -EBUSY, "SUBMIT on a disabled endpoint: EBUSY (%s)",
		    err(ret));
	h_in = h_out = -1;
	ret = rg_vendor_enable_bulk(dev.fd, &h_in, &h_out);
	ktap_result(!ret, "both endpoints enabled again (handles %d, %d)",
		    h_in, h_out);
}

/* Bad arguments: each refused with its errno, nothing queued. */
static void part_invalid(void)
{
	struct usb_raw_mw57_urb u = {
		.buffer = (uintptr_t)"x", .length = 1, .ep = h_in,
	};
	struct usb_raw_mw57_cancel c = { .ep = h_in, .reserved = 1 };
	int r[6];

	r[0] = rg_submit(dev.fd, 29, 1, "x", 1, 0, 0);
	r[1] = rg_submit(dev.fd, h_in, 1, "x", 1, 0, 2);
	r[2] = rg_submit(dev.fd, h_in, 1, "x", KMALLOC_MAX + 1, 0, 0);
	r[3] = rg_submit(dev.fd, h_in, 1, "x", 1, 1, 0);
	u.reserved = 1;
	r[4] = ioctl(dev.fd, USB_RAW_MW57_IOCTL_SUBMIT, &u) ? -errno : 0;
	r[5] = ioctl(dev.fd, USB_RAW_MW57_IOCTL_CANCEL, &c) ? -errno : 0;
	ktap_result(r[0] == -EINVAL && r[1] == -EINVAL && r[2] == -EINVAL &&
		    r[3] == -EINVAL && r[4] == -EINVAL && r[5] == -EINVAL,
		    "EINVAL for a bad handle, flags, length, a stream the endpoint lacks, reserved fields (%s %s %s %s %s %s)",
		    err(r[0]), err(r[1]), err(r[2]), err(r[3]), err(r[4]),
		    err(r[5]));
	r[0] = rg_submit(dev.fd, h_in, 1, (void *)8, 16, 0, 0);
	ktap_result(r[0] == -EFAULT, "SUBMIT of a write from a bad buffer: EFAULT (%s)",
		    err(r[0]));
}

/* O_NONBLOCK and a REAP that sleeps until a completion wakes it. */
struct reaper {
	pthread_t t;
	pid_t tid;
	int ret;
	volatile int done;
	struct usb_raw_mw57_completion c;
};

static void *reap_thread(void *arg)
{
	struct reaper *r = arg;

	r->tid = gettid();
	r->ret = rg_reap(dev.fd, &r->c);
	r->done = 1;
	return NULL;
}

static void part_wait(void)
{
	static char buf[512], host[512];
	struct usb_raw_mw57_completion c;
	struct reaper r = { 0 };
	int i, ret, flags = fcntl(dev.fd, F_GETFL);

	ktap_msg("-- waiting: blocking and O_NONBLOCK --");
	memset(host, 'h', sizeof(host));
	ktap_result(!rg_submit(dev.fd, h_out, 700, buf, sizeof(buf), 0, 0),
		    "SUBMIT a read");
	pthread_create(&r.t, NULL, reap_thread, &r);
	for (i = 0; i < 50 && !(r.tid && rg_test_thread_sleeps(r.tid)); i++)
		usleep(100000);
	ktap_result(!r.done && r.tid && rg_test_thread_sleeps(r.tid),
		    "REAP sleeps while the request is in flight");
	ret = host_bulk(0, host, sizeof(host));
	rg_test_wait_until(&r.done, 5);
	ktap_result(ret == sizeof(host) && r.done &&
		    !r.ret && r.c.tag == 700 && !r.c.status &&
		    r.c.actual == sizeof(host) && !memcmp(buf, host, sizeof(host)),
		    "the host's write wakes it with the completion (%s, tag %llu)",
		    err(r.ret), (unsigned long long)r.c.tag);
	if (!r.done)
		pthread_kill(r.t, SIGUSR1);
	pthread_join(r.t, NULL);

	fcntl(dev.fd, F_SETFL, flags | O_NONBLOCK);
	ret = reap_within(&c, 3);
	ktap_result(ret == -EAGAIN, "REAP, O_NONBLOCK, nothing completed: EAGAIN (%s)",
		    err(ret));
	ktap_result(!rg_submit(dev.fd, h_out, 701, buf, sizeof(buf), 0, 0) &&
		    host_bulk(0, host, sizeof(host)) == sizeof(host),
		    "SUBMIT a read, the host writes");
	ret = -EAGAIN;
	for (i = 0; i < 50 && ret == -EAGAIN; i++) {
		ret = reap_within(&c, 3);
		if (ret == -EAGAIN)
			usleep(100000);
	}
	ktap_result(!ret && c.tag == 701 && !c.status,
		    "REAP, O_NONBLOCK, a completion: 0 (%s, tag %llu)",
		    err(ret), (unsigned long long)c.tag);
	fcntl(dev.fd, F_SETFL, flags);
}

/* mmap() of @len bytes at page offset @pgoff: 0 or -errno; unmapped again. */
static int try_map(size_t len, int flags, off_t pgoff)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, flags, dev.fd,
		       pgoff * getpagesize());

	if (p == MAP_FAILED)
		return -errno;
	munmap(p, len);
	return 0;
}

/* The transfer area: mapped requests move data with no copy. */
static void part_mapped(void)
{
	static const unsigned char zero[MANY * CHUNK];
	static unsigned char host[MANY * CHUNK];
	unsigned char *a, *b;
	int i, ok, r[4], pfd[2];
	ssize_t n;

	ktap_msg("-- the transfer area (mmap) --");
	r[0] = rg_submit_mapped(dev.fd, h_in, 1, 0, 16, 0, 0);
	ktap_result(r[0] == -EINVAL, "a mapped SUBMIT before any mmap: EINVAL (%s)",
		    err(r[0]));
	r[0] = try_map(AREA, MAP_PRIVATE, 0);
	r[1] = try_map(AREA, MAP_SHARED, 1);
	r[2] = try_map(USB_RAW_MW57_MAP_MAX + getpagesize(), MAP_SHARED, 0);
	ktap_result(r[0] == -EINVAL && r[1] == -EINVAL && r[2] == -EINVAL,
		    "mmap: EINVAL for a private mapping, an offset, more than %u bytes (%s %s %s)",
		    USB_RAW_MW57_MAP_MAX, err(r[0]), err(r[1]), err(r[2]));
	a = rg_map(dev.fd, AREA);
	b = rg_map(dev.fd, AREA);
	r[0] = try_map(AREA / 2, MAP_SHARED, 0);
	ok = a && b && a != b && !a[0] && !a[AREA - 1];
	if (ok) {
		a[AREA - 1] = 0x5a;
		ok = b[AREA - 1] == 0x5a;
	}
	ktap_result(ok && r[0] == -EINVAL,
		    "two mmaps share one zeroed area; another length: EINVAL (%s)",
		    err(r[0]));
	if (!ok)
		ktap_bail("no transfer area");
	/* vmsplice() pins the pages it moves into the pipe (GUP) */
	memset(a, 'p', CHUNK);
	n = -1;
	ok = 0;
	if (!pipe(pfd)) {
		n = vmsplice(pfd[1], &(struct iovec){ a, CHUNK }, 1, 0);
		if (n < 0)
			n = -errno;
		ok = n == CHUNK && read(pfd[0], host, CHUNK) == CHUNK &&
		     !memcmp(host, a, CHUNK);
		close(pfd[0]);
		close(pfd[1]);
	}
	ktap_result(ok, "the area's pages can be pinned: vmsplice() of %d bytes into a pipe (%zd)",
		    CHUNK, n);

	r[0] = rg_submit_mapped(dev.fd, h_in, 1, AREA - 100, 200, 0, 0);
	r[1] = rg_submit_mapped(dev.fd, h_in, 1, 1ull << 63, 16, 0, 0);
	r[2] = rg_submit_mapped(dev.fd, h_in, 1, AREA + 1, 0, 0, 0);
	ktap_result(r[0] == -EINVAL && r[1] == -EINVAL && r[2] == -EINVAL,
		    "a mapped SUBMIT past the area's end: EINVAL (%s %s %s)",
		    err(r[0]), err(r[1]), err(r[2]));

	/* IN: the UDC sends what is in the area, read at transfer time */
	ok = 1;
	for (i = 0; i < MANY; i++)
		ok &= !rg_submit_mapped(dev.fd, h_in, 1100 + i, 8192 + i * CHUNK,
					CHUNK, 0, 0);
	for (i = 0; i < MANY * CHUNK; i++)
		a[8192 + i] = i / CHUNK * 13 + i % 239;
	ok &= host_bulk(1, host, sizeof(host)) == sizeof(host) &&
	      !memcmp(host, a + 8192, sizeof(host));
	ktap_result(ok && reap_n(MANY, h_in, 1100, 0, 0, CHUNK),
		    "%d mapped writes: the host reads the area's bytes, written after SUBMIT",
		    MANY);

	/* OUT: the data is in the area at REAP */
	ok = 1;
	memset(a, 0, 2 * sizeof(host));
	for (i = 0; i < MANY * CHUNK; i++)
		host[i] = i / CHUNK * 7 + i % 233;
	for (i = 0; i < MANY; i++)
		ok &= !rg_submit_mapped(dev.fd, h_out, 1200 + i,
					sizeof(host) + i * CHUNK, CHUNK, 0, 0);
	ok &= host_bulk(0, host, sizeof(host)) == sizeof(host);
	ktap_result(ok && reap_n(MANY, h_out, 1200, 0, 0, CHUNK) &&
		    !memcmp(a + sizeof(host), host, sizeof(host)) &&
		    !memcmp(a, zero, sizeof(zero)),
		    "%d mapped reads: the host's bytes are in the area where each one was, and only there",
		    MANY);

	/* the area outlives its mappings */
	ok = !rg_submit_mapped(dev.fd, h_out, 1300, 0, 512, 0, 0);
	munmap(a, AREA);
	munmap(b, AREA);
	memset(host, 'm', 512);
	ok &= host_bulk(0, host, 512) == 512 &&
	      reap_n(1, h_out, 1300, 0, 0, 512);
	a = rg_map(dev.fd, AREA);
	ktap_result(ok && a && !memcmp(a, host, 512),
		    "a read that completes while nothing maps the area: a new mmap finds its data");
	if (a)
		munmap(a, AREA);
}

/* A port reset from the host: dummy_hcd ends the request (ESHUTDOWN). */
static void part_reset(void)
{
	static char buf[512], host[512];
	int ret;

	ktap_msg("-- port reset --");
	ktap_result(!rg_submit(dev.fd, h_out, 800, buf, sizeof(buf), 0, 0) &&
		    !ioctl(hfd, USBDEVFS_RESET, 0),
		    "SUBMIT a read, the host resets the port");
	ktap_result(reap_n(1, h_out, 800, 0, -ESHUTDOWN, 0),
		    "REAP: the read ended with ESHUTDOWN");
	memset(host, 'r', sizeof(host));
	ret = rg_submit(dev.fd, h_out, 801, buf, sizeof(buf), 0, 0);
	ktap_result(!ret && host_bulk(0, host, sizeof(host)) == sizeof(host) &&
		    reap_n(1, h_out, 801, 0, 0, sizeof(host)),
		    "after the reset, a new read gets the host's data (%s)",
		    err(ret));
}

/* close() with requests in flight both ways; the host sees it go. */
static void part_close(void)
{
	static char r[4][512], w[4][512];
	char node[64];
	int i, ok = 1, gone = 0;

	ktap_msg("-- close with requests in flight --");
	for (i = 0; i < 4; i++) {
		ok &= !rg_submit(dev.fd, h_out, 900 + i, r[i], 512, 0, 0);
		ok &= !rg_submit(dev.fd, h_in, 910 + i, w[i], 512, 0, 0);
		ok &= !rg_submit_mapped(dev.fd, h_out, 920 + i, i * 512, 512, 0, 0);
		ok &= !rg_submit_mapped(dev.fd, h_in, 930 + i, 4096 + i * 512,
					512, 0, 0);
	}
	ktap_result(ok, "SUBMIT 4 reads and 4 writes, and as many mapped");
	stop_loop();
	close(hfd);
	close(dev.fd);
	for (i = 0; i < 50 && !gone; i++) {
		gone = !rg_test_host_node(VID, PID, node, sizeof(node));
		if (!gone)
			usleep(100000);
	}
	ktap_result(gone, "close() returns and the device leaves the host");
}

/* Round two: the UDC unbound under a read and a write in flight. */
static void part_unbind(void)
{
	static char r[512], w[512];
	int ret;

	ktap_msg("-- the UDC unbound --");
	start_round();
	ktap_result(!rg_submit(dev.fd, h_out, 1000, r, sizeof(r), 0, 0) &&
		    !rg_submit(dev.fd, h_in, 1001, w, sizeof(w), 0, 0),
		    "SUBMIT a read and a write");
	ktap_result(rg_test_write_file(PLATFORM "unbind", UDC), "sysfs unbind of " UDC);
	ktap_result(reap_n(2, -1, 1000, 1, -ESHUTDOWN, 0),
		    "REAP: both ended with ESHUTDOWN");
	ret = rg_submit(dev.fd, h_out, 1002, r, sizeof(r), 0, 0);
	ktap_result(ret == -EBUSY, "SUBMIT while unbound: EBUSY (%s)", err(ret));
	stop_loop();
	close(hfd);
	ret = rg_test_write_file(PLATFORM "bind", UDC);
	ktap_result(ret && !rg_test_wait_connect(dev.fd),
		    "the UDC is back: the instance binds again (CONNECT)");
	close(dev.fd);
}

int main(void)
{
	rg_test_setup();
	ktap_header(PLAN);
	start_round();
	part_out();
	part_in();
	part_cancel();
	part_mixing();
	part_limits();
	part_invalid();
	part_wait();
	part_mapped();
	part_reset();
	part_close();
	part_unbind();
	return ktap_finish();
}
