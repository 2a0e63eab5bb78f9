/* SPDX-License-Identifier: GPL-2.0 */
/* Copyright (C) 2026 The mw57 authors. */
/*
 * The vendor device of the raw gadget test programs that enumerate one
 * (rg_abi, rg_inflight): bulk IN 0x81, bulk OUT 0x02 (512 bytes) and
 * interrupt IN 0x85, one configuration, one interface.
 */
#ifndef MW57_RG_VENDOR_H
#define MW57_RG_VENDOR_H

#include <mw57/rawgadget.h>

#define VID		0x1d6b
#define PID		0x5702

static struct usb_device_descriptor dev_desc = {
	.bLength = USB_DT_DEVICE_SIZE, .bDescriptorType = USB_DT_DEVICE,
	.bcdUSB = 0x0200, .bDeviceClass = USB_CLASS_VENDOR_SPEC,
	.bMaxPacketSize0 = 64, .idVendor = VID, .idProduct = PID,
	.bcdDevice = 0x0100, .iProduct = 1, .bNumConfigurations = 1,
};

static const struct {
	struct usb_config_descriptor c;
	struct usb_interface_descriptor i;
	struct rg_endpoint_descriptor e[3];
} __attribute__((packed)) cfg_desc = {
	.c = { .bLength = USB_DT_CONFIG_SIZE, .bDescriptorType = USB_DT_CONFIG,
	       .wTotalLength = sizeof(cfg_desc), .bNumInterfaces = 1,
	       .bConfigurationValue = 1, .bmAttributes = USB_CONFIG_ATT_ONE,
	       .bMaxPower = 50 },
	.i = { .bLength = USB_DT_INTERFACE_SIZE,
	       .bDescriptorType = USB_DT_INTERFACE, .bNumEndpoints = 3,
	       .bInterfaceClass = USB_CLASS_VENDOR_SPEC },
	.e = {
		{ USB_DT_ENDPOINT_SIZE, USB_DT_ENDPOINT, USB_DIR_IN | 1,
		  USB_ENDPOINT_XFER_BULK, 512, 0 },
		{ USB_DT_ENDPOINT_SIZE, USB_DT_ENDPOINT, USB_DIR_OUT | 2,
		  USB_ENDPOINT_XFER_BULK, 512, 0 },
		{ USB_DT_ENDPOINT_SIZE, USB_DT_ENDPOINT, USB_DIR_IN | 5,
		  USB_ENDPOINT_XFER_INT, 64, 4 },
	},
};

/* Enable the bulk endpoints whose handle is still -1: 0, or -errno. */
static inline int rg_vendor_enable_bulk(int fd, int *h_in, int *h_out)
{
	struct usb_endpoint_descriptor e;

	if (*h_in < 0) {
		rg_ep_desc(&e, &cfg_desc.e[0]);
		*h_in = rg_ep_enable(fd, &e);
	}
	if (*h_out < 0) {
		rg_ep_desc(&e, &cfg_desc.e[1]);
		*h_out = rg_ep_enable(fd, &e);
	}
	return *h_in < 0 ? *h_in : *h_out < 0 ? *h_out : 0;
}

#endif /* MW57_RG_VENDOR_H */
