// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The mw57 authors. */
/*
 * rg-loopback: a bulk loopback device made with /dev/raw-gadget.  What the
 * host writes to bulk OUT comes back, unchanged and in order, on bulk IN
 * (one transfer of up to BUFLEN bytes at a time).  Vendor interface,
 * default VID:PID 1d6b:5703; re-enumerates after reset or disconnect.
 *
 *   rg-loopback [-v] [-d UDC_DEVICE] [-s SPEED] [-b BUFLEN] [-p VID:PID]
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mw57/rawgadget.h>

static struct usb_device_descriptor lb_device =
	RG_DEVICE_DESC(0x1d6b, 0x5703,
		       .iManufacturer = 1, .iProduct = 2);

static struct {
	struct usb_config_descriptor config;
	struct usb_interface_descriptor intf;
	struct rg_endpoint_descriptor in, out;
} __attribute__((packed)) lb_config = {
	.config = RG_CONFIG_DESC(lb_config),
	.intf = RG_INTERFACE_DESC(2, USB_CLASS_VENDOR_SPEC),
	.in = RG_BULK_EP_DESC(USB_DIR_IN | 1, 512),
	.out = RG_BULK_EP_DESC(USB_DIR_OUT | 2, 512),
};

static const char *const lb_strings[] = { "mw57", "mw57 loopback", NULL };

struct lb {
	struct rg_device *d;
	unsigned int buflen;
	int in, out;
	struct rg_thread worker;
};

/* One worker: read a transfer from OUT, write it back on IN. */
static void *lb_loop(void *arg)
{
	struct lb *lb = arg;
	struct usb_raw_ep_io *io = malloc(sizeof(*io) + lb->buflen);
	int ret;

	while (io && !lb->worker.stop) {
		io->ep = lb->out;
		io->flags = 0;
		io->length = lb->buflen;
		ret = rg_ep_read_io(lb->d->fd, io);
		if (ret == -EINTR)
			continue;
		if (ret < 0)
			break;
		io->ep = lb->in;
		io->length = ret;
		/* a full-size transfer ends with a ZLP, so the host sees its end */
		io->flags = ret % lb_config.in.wMaxPacketSize ? 0 : USB_RAW_IO_FLAGS_ZERO;
		do {
			ret = rg_ep_write_io(lb->d->fd, io);
		} while (ret == -EINTR && !lb->worker.stop);
		if (ret < 0)
			break;
	}
	free(io);
	return NULL;
}

static int lb_configure(struct rg_device *d)
{
	struct lb *lb = d->priv;
	struct usb_endpoint_descriptor e;

	rg_ep_desc(&e, &lb_config.in);
	lb->in = rg_ep_enable(d->fd, &e);
	rg_ep_desc(&e, &lb_config.out);
	lb->out = rg_ep_enable(d->fd, &e);
	if (lb->in < 0 || lb->out < 0)
		return -1;
	return rg_thread_start(&lb->worker, lb_loop, lb);
}

static void lb_deconfigure(struct rg_device *d)
{
	struct lb *lb = d->priv;

	rg_thread_stop(&lb->worker);
	if (lb->in >= 0)
		rg_ep_disable(d->fd, lb->in);
	if (lb->out >= 0)
		rg_ep_disable(d->fd, lb->out);
	lb->in = lb->out = -1;
}

static const struct rg_device_ops lb_ops = {
	.configure = lb_configure,
	.deconfigure = lb_deconfigure,
};

int main(int argc, char **argv)
{
	struct lb lb = { .buflen = 65536, .in = -1, .out = -1 };
	struct rg_device d = {
		.device = &lb_device,
		.config = &lb_config,
		.config_len = sizeof(lb_config),
		.strings = lb_strings,
		.ops = &lb_ops,
		.priv = &lb,
	};
	struct rg_options o;
	int opt, ret;

	rg_options_init(&o);
	while ((opt = getopt(argc, argv, RG_OPTSTRING "b:")) != -1) {
		ret = rg_option(opt, optarg, &o, &d, &lb_device);
		if (ret > 0)
			continue;
		lb.buflen = !ret && opt == 'b' ? strtoul(optarg, NULL, 0) : 0;
	}
	if (!lb.buflen || lb.buflen > (1u << 22)) {
		fprintf(stderr, "usage: rg-loopback " RG_USAGE " [-b BUFLEN (1..4194304)]\n");
		return 2;
	}
	if (o.speed != USB_SPEED_HIGH) {
		lb_device.bcdUSB = 0x0110;
		lb_config.in.wMaxPacketSize = 64;
		lb_config.out.wMaxPacketSize = 64;
	}
	lb.d = &d;
	return rg_device_main(&d, &o, "rg-loopback");
}
