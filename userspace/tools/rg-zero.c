// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The mw57 authors. */
/*
 * rg-zero: a Gadget Zero compatible source/sink device (VID:PID 0525:a4a0,
 * so the kernel's usbtest host driver binds to it), made with
 * /dev/raw-gadget.  Like the SourceSink function: bulk IN sends buflen
 * transfers of the pattern, bulk OUT receives and checks them (a mismatch
 * halts the endpoint), vendor requests 0x5b/0x5c write and read back a
 * 4096-byte control buffer.  Endpoints are chosen from EPS_INFO.
 *
 *   rg-zero [-v] [-d UDC_DEVICE] [-s SPEED] [-P PATTERN] [-b BUFLEN]
 *           [-q DEPTH [-M]] [-p VID:PID]
 *
 * PATTERN 0: zeroes; 1: byte i of each packet is (i % maxpacket) % 63;
 * 2: zeroes sent, nothing checked (SourceSink's pattern 2, for benchmarks).
 * SPEED 5 (SuperSpeed): 1024-byte bulk packets with endpoint companions.
 * DEPTH 0 (default): one blocking EP_WRITE/EP_READ thread per endpoint;
 * 1..32: one thread keeps DEPTH asynchronous requests in flight on each
 * endpoint (mw57's SUBMIT and REAP); with -M their buffers are in the
 * file's transfer area (mmap), which the UDC reads and fills in place.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <mw57/rawgadget.h>

#define ZERO_CTRL_BUFSIZ 4096

static struct usb_device_descriptor zero_device =
	RG_DEVICE_DESC(0x0525, 0xa4a0,
		       .bDeviceClass = USB_CLASS_VENDOR_SPEC, .iManufacturer = 1,
		       .iProduct = 2, .iSerialNumber = 3);

static struct {
	struct usb_config_descriptor config;
	struct usb_interface_descriptor intf;
	struct rg_endpoint_descriptor sink;	/* bulk OUT */
	struct rg_endpoint_descriptor source;	/* bulk IN */
} __attribute__((packed)) zero_config = {
	.config = RG_CONFIG_DESC(zero_config),
	.intf = RG_INTERFACE_DESC(2, USB_CLASS_VENDOR_SPEC, .iInterface = 4),
	.sink = RG_BULK_EP_DESC(USB_DIR_OUT | 1, 512),
	.source = RG_BULK_EP_DESC(USB_DIR_IN | 1, 512),
};

/* At SuperSpeed (-s 5): 1024-byte packets, no burst, as SourceSink's default. */
static struct {
	struct usb_config_descriptor config;
	struct usb_interface_descriptor intf;
	struct rg_endpoint_descriptor sink;
	struct usb_ss_ep_comp_descriptor sink_comp;
	struct rg_endpoint_descriptor source;
	struct usb_ss_ep_comp_descriptor source_comp;
} __attribute__((packed)) zero_ss_config = {
	.config = RG_CONFIG_DESC(zero_ss_config),
	.intf = RG_INTERFACE_DESC(2, USB_CLASS_VENDOR_SPEC, .iInterface = 4),
	.sink = RG_BULK_EP_DESC(USB_DIR_OUT | 1, 1024),
	.sink_comp = RG_SS_COMP_DESC(),
	.source = RG_BULK_EP_DESC(USB_DIR_IN | 1, 1024),
	.source_comp = RG_SS_COMP_DESC(),
};

static const char *const zero_strings[] = {
	"mw57", "mw57 gadget zero", "0123456789.0123456789.0123456789",
	"source and sink data", NULL,
};

struct zero {
	struct rg_device *d;
	int pattern;
	unsigned int buflen;
	unsigned int maxpacket;
	int ss;				/* SuperSpeed descriptors */
	int source, sink;		/* handles, or -1 */
	struct rg_thread source_t, sink_t;
	unsigned int depth;		/* async requests per endpoint, or 0 */
	uint8_t *abuf;			/* their buffers: sink's, then source's */
	int mapped;			/* abuf is the transfer area (-M) */
	unsigned int outstanding;	/* submitted, not yet reaped */
	struct rg_thread pump_t;
	uint8_t ctrl[ZERO_CTRL_BUFSIZ];
	unsigned long errors;
};

static void zero_fill(const struct zero *z, uint8_t *buf, unsigned int len)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		buf[i] = z->pattern == 1 ? (i % z->maxpacket) % 63 : 0;
}

static int zero_check(const struct zero *z, const uint8_t *buf,
		      unsigned int len)
{
	unsigned int i;

	if (z->pattern == 2)
		return 0;
	for (i = 0; i < len; i++)
		if (buf[i] != (z->pattern == 1 ? (i % z->maxpacket) % 63 : 0))
			return -1;
	return 0;
}

/* An I/O error ends the worker when the bus went away or it was told to. */
static int zero_fatal(struct rg_thread *t, int ret)
{
	return t->stop || ret == -ESHUTDOWN || ret == -ENODEV || ret == -EINVAL;
}

static void *zero_source(void *arg)
{
	struct zero *z = arg;
	struct usb_raw_ep_io *io = malloc(sizeof(*io) + z->buflen);
	int ret;

	if (!io)
		return NULL;
	io->ep = z->source;
	io->flags = 0;
	io->length = z->buflen;
	zero_fill(z, io->data, z->buflen);
	while (!z->source_t.stop) {
		ret = rg_ep_write_io(z->d->fd, io);
		if (ret < 0 && zero_fatal(&z->source_t, ret))
			break;
	}
	free(io);
	return NULL;
}

static void *zero_sink(void *arg)
{
	struct zero *z = arg;
	struct usb_raw_ep_io *io = malloc(sizeof(*io) + z->buflen);
	int ret;

	if (!io)
		return NULL;
	while (!z->sink_t.stop) {
		io->ep = z->sink;
		io->flags = 0;
		io->length = z->buflen;
		ret = rg_ep_read_io(z->d->fd, io);
		if (ret < 0) {
			if (zero_fatal(&z->sink_t, ret))
				break;
			continue;
		}
		if (zero_check(z, io->data, ret)) {
			z->errors++;
			if (z->d->verbose)
				fprintf(stderr, "rg-zero: bad data, halting\n");
			rg_ep_set_halt(z->d->fd, z->sink);
		}
	}
	free(io);
	return NULL;
}

/*
 * Asynchronous mode.  Tag: bit 16 set for the source (bulk IN), the
 * buffer's index below it.
 */
#define ZERO_TAG_SOURCE	0x10000u

static uint8_t *zero_abuf(const struct zero *z, uint64_t tag)
{
	size_t i = (tag & ZERO_TAG_SOURCE ? z->depth : 0) + (tag & 0xffff);

	return z->abuf + i * z->buflen;
}

/* -M: the transfer area's length, the async buffers rounded up to a page */
static size_t zero_area(const struct zero *z)
{
	size_t page = sysconf(_SC_PAGESIZE);

	return (2ul * z->depth * z->buflen + page - 1) / page * page;
}

static int zero_submit(struct zero *z, uint64_t tag)
{
	int ret = rg_submit_in(z->d->fd,
			       tag & ZERO_TAG_SOURCE ? z->source : z->sink, tag,
			       z->mapped ? z->abuf : NULL, zero_abuf(z, tag),
			       z->buflen, 0, 0);

	if (!ret)
		z->outstanding++;
	return ret;
}

/* Keep depth requests in flight on each endpoint until told to stop. */
static void *zero_pump(void *arg)
{
	struct zero *z = arg;
	struct usb_raw_mw57_completion c;
	unsigned int i;
	int ret;

	/* the area is the file's until close: mapped once */
	if (z->mapped && !z->abuf) {
		z->abuf = rg_map(z->d->fd, zero_area(z));
		if (!z->abuf) {
			perror("rg-zero: mmap");
			return NULL;
		}
	}
	for (i = 0; i < z->depth; i++) {
		zero_fill(z, zero_abuf(z, ZERO_TAG_SOURCE | i), z->buflen);
		if (zero_submit(z, i) || zero_submit(z, ZERO_TAG_SOURCE | i))
			return NULL;
	}
	while (!z->pump_t.stop) {
		ret = rg_reap(z->d->fd, &c);
		if (ret == -EINTR)
			continue;
		if (ret)
			break;
		z->outstanding--;
		if (c.status == -ESHUTDOWN || c.status == -ENODEV)
			break;	/* disabled, reset or unbound */
		if (!c.status && !(c.tag & ZERO_TAG_SOURCE) &&
		    zero_check(z, zero_abuf(z, c.tag), c.actual)) {
			z->errors++;
			rg_ep_set_halt(z->d->fd, z->sink);
		}
		if (zero_submit(z, c.tag))
			break;
	}
	return NULL;
}

/* After the endpoints are disabled: reap what they ended. */
static void zero_drain(struct zero *z)
{
	struct usb_raw_mw57_completion c;

	while (z->outstanding && !rg_reap(z->d->fd, &c))
		z->outstanding--;
}

/* CONNECT: put the first bulk IN and OUT endpoints of the UDC in the config. */
static void zero_event(struct rg_device *d, const struct usb_raw_event *ev)
{
	struct usb_raw_eps_info info;
	int n, i, in = 0, out = 0;

	if (ev->type != USB_RAW_EVENT_CONNECT)
		return;
	n = rg_eps_info(d->fd, &info);
	for (i = 0; i < n; i++) {
		struct usb_raw_ep_info *e = &info.eps[i];

		if (!e->caps.type_bulk || e->addr == USB_RAW_EP_ADDR_ANY)
			continue;
		if (e->caps.dir_in && !in)
			in = e->addr;
		if (e->caps.dir_out && !out)
			out = e->addr;
	}
	if (in && out) {
		zero_config.source.bEndpointAddress = USB_DIR_IN | in;
		zero_config.sink.bEndpointAddress = USB_DIR_OUT | out;
		zero_ss_config.source.bEndpointAddress = USB_DIR_IN | in;
		zero_ss_config.sink.bEndpointAddress = USB_DIR_OUT | out;
	}
	if (d->verbose)
		fprintf(stderr, "rg-zero: %d endpoints, source ep%d, sink ep%d\n",
			n, in, out);
}

static int zero_configure(struct rg_device *d)
{
	struct zero *z = d->priv;
	struct usb_endpoint_descriptor e;

	if (z->ss) {
		rg_ep_desc(&e, &zero_ss_config.source);
		z->source = rg_ep_enable_ss(d->fd, &e, &zero_ss_config.source_comp);
		rg_ep_desc(&e, &zero_ss_config.sink);
		z->sink = rg_ep_enable_ss(d->fd, &e, &zero_ss_config.sink_comp);
	} else {
		rg_ep_desc(&e, &zero_config.source);
		z->source = rg_ep_enable(d->fd, &e);
		rg_ep_desc(&e, &zero_config.sink);
		z->sink = rg_ep_enable(d->fd, &e);
	}
	if (z->source < 0 || z->sink < 0) {
		fprintf(stderr, "rg-zero: EP_ENABLE: %s\n",
			strerror(-(z->source < 0 ? z->source : z->sink)));
		return -1;
	}
	if (z->depth)
		return rg_thread_start(&z->pump_t, zero_pump, z) ? -1 : 0;
	if (rg_thread_start(&z->source_t, zero_source, z) ||
	    rg_thread_start(&z->sink_t, zero_sink, z))
		return -1;
	return 0;
}

static void zero_deconfigure(struct rg_device *d)
{
	struct zero *z = d->priv;

	rg_thread_stop(&z->source_t);
	rg_thread_stop(&z->sink_t);
	rg_thread_stop(&z->pump_t);
	if (z->source >= 0)
		rg_ep_disable(d->fd, z->source);
	if (z->sink >= 0)
		rg_ep_disable(d->fd, z->sink);
	zero_drain(z);
	z->source = z->sink = -1;
}

/* The two control test requests of Gadget Zero; everything else stalls. */
static int zero_control(struct rg_device *d, const struct usb_ctrlrequest *c)
{
	struct zero *z = d->priv;

	if (c->wValue || c->wIndex || c->wLength > sizeof(z->ctrl))
		return -1;
	if (c->bRequest == 0x5b &&
	    c->bRequestType == (USB_DIR_OUT | USB_TYPE_VENDOR))
		return rg_ep0_read(d->fd, z->ctrl, c->wLength) < 0 ? -1 : 0;
	if (c->bRequest == 0x5c &&
	    c->bRequestType == (USB_DIR_IN | USB_TYPE_VENDOR))
		return rg_ep0_write(d->fd, z->ctrl, c->wLength) < 0 ? -1 : 0;
	return -1;
}

static const struct rg_device_ops zero_ops = {
	.configure = zero_configure,
	.deconfigure = zero_deconfigure,
	.control = zero_control,
	.event = zero_event,
};

int main(int argc, char **argv)
{
	struct zero z = { .pattern = 0, .buflen = 4096, .source = -1, .sink = -1 };
	struct rg_device d = {
		.device = &zero_device,
		.config = &zero_config,
		.config_len = sizeof(zero_config),
		.strings = zero_strings,
		.ops = &zero_ops,
		.priv = &z,
	};
	struct rg_options o;
	int opt, ret;

	rg_options_init(&o);
	while ((opt = getopt(argc, argv, RG_OPTSTRING "P:b:q:M")) != -1) {
		ret = rg_option(opt, optarg, &o, &d, &zero_device);
		if (ret > 0)
			continue;
		if (!ret && opt == 'P')
			z.pattern = atoi(optarg);
		else if (!ret && opt == 'b')
			z.buflen = strtoul(optarg, NULL, 0);
		else if (!ret && opt == 'q')
			z.depth = strtoul(optarg, NULL, 0);
		else if (!ret && opt == 'M')
			z.mapped = 1;
		else
			z.pattern = -1;
	}
	if (z.pattern < 0 || z.pattern > 2 || !z.buflen || z.buflen > (1u << 20) ||
	    z.depth > USB_RAW_MW57_ASYNC_DEPTH ||
	    (z.mapped && (!z.depth || zero_area(&z) > USB_RAW_MW57_MAP_MAX))) {
		fprintf(stderr, "usage: rg-zero " RG_USAGE " [-P 0|1|2] [-b BUFLEN (1..1048576)] [-q DEPTH (0..32) [-M: 2 x DEPTH x BUFLEN <= %u]]\n",
			USB_RAW_MW57_MAP_MAX);
		return 2;
	}
	if (z.depth && !z.mapped) {
		z.abuf = calloc(2 * z.depth, z.buflen);
		if (!z.abuf) {
			perror("rg-zero");
			return 1;
		}
	}
	z.ss = o.speed == USB_SPEED_SUPER;
	z.maxpacket = z.ss ? 1024 : o.speed == USB_SPEED_HIGH ? 512 : 64;
	zero_config.sink.wMaxPacketSize = z.maxpacket;
	zero_config.source.wMaxPacketSize = z.maxpacket;
	if (z.ss) {
		zero_device.bcdUSB = 0x0300;
		zero_device.bMaxPacketSize0 = 9;
		d.config = &zero_ss_config;
		d.config_len = sizeof(zero_ss_config);
	} else if (o.speed != USB_SPEED_HIGH) {
		zero_device.bcdUSB = 0x0110;
	}
	z.d = &d;
	ret = rg_device_main(&d, &o, "rg-zero");
	if (z.errors)
		fprintf(stderr, "rg-zero: %lu bad OUT transfers\n", z.errors);
	if (z.mapped && z.abuf)
		munmap(z.abuf, zero_area(&z));
	else if (!z.mapped)
		free(z.abuf);
	return ret;
}
