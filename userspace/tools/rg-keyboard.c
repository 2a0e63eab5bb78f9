// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The mw57 authors. */
/*
 * rg-keyboard: a USB HID boot keyboard made with /dev/raw-gadget.  Every
 * line read from stdin is typed (letters, digits, space, newline); it
 * re-enumerates after a bus reset or disconnect and exits at EOF.
 *
 *   rg-keyboard [-v] [-d UDC_DEVICE] [-s SPEED] [-p VID:PID] < text
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mw57/rawgadget.h>

#define KB_EP_ADDR	(USB_DIR_IN | 1)
#define HID_DT_HID	0x21
#define HID_DT_REPORT	0x22
#define HID_GET_REPORT	0x01
#define HID_GET_IDLE	0x02
#define HID_GET_PROTOCOL 0x03
#define HID_SET_REPORT	0x09
#define HID_SET_IDLE	0x0a
#define HID_SET_PROTOCOL 0x0b

/* HID 1.11 appendix B.1: the boot keyboard report. */
static const uint8_t kb_report_desc[] = {
	0x05, 0x01, 0x09, 0x06, 0xa1, 0x01,	/* desktop, keyboard, app */
	0x05, 0x07, 0x19, 0xe0, 0x29, 0xe7,	/* modifiers e0..e7 */
	0x15, 0x00, 0x25, 0x01, 0x75, 0x01, 0x95, 0x08, 0x81, 0x02,
	0x95, 0x01, 0x75, 0x08, 0x81, 0x03,	/* reserved byte */
	0x95, 0x05, 0x75, 0x01, 0x05, 0x08,	/* 5 LEDs */
	0x19, 0x01, 0x29, 0x05, 0x91, 0x02,
	0x95, 0x01, 0x75, 0x03, 0x91, 0x03,	/* LED padding */
	0x95, 0x06, 0x75, 0x08, 0x15, 0x00,	/* 6 key codes */
	0x25, 0x65, 0x05, 0x07, 0x19, 0x00, 0x29, 0x65, 0x81, 0x00,
	0xc0,
};

struct kb_hid_desc {
	uint8_t bLength, bDescriptorType;
	uint16_t bcdHID;
	uint8_t bCountryCode, bNumDescriptors, bReportType;
	uint16_t wReportLength;
} __attribute__((packed));

static struct usb_device_descriptor kb_device =
	RG_DEVICE_DESC(0x1d6b, 0x5701,
		       .iManufacturer = 1, .iProduct = 2, .iSerialNumber = 3);

static const struct {
	struct usb_config_descriptor config;
	struct usb_interface_descriptor intf;
	struct kb_hid_desc hid;
	struct rg_endpoint_descriptor ep;
} __attribute__((packed)) kb_config = {
	.config = RG_CONFIG_DESC(kb_config),
	.intf = RG_INTERFACE_DESC(1, USB_CLASS_HID,
				  .bInterfaceSubClass = 1,	/* boot */
				  .bInterfaceProtocol = 1),	/* keyboard */
	.hid = {
		.bLength = sizeof(struct kb_hid_desc),
		.bDescriptorType = HID_DT_HID,
		.bcdHID = 0x0111,
		.bNumDescriptors = 1,
		.bReportType = HID_DT_REPORT,
		.wReportLength = sizeof(kb_report_desc),
	},
	.ep = {
		.bLength = USB_DT_ENDPOINT_SIZE,
		.bDescriptorType = USB_DT_ENDPOINT,
		.bEndpointAddress = KB_EP_ADDR,
		.bmAttributes = USB_ENDPOINT_XFER_INT,
		.wMaxPacketSize = 8,
		.bInterval = 4,
	},
};

static const char *const kb_strings[] = { "mw57", "mw57 keyboard", "0001", NULL };

struct kb {
	int ep;			/* handle, or -1 */
	struct rg_thread worker;
	struct rg_device *d;
};

/* HID usage for a character, with shift in bit 8; 0 when untypable. */
static unsigned int kb_usage(int c)
{
	if (c >= 'a' && c <= 'z')
		return 4 + c - 'a';
	if (c >= 'A' && c <= 'Z')
		return 0x100 | (4 + c - 'A');
	if (c >= '1' && c <= '9')
		return 30 + c - '1';
	switch (c) {
	case '0': return 39;
	case '\n': return 40;
	case ' ': return 44;
	case '-': return 45;
	case '.': return 55;
	default: return 0;
	}
}

static int kb_send(struct kb *kb, unsigned int usage)
{
	uint8_t report[8] = { 0 };
	int ret;

	report[0] = usage & 0x100 ? 0x02 : 0;	/* left shift */
	report[2] = usage & 0xff;
	do {
		ret = rg_ep_write(kb->d->fd, kb->ep, report, sizeof(report), 0);
	} while (ret == -EINTR && !kb->worker.stop);
	return ret < 0 ? ret : 0;
}

/* The worker: type stdin until EOF, the bus goes away, or stop. */
static void *kb_type(void *arg)
{
	struct kb *kb = arg;
	char line[256];
	char *p;

	clearerr(stdin);	/* a stopped worker leaves EINTR behind */
	while (!kb->worker.stop && fgets(line, sizeof(line), stdin)) {
		for (p = line; *p && !kb->worker.stop; p++) {
			unsigned int u = kb_usage(*p);

			if (!u)
				continue;
			if (kb_send(kb, u) || kb_send(kb, 0))
				return NULL;
		}
		if (kb->d->verbose)
			fprintf(stderr, "rg-keyboard: typed %s", line);
	}
	if (feof(stdin))
		rg_device_stop(kb->d);
	return NULL;
}

static int kb_configure(struct rg_device *d)
{
	struct kb *kb = d->priv;
	struct usb_endpoint_descriptor ep;
	int ret;

	rg_ep_desc(&ep, &kb_config.ep);
	kb->ep = rg_ep_enable(d->fd, &ep);
	if (kb->ep < 0) {
		fprintf(stderr, "rg-keyboard: EP_ENABLE: %s\n", strerror(-kb->ep));
		return kb->ep;
	}
	ret = rg_thread_start(&kb->worker, kb_type, kb);
	if (ret) {
		rg_ep_disable(d->fd, kb->ep);
		kb->ep = -1;
	}
	return ret;
}

static void kb_deconfigure(struct rg_device *d)
{
	struct kb *kb = d->priv;

	rg_thread_stop(&kb->worker);
	if (kb->ep >= 0)
		rg_ep_disable(d->fd, kb->ep);
	kb->ep = -1;
}

static int kb_control(struct rg_device *d, const struct usb_ctrlrequest *c)
{
	uint8_t buf[8] = { 0 };
	unsigned int type = c->bRequestType & USB_TYPE_MASK;
	const void *data = NULL;
	int len = 0;

	if (type == USB_TYPE_STANDARD && c->bRequest == USB_REQ_GET_DESCRIPTOR) {
		if (c->wValue >> 8 == HID_DT_REPORT) {
			data = kb_report_desc;
			len = sizeof(kb_report_desc);
		} else if (c->wValue >> 8 == HID_DT_HID) {
			data = &kb_config.hid;
			len = sizeof(kb_config.hid);
		} else {
			return -1;
		}
	} else if (type == USB_TYPE_CLASS) {
		switch (c->bRequest) {
		case HID_SET_IDLE:
		case HID_SET_PROTOCOL:
			return rg_ep0_read(d->fd, buf, 0) < 0 ? -1 : 0;
		case HID_SET_REPORT:	/* LEDs */
			return rg_ep0_read(d->fd, buf, c->wLength > 8 ? 8 :
					   c->wLength) < 0 ? -1 : 0;
		case HID_GET_REPORT:
		case HID_GET_IDLE:
		case HID_GET_PROTOCOL:
			data = buf;
			len = c->bRequest == HID_GET_REPORT ? 8 : 1;
			break;
		default:
			return -1;
		}
	} else {
		return -1;
	}
	if (len > c->wLength)
		len = c->wLength;
	return rg_ep0_write(d->fd, data, len);
}

static const struct rg_device_ops kb_ops = {
	.configure = kb_configure,
	.deconfigure = kb_deconfigure,
	.control = kb_control,
};

int main(int argc, char **argv)
{
	struct kb kb = { .ep = -1 };
	struct rg_device d = {
		.device = &kb_device,
		.config = &kb_config,
		.config_len = sizeof(kb_config),
		.strings = kb_strings,
		.ops = &kb_ops,
		.priv = &kb,
	};
	struct rg_options o;
	int opt;

	rg_options_init(&o);
	while ((opt = getopt(argc, argv, RG_OPTSTRING)) != -1) {
		if (rg_option(opt, optarg, &o, &d, &kb_device) <= 0) {
			fprintf(stderr, "usage: rg-keyboard " RG_USAGE " < text\n");
			return 2;
		}
	}
	if (o.speed == USB_SPEED_LOW || o.speed == USB_SPEED_FULL)
		kb_device.bcdUSB = 0x0110;
	kb.d = &d;
	return rg_device_main(&d, &o, "rg-keyboard");
}
