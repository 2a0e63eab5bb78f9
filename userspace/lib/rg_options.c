// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The mw57 authors. */
/* librawgadget: the command line and main loop shared by the rg tools. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mw57/rawgadget.h>

void rg_options_init(struct rg_options *o)
{
	o->driver = "dummy_udc";
	o->device = "dummy_udc.0";
	o->speed = USB_SPEED_HIGH;
}

int rg_option(int opt, const char *arg, struct rg_options *o,
	      struct rg_device *d, struct usb_device_descriptor *desc)
{
	unsigned int vid, pid;

	switch (opt) {
	case 'v':
		d->verbose = 1;
		return 1;
	case 'd':
		o->device = arg;
		return 1;
	case 'D':
		o->driver = arg;
		return 1;
	case 's':
		o->speed = atoi(arg);
		return 1;
	case 'p':
		if (sscanf(arg, "%x:%x", &vid, &pid) != 2 || vid > 0xffff ||
		    pid > 0xffff)
			return -1;
		desc->idVendor = vid;
		desc->idProduct = pid;
		return 1;
	default:
		return 0;
	}
}

int rg_device_main(struct rg_device *d, const struct rg_options *o,
		   const char *prog)
{
	int ret;

	ret = rg_device_start(d, o->driver, o->device, o->speed);
	if (ret) {
		fprintf(stderr, "%s: %s on %s: %s\n", prog, o->driver,
			o->device, strerror(-ret));
		return 1;
	}
	ret = rg_device_loop(d);
	if (ret)
		fprintf(stderr, "%s: %s\n", prog, strerror(-ret));
	close(d->fd);
	return ret ? 1 : 0;
}
