// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The mw57 authors. */
/*
 * librawgadget: the device loop.  Answers GET_DESCRIPTOR (device,
 * configuration, other-speed, qualifier, strings), GET_STATUS,
 * GET_CONFIGURATION, SET_CONFIGURATION, SET/GET_INTERFACE (alt 0, others
 * through ops->set_interface);
 * passes class and vendor requests to ops->control; stops the device's
 * threads on RESET and DISCONNECT so it can enumerate again.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <mw57/rawgadget.h>

#define RG_EP0_MAX 4096

int rg_device_start(struct rg_device *d, const char *driver,
		    const char *device, enum usb_device_speed speed)
{
	int fd, ret;

	rg_thread_setup();
	fd = rg_open();
	if (fd < 0)
		return fd;
	ret = rg_init(fd, driver, device, speed);
	if (!ret)
		ret = rg_run(fd);
	if (ret) {
		close(fd);
		return ret;
	}
	d->fd = fd;
	d->configured = 0;
	return 0;
}

static void rg_deconfigure(struct rg_device *d)
{
	if (d->configured && d->ops->deconfigure)
		d->ops->deconfigure(d);
	d->configured = 0;
	d->alt = 0;
}

/* UTF-16LE string descriptor for index i into buf; its length or -1. */
static int rg_string(const struct rg_device *d, unsigned int i, uint8_t *buf)
{
	const char *s;
	unsigned int n, k;

	if (i == 0) {
		buf[0] = 4;
		buf[1] = USB_DT_STRING;
		buf[2] = 0x09;	/* en-US */
		buf[3] = 0x04;
		return 4;
	}
	if (!d->strings)
		return -1;
	for (k = 1; k < i; k++)
		if (!d->strings[k - 1])
			return -1;
	s = d->strings[i - 1];
	if (!s)
		return -1;
	n = strlen(s);
	if (n > 126)
		n = 126;
	buf[0] = 2 + 2 * n;
	buf[1] = USB_DT_STRING;
	for (k = 0; k < n; k++) {
		buf[2 + 2 * k] = s[k];
		buf[3 + 2 * k] = 0;
	}
	return buf[0];
}

/* The answer to a standard IN request in buf: its length, or -1 to stall. */
static int rg_standard_in(struct rg_device *d, const struct usb_ctrlrequest *c,
			  uint8_t *buf)
{
	unsigned int type = c->wValue >> 8, index = c->wValue & 0xff;
	struct usb_qualifier_descriptor *q = (void *)buf;

	switch (c->bRequest) {
	case USB_REQ_GET_DESCRIPTOR:
		switch (type) {
		case USB_DT_DEVICE:
			memcpy(buf, d->device, sizeof(*d->device));
			return sizeof(*d->device);
		case USB_DT_CONFIG:
		case USB_DT_OTHER_SPEED_CONFIG:
			if (index)
				return -1;
			memcpy(buf, d->config, d->config_len);
			buf[1] = type;
			return d->config_len;
		case USB_DT_DEVICE_QUALIFIER:
			memset(q, 0, sizeof(*q));
			q->bLength = sizeof(*q);
			q->bDescriptorType = USB_DT_DEVICE_QUALIFIER;
			q->bcdUSB = d->device->bcdUSB;
			q->bDeviceClass = d->device->bDeviceClass;
			q->bDeviceSubClass = d->device->bDeviceSubClass;
			q->bDeviceProtocol = d->device->bDeviceProtocol;
			q->bMaxPacketSize0 = d->device->bMaxPacketSize0;
			q->bNumConfigurations = 1;
			return sizeof(*q);
		case USB_DT_STRING:
			return rg_string(d, index, buf);
		default:
			return -1;
		}
	case USB_REQ_GET_STATUS:
		buf[0] = 0;
		buf[1] = 0;
		return 2;
	case USB_REQ_GET_CONFIGURATION:
		buf[0] = d->configured;
		return 1;
	case USB_REQ_GET_INTERFACE:
		buf[0] = d->alt;
		return 1;
	default:
		return -1;
	}
}

/* Standard OUT requests: 0 to acknowledge, -1 to stall. */
static int rg_standard_out(struct rg_device *d, const struct usb_ctrlrequest *c)
{
	const struct usb_config_descriptor *cfg = d->config;
	int ret;

	switch (c->bRequest) {
	case USB_REQ_SET_CONFIGURATION:
		rg_deconfigure(d);
		if (!c->wValue)
			return 0;
		if (c->wValue != cfg->bConfigurationValue)
			return -1;
		ret = d->ops->configure ? d->ops->configure(d) : 0;
		if (ret < 0)
			return -1;
		d->configured = c->wValue;
		rg_vbus_draw(d->fd, cfg->bMaxPower);
		rg_configure(d->fd);
		return 0;
	case USB_REQ_SET_INTERFACE:
		if (!d->ops->set_interface)
			return c->wValue == 0 ? 0 : -1;
		if (!d->configured || d->ops->set_interface(d, c->wValue) < 0)
			return -1;
		d->alt = c->wValue;
		return 0;
	case USB_REQ_SET_ADDRESS:	/* handled by the UDC; never seen */
	case USB_REQ_SET_FEATURE:
	case USB_REQ_CLEAR_FEATURE:
	case USB_REQ_SET_SEL:
	case USB_REQ_SET_ISOCH_DELAY:
		return 0;
	default:
		return -1;
	}
}

static int rg_control(struct rg_device *d, const struct usb_ctrlrequest *c)
{
	uint8_t buf[RG_EP0_MAX];
	int in = (c->bRequestType & USB_DIR_IN) && c->wLength;
	int len;

	len = -1;
	if ((c->bRequestType & USB_TYPE_MASK) == USB_TYPE_STANDARD)
		len = in ? rg_standard_in(d, c, buf) : rg_standard_out(d, c);
	if (len < 0 && d->ops->control) {
		/* the device's own requests: it answers ep0 itself */
		len = d->ops->control(d, c);
		if (d->verbose)
			fprintf(stderr, "rg: ctrl %02x %02x v%04x i%04x l%u: %d\n",
				c->bRequestType, c->bRequest, c->wValue,
				c->wIndex, c->wLength, len);
		return len < 0 ? rg_ep0_stall(d->fd) : 0;
	}
	if (d->verbose)
		fprintf(stderr, "rg: ctrl %02x %02x v%04x i%04x l%u -> %d\n",
			c->bRequestType, c->bRequest, c->wValue, c->wIndex,
			c->wLength, len);
	if (len < 0)
		return rg_ep0_stall(d->fd);
	if (!in)
		return rg_ep0_read(d->fd, buf, 0);
	if (len > c->wLength)
		len = c->wLength;
	return rg_ep0_write(d->fd, buf, len);
}

int rg_device_loop(struct rg_device *d)
{
	struct {
		struct usb_raw_event ev;
		struct usb_ctrlrequest ctrl;
	} e;
	int ret;

	d->loop_tid = (unsigned long)pthread_self();
	while (!d->stop) {
		ret = rg_event_fetch(d->fd, &e.ev, sizeof(e.ctrl));
		if (ret == -EAGAIN)	/* O_NONBLOCK: wait in poll() */
			poll(&(struct pollfd){ .fd = d->fd, .events = POLLIN },
			     1, -1);
		if (ret == -EINTR || ret == -EAGAIN)
			continue;
		if (ret)
			return ret;
		if (d->verbose)
			fprintf(stderr, "rg: event %s\n", rg_event_name(e.ev.type));
		if (d->ops->event)
			d->ops->event(d, &e.ev);
		switch (e.ev.type) {
		case USB_RAW_EVENT_CONTROL:
			ret = rg_control(d, &e.ctrl);
			/* the host gave up on this request: not fatal */
			if (ret < 0 && d->verbose)
				fprintf(stderr, "rg: ep0: %s\n", strerror(-ret));
			break;
		case USB_RAW_EVENT_RESET:
		case USB_RAW_EVENT_DISCONNECT:
			rg_deconfigure(d);
			break;
		default:	/* CONNECT, SUSPEND, RESUME, future types */
			break;
		}
	}
	rg_deconfigure(d);
	return 0;
}

void rg_device_stop(struct rg_device *d)
{
	d->stop = 1;
	if (d->loop_tid && (pthread_t)d->loop_tid != pthread_self())
		pthread_kill((pthread_t)d->loop_tid, SIGUSR1);
}
