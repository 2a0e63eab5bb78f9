// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The mw57 authors. */
/*
 * rg_inflight: the UDC goes away under raw gadget while its ioctls are in
 * flight (udc_unbind.sh).  Each round enumerates the vendor device of
 * rg_vendor.h on dummy_udc.0; then one thread blocks
 * in EP_READ, one in EP_WRITE, one enables and disables the int endpoint
 * in a loop, and a host thread keeps ep0 busy with GET_DESCRIPTOR through
 * usbfs, answered by the device loop.  Then the UDC goes, by sysfs unbind
 * of the platform device in the first round and by modprobe -r dummy_hcd
 * in the second, and comes back (bind, modprobe).  TAP 13 on stdout.
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
#include <unistd.h>
#include <linux/usbdevice_fs.h>

#include <mw57/rawgadget.h>
#include "../lib/ktap.h"
#include "../lib/rg_test.h"
#include "../lib/rg_vendor.h"

#define PLAN		20	/* 10 per round */
#define UDC		"dummy_udc.0"
#define PLATFORM	"/sys/bus/platform/drivers/dummy_udc/"

static const char *const strings[] = { "mw57 in-flight test", NULL };
static int h_in = -1, h_out = -1;

/* The bulk endpoints, enabled once per round; the int one is the loop's. */
static int inflight_configure(struct rg_device *d)
{
	return rg_vendor_enable_bulk(d->fd, &h_in, &h_out);
}

static const struct rg_device_ops inflight_ops = {
	.configure = inflight_configure,
};

static struct rg_device dev = {
	.device = &dev_desc, .config = &cfg_desc,
	.config_len = sizeof(cfg_desc), .strings = strings, .ops = &inflight_ops,
};

/* One thread with an ioctl in flight, and how it ended. */
struct worker {
	pthread_t t;
	pid_t tid;
	int ret;		/* the errno that ended it, negative */
	int other;		/* an error it should not have seen, or 0 */
	unsigned long cycles;
	volatile int done;
};

static struct worker loop_w, reader, writer, enabler, host;

static void *loop_thread(void *arg)
{
	struct worker *w = arg;

	w->ret = rg_device_loop(&dev);
	w->done = 1;
	return NULL;
}

static void *read_thread(void *arg)
{
	struct worker *w = arg;
	char buf[512];

	w->tid = gettid();
	w->ret = rg_ep_read(dev.fd, h_out, buf, sizeof(buf));
	w->done = 1;
	return NULL;
}

static void *write_thread(void *arg)
{
	struct worker *w = arg;
	static char buf[512];

	w->tid = gettid();
	w->ret = rg_ep_write(dev.fd, h_in, buf, sizeof(buf), 0);
	w->done = 1;
	return NULL;
}

/*
 * EP_ENABLE and EP_DISABLE of the int endpoint until the instance is
 * unbound (EBUSY).  Between the disconnect and the unbind dummy_hcd
 * refuses to enable with ESHUTDOWN: that one is expected on the way.
 */
static void *enable_thread(void *arg)
{
	struct usb_endpoint_descriptor e;
	struct worker *w = arg;
	int h;

	rg_ep_desc(&e, &cfg_desc.e[2]);
	for (;;) {
		h = rg_ep_enable(dev.fd, &e);
		if (h >= 0)
			h = rg_ep_disable(dev.fd, h);
		if (h == -EBUSY)
			break;
		if (h < 0 && h != -ESHUTDOWN && !w->other)
			w->other = h;
		w->cycles++;
	}
	w->ret = h;
	w->done = 1;
	return NULL;
}

/* The host reads the device descriptor until the device goes. */
static void *host_thread(void *arg)
{
	struct worker *w = arg;
	unsigned char buf[18];
	struct usbdevfs_ctrltransfer c = {
		.bRequestType = USB_DIR_IN, .bRequest = USB_REQ_GET_DESCRIPTOR,
		.wValue = USB_DT_DEVICE << 8, .wLength = sizeof(buf),
		.timeout = 1000, .data = buf,
	};
	char node[64];
	int fd = -1;

	if (rg_test_host_node(VID, PID, node, sizeof(node)))
		fd = open(node, O_RDWR);
	while (fd >= 0 && ioctl(fd, USBDEVFS_CONTROL, &c) == sizeof(buf))
		w->cycles++;
	w->ret = -errno;
	if (fd >= 0)
		close(fd);
	w->done = 1;
	return NULL;
}

static void start(struct worker *w, void *(*fn)(void *))
{
	memset(w, 0, sizeof(*w));
	pthread_create(&w->t, NULL, fn, w);
}

/* Whether @w has made a cycle (and still runs), polled for up to 10 s. */
static int cycling(struct worker *w)
{
	int i;

	for (i = 0; i < 1000 && !w->cycles && !w->done; i++)
		usleep(10000);
	return w->cycles && !w->done;
}

/* Whether @w sits in its ioctl: seen asleep, polled for up to 10 s. */
static int blocked(struct worker *w)
{
	int i;

	for (i = 0; i < 1000 && !w->done; i++) {
		if (w->tid && rg_test_thread_sleeps(w->tid))
			return 1;
		usleep(10000);
	}
	return 0;
}

static const char *err(int ret)
{
	return ret < 0 ? strerrorname_np(-ret) : "no error";
}

/* Fetch events until CONNECT; each fetch ends after 10 s (alarm). */
static void round_trip(int rmmod)
{
	struct usb_raw_mw57_info info;
	struct usb_raw_event ev = { 0 };
	const char *how = rmmod ? "modprobe -r dummy_hcd" : "sysfs unbind";
	int gone, all, ok;

	ktap_msg("-- the UDC goes by %s --", how);
	h_in = h_out = -1;
	dev.stop = 0;
	dev.configured = 0;
	dev.loop_tid = 0;
	if (rg_device_start(&dev, "dummy_udc", UDC, USB_SPEED_HIGH))
		ktap_bail("cannot start the device on " UDC);
	start(&loop_w, loop_thread);
	ktap_result(rg_test_wait_until(&dev.configured, 30),
		    "the host enumerates and configures the device");

	start(&host, host_thread);
	start(&reader, read_thread);
	start(&writer, write_thread);
	start(&enabler, enable_thread);
	ok = blocked(&reader) && blocked(&writer) && cycling(&enabler) &&
	     cycling(&host);
	ktap_result(ok, "in flight: EP_READ and EP_WRITE blocked, EP_ENABLE/EP_DISABLE cycling (%lu), host GET_DESCRIPTORs answered (%lu)",
		    enabler.cycles, host.cycles);

	gone = rmmod ? !system("modprobe -r dummy_hcd") :
		       rg_test_write_file(PLATFORM "unbind", UDC);
	ktap_result(gone, "%s", how);
	all = rg_test_wait_until(&reader.done, 10) &&
	      rg_test_wait_until(&writer.done, 10) &&
	      rg_test_wait_until(&enabler.done, 10) &&
	      rg_test_wait_until(&host.done, 10);
	ktap_result(all, "every ioctl in flight returned within 10 s");
	if (!all)
		ktap_bail("threads stuck in the kernel");
	ktap_result(reader.ret == -ESHUTDOWN,
		    "EP_READ in flight: ESHUTDOWN (%s)", err(reader.ret));
	ktap_result(writer.ret == -ESHUTDOWN,
		    "EP_WRITE in flight: ESHUTDOWN (%s)", err(writer.ret));
	ktap_result(enabler.ret == -EBUSY && !enabler.other,
		    "EP_ENABLE/EP_DISABLE loop: EBUSY once unbound (%s; other errors: %s)",
		    err(enabler.ret), err(enabler.other));

	/* the device loop ends on EBUSY, or sleeps in EVENT_FETCH */
	rg_device_stop(&dev);
	pthread_join(loop_w.t, NULL);
	pthread_join(reader.t, NULL);
	pthread_join(writer.t, NULL);
	pthread_join(enabler.t, NULL);
	pthread_join(host.t, NULL);
	ktap_result(rg_event_fetch(dev.fd, &ev, 0) == -EBUSY,
		    "EVENT_FETCH while unbound: EBUSY");
	ktap_result(rg_info(dev.fd, &info) == -EBUSY,
		    "mw57 INFO while unbound: EBUSY");

	gone = rmmod ? !system("modprobe dummy_hcd") :
		       rg_test_write_file(PLATFORM "bind", UDC);
	ktap_result(gone && !rg_test_wait_connect(dev.fd),
		    "the UDC is back: the instance binds to it again (CONNECT)");
	close(dev.fd);
}

int main(void)
{
	rg_test_setup();
	ktap_header(PLAN);
	round_trip(0);
	round_trip(1);
	return ktap_finish();
}
