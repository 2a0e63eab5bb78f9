/* SPDX-License-Identifier: GPL-2.0 */
/* Copyright (C) 2026 The mw57 authors. */
/*
 * librawgadget: thin wrappers over the /dev/raw-gadget ioctls, and a small
 * device loop that answers the standard control requests from descriptor
 * tables.  Every function returns a negative errno on failure.
 *
 * Build with `pkg-config --cflags --libs mw57-rawgadget`.
 */
#ifndef MW57_RAWGADGET_H
#define MW57_RAWGADGET_H

#include <stddef.h>
#include <stdint.h>
#include <linux/usb/ch9.h>
#include <linux/usb/raw_gadget.h>

/* The 7-byte endpoint descriptor used in configuration descriptors. */
struct rg_endpoint_descriptor {
	__u8	bLength;
	__u8	bDescriptorType;
	__u8	bEndpointAddress;
	__u8	bmAttributes;
	__le16	wMaxPacketSize;
	__u8	bInterval;
} __attribute__((packed));

/*
 * The device descriptor of a USB 2.0 device with one configuration, ep0
 * of 64 bytes and bcdDevice 1.00; more fields (class, string indexes) in
 * the variable part.
 */
#define RG_DEVICE_DESC(vid, pid, ...) {				\
	.bLength = USB_DT_DEVICE_SIZE,				\
	.bDescriptorType = USB_DT_DEVICE,			\
	.bcdUSB = 0x0200,					\
	.bMaxPacketSize0 = 64,					\
	.idVendor = (vid),					\
	.idProduct = (pid),					\
	.bcdDevice = 0x0100,					\
	.bNumConfigurations = 1,				\
	__VA_ARGS__						\
}

/*
 * Initializers for the descriptor tables of a one-configuration,
 * one-interface device (bus-powered, 100 mA): the configuration header
 * over the whole table CFG, the interface header, a bulk endpoint.
 */
#define RG_CONFIG_DESC(cfg) {					\
	.bLength = USB_DT_CONFIG_SIZE,				\
	.bDescriptorType = USB_DT_CONFIG,			\
	.wTotalLength = sizeof(cfg),				\
	.bNumInterfaces = 1,					\
	.bConfigurationValue = 1,				\
	.bmAttributes = USB_CONFIG_ATT_ONE,			\
	.bMaxPower = 50,					\
}
#define RG_INTERFACE_DESC(n_eps, class, ...) {			\
	.bLength = USB_DT_INTERFACE_SIZE,			\
	.bDescriptorType = USB_DT_INTERFACE,			\
	.bNumEndpoints = (n_eps),				\
	.bInterfaceClass = (class),				\
	__VA_ARGS__						\
}
#define RG_BULK_EP_DESC(addr, maxpacket) {			\
	.bLength = USB_DT_ENDPOINT_SIZE,			\
	.bDescriptorType = USB_DT_ENDPOINT,			\
	.bEndpointAddress = (addr),				\
	.bmAttributes = USB_ENDPOINT_XFER_BULK,			\
	.wMaxPacketSize = (maxpacket),				\
}

/* A SuperSpeed endpoint companion: burst and streams in the variable part. */
#define RG_SS_COMP_DESC(...) {					\
	.bLength = USB_DT_SS_EP_COMP_SIZE,			\
	.bDescriptorType = USB_DT_SS_ENDPOINT_COMP,		\
	__VA_ARGS__						\
}

/* The 9-byte form EP_ENABLE takes, from a configuration entry. */
void rg_ep_desc(struct usb_endpoint_descriptor *out,
		const struct rg_endpoint_descriptor *in);

/* --- ioctl wrappers ------------------------------------------------------ */

int rg_open(void);			/* fd */
int rg_init(int fd, const char *driver, const char *device,
	    enum usb_device_speed speed);
int rg_run(int fd);
/* Fetch one event; data_len is the room after the header.  0 or -errno. */
int rg_event_fetch(int fd, struct usb_raw_event *ev, uint32_t data_len);
int rg_ep0_write(int fd, const void *data, uint32_t len);	/* bytes */
int rg_ep0_read(int fd, void *data, uint32_t len);		/* bytes */
int rg_ep0_stall(int fd);
int rg_ep_enable(int fd, const struct usb_endpoint_descriptor *desc);
int rg_ep_disable(int fd, int handle);
int rg_ep_write(int fd, int handle, const void *data, uint32_t len,
		uint16_t flags);				/* bytes */
int rg_ep_read(int fd, int handle, void *data, uint32_t len);	/* bytes */
/*
 * Zero-copy variants: io->ep, flags and length set by the caller, data
 * follows io in the same buffer.
 */
int rg_ep_write_io(int fd, struct usb_raw_ep_io *io);
int rg_ep_read_io(int fd, struct usb_raw_ep_io *io);
int rg_configure(int fd);
int rg_vbus_draw(int fd, uint32_t units_2ma);
int rg_eps_info(int fd, struct usb_raw_eps_info *info);	/* count */
int rg_ep_set_halt(int fd, int handle);
int rg_ep_clear_halt(int fd, int handle);
int rg_ep_set_wedge(int fd, int handle);
/* mw57 extensions; -EINVAL on upstream kernels. */
int rg_info(int fd, struct usb_raw_mw57_info *info);
/* EP_ENABLE with the endpoint's SuperSpeed companion: the handle. */
int rg_ep_enable_ss(int fd, const struct usb_endpoint_descriptor *desc,
		    const struct usb_ss_ep_comp_descriptor *comp);
/* EP_WRITE and EP_READ on bulk stream 1..n of such an endpoint: bytes. */
int rg_ep_write_stream(int fd, int handle, uint16_t stream, const void *data,
		       uint32_t len, uint16_t flags);
int rg_ep_read_stream(int fd, int handle, uint16_t stream, void *data,
		      uint32_t len);
/*
 * Asynchronous transfers: submit returns 0 at once; @data must stay valid
 * until the completion is reaped (an OUT endpoint's data lands there at
 * reap).  Reap waits unless the fd is O_NONBLOCK (-EAGAIN then).
 */
int rg_submit(int fd, int handle, uint64_t tag, void *data, uint32_t len,
	      uint16_t stream, uint16_t flags);
int rg_reap(int fd, struct usb_raw_mw57_completion *c);
int rg_cancel(int fd, int handle, uint64_t tag);
/*
 * The transfer area (mw57): rg_map() maps the file's area of @len bytes
 * (NULL and errno on failure); rg_submit_mapped() submits the @len bytes
 * at @offset in it, which the UDC reads or fills in place (no copy).
 * rg_submit_in() submits @data, which is in @area when that is not NULL
 * (mapped), else anywhere (copied): for callers that work either way.
 */
void *rg_map(int fd, size_t len);
int rg_submit_mapped(int fd, int handle, uint64_t tag, uint64_t offset,
		     uint32_t len, uint16_t stream, uint16_t flags);
int rg_submit_in(int fd, int handle, uint64_t tag, const void *area,
		 void *data, uint32_t len, uint16_t stream, uint16_t flags);

const char *rg_event_name(uint32_t type);

/* --- endpoint threads ---------------------------------------------------- */

/*
 * A worker blocked in an ioctl is stopped by setting ->stop and sending it
 * SIGUSR1 (installed without SA_RESTART), so the ioctl returns EINTR.
 */
struct rg_thread {
	unsigned long tid;	/* pthread_t */
	volatile int stop;
	int running;
};

void rg_thread_setup(void);	/* install the SIGUSR1 handler once */
int rg_thread_start(struct rg_thread *t, void *(*fn)(void *), void *arg);
void rg_thread_stop(struct rg_thread *t);

/* --- device loop ---------------------------------------------------------- */

struct rg_device;

struct rg_device_ops {
	/* SET_CONFIGURATION(value != 0): enable endpoints, start threads. */
	int (*configure)(struct rg_device *d);
	/* Reset, disconnect, SET_CONFIGURATION(0): stop threads, disable. */
	void (*deconfigure)(struct rg_device *d);
	/*
	 * Class and vendor requests.  Return the bytes answered (IN), 0 after
	 * an OUT read, or a negative value to stall.  May be NULL.
	 */
	int (*control)(struct rg_device *d, const struct usb_ctrlrequest *c);
	/* Every event, before it is handled.  May be NULL. */
	void (*event)(struct rg_device *d, const struct usb_raw_event *ev);
	/*
	 * SET_INTERFACE(alt) of the configured device: switch endpoints.
	 * 0, or negative to stall.  NULL: only alternate setting 0 exists.
	 */
	int (*set_interface)(struct rg_device *d, unsigned int alt);
};

struct rg_device {
	int fd;
	const struct usb_device_descriptor *device;
	const void *config;		/* full configuration descriptor */
	size_t config_len;
	const char *const *strings;	/* index 1.., NULL terminated */
	const struct rg_device_ops *ops;
	void *priv;
	int configured;			/* current bConfigurationValue */
	int alt;			/* current alternate setting */
	int verbose;
	volatile int stop;		/* rg_device_stop() */
	unsigned long loop_tid;		/* pthread_t running the loop */
};

/* open, INIT, RUN: returns 0 and sets d->fd */
int rg_device_start(struct rg_device *d, const char *driver,
		    const char *device, enum usb_device_speed speed);
/* Handle events until rg_device_stop() or an error; returns 0 or -errno. */
int rg_device_loop(struct rg_device *d);
/* End rg_device_loop from any thread (it may be blocked in EVENT_FETCH). */
void rg_device_stop(struct rg_device *d);

/* --- command line of the rg tools ------------------------------------------ */

struct rg_options {
	const char *driver;		/* UDC driver, default dummy_udc */
	const char *device;		/* UDC device, default dummy_udc.0 */
	enum usb_device_speed speed;	/* default high */
};

#define RG_OPTSTRING	"vd:D:s:p:"
#define RG_USAGE	"[-v] [-d UDC_DEVICE] [-D UDC_DRIVER] [-s SPEED] [-p VID:PID]"

void rg_options_init(struct rg_options *o);
/*
 * One of the shared options (-v, -d, -D, -s, -p VID:PID into desc)?
 * 1 when handled, 0 when opt is not shared, -1 for a bad argument.
 */
int rg_option(int opt, const char *arg, struct rg_options *o,
	      struct rg_device *d, struct usb_device_descriptor *desc);
/* Start on the UDC, run the loop, close; messages prefixed with prog. */
int rg_device_main(struct rg_device *d, const struct rg_options *o,
		   const char *prog);

#endif /* MW57_RAWGADGET_H */
