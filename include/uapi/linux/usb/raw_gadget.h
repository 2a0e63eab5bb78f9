/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/* Copyright (C) 2026 The mw57 authors. */
/*
 * USB Raw Gadget: the userspace ABI of /dev/raw-gadget.
 *
 * Every name and number in the first part is the upstream Linux ABI (as of
 * Linux 6.7, events 3-6 included) and must never change.  The second part
 * holds mw57's extensions; they use their own ioctl magic and are answered
 * with EINVAL by upstream kernels, so a client can probe for them.
 *
 * Installed as <prefix>/include/mw57/linux/usb/raw_gadget.h so that the
 * dpkg-owned /usr/include/linux/usb/raw_gadget.h (6.1 version, no events
 * 3-6) is left alone; `pkg-config --cflags mw57-rawgadget` puts it first.
 * The mw57 module includes this file by relative path for the same reason.
 */
#ifndef _UAPI__LINUX_USB_RAW_GADGET_H
#define _UAPI__LINUX_USB_RAW_GADGET_H

#include <asm/ioctl.h>
#include <linux/types.h>
#include <linux/usb/ch9.h>

/* Size of the two UDC name fields of struct usb_raw_init. */
#define UDC_NAME_LENGTH_MAX 128

/*
 * struct usb_raw_init - argument of USB_RAW_IOCTL_INIT.
 * @driver_name: UDC driver name, e.g. "dummy_udc" or "20980000.usb".
 * @device_name: UDC device name, e.g. "dummy_udc.0" or "20980000.usb".
 * @speed: the highest speed to offer, an enum usb_device_speed value
 *	(UNKNOWN means HIGH; WIRELESS and SUPER_PLUS are refused).
 */
struct usb_raw_init {
	__u8	driver_name[UDC_NAME_LENGTH_MAX];
	__u8	device_name[UDC_NAME_LENGTH_MAX];
	__u8	speed;
};

/*
 * Event types of USB_RAW_IOCTL_EVENT_FETCH.  CONNECT: bound to the UDC.
 * CONTROL: a setup packet arrived on ep0 (data: struct usb_ctrlrequest).
 * SUSPEND, RESUME, RESET, DISCONNECT: the bus events of the same names;
 * some UDCs (dwc2) report DISCONNECT where others report RESET.  More types
 * may be added: clients skip the ones they do not know.
 */
enum usb_raw_event_type {
	USB_RAW_EVENT_INVALID = 0,
	USB_RAW_EVENT_CONNECT = 1,
	USB_RAW_EVENT_CONTROL = 2,
	USB_RAW_EVENT_SUSPEND = 3,
	USB_RAW_EVENT_RESUME = 4,
	USB_RAW_EVENT_RESET = 5,
	USB_RAW_EVENT_DISCONNECT = 6,
};

/*
 * struct usb_raw_event - argument of USB_RAW_IOCTL_EVENT_FETCH.
 * @type: an enum usb_raw_event_type value.
 * @length: in: room in @data; out: the event's full data length, which is
 *	larger than what was copied when @data was too small.
 * @data: the event data.
 */
struct usb_raw_event {
	__u32		type;
	__u32		length;
	__u8		data[];
};

/* ZERO: end the transfer with a zero-length packet if it needs one. */
#define USB_RAW_IO_FLAGS_ZERO	0x0001
#define USB_RAW_IO_FLAGS_MASK	0x0001

static inline int usb_raw_io_flags_valid(__u16 flags)
{
	return (flags & ~USB_RAW_IO_FLAGS_MASK) == 0;
}

static inline int usb_raw_io_flags_zero(__u16 flags)
{
	return (flags & USB_RAW_IO_FLAGS_ZERO);
}

/*
 * struct usb_raw_ep_io - argument of the ep0 and endpoint I/O ioctls.
 * @ep: handle from USB_RAW_IOCTL_EP_ENABLE; for ep0 unused but still
 *	required to be below USB_RAW_EPS_NUM_MAX.
 * @flags: USB_RAW_IO_FLAGS_* bits.
 * @length: bytes in @data, at most KMALLOC_MAX_SIZE.
 * @data: data to send, or room for the data received.
 */
struct usb_raw_ep_io {
	__u16		ep;
	__u16		flags;
	__u32		length;
	__u8		data[];
};

/* Entries of struct usb_raw_eps_info. */
#define USB_RAW_EPS_NUM_MAX	30

/* Size of usb_raw_ep_info.name. */
#define USB_RAW_EP_NAME_MAX	16

/* usb_raw_ep_info.addr of an endpoint whose number is configurable. */
#define USB_RAW_EP_ADDR_ANY	0xff

/* Capability bits of a UDC endpoint (bit 0 type_control .. bit 5 dir_out). */
struct usb_raw_ep_caps {
	__u32	type_control	: 1;
	__u32	type_iso	: 1;
	__u32	type_bulk	: 1;
	__u32	type_int	: 1;
	__u32	dir_in		: 1;
	__u32	dir_out		: 1;
};

/*
 * struct usb_raw_ep_limits - limits of a UDC endpoint.
 * @maxpacket_limit: largest wMaxPacketSize it takes.
 * @max_streams: log2 of the number of streams it supports.
 * @reserved: zero.
 */
struct usb_raw_ep_limits {
	__u16	maxpacket_limit;
	__u16	max_streams;
	__u32	reserved;
};

/*
 * struct usb_raw_ep_info - one UDC endpoint.
 * @name: the UDC's name for it, such as "ep1in-bulk" or "ep-a".
 * @addr: the endpoint number a descriptor must carry to get it, or
 *	USB_RAW_EP_ADDR_ANY.
 * @caps: what it can do.
 * @limits: its limits.
 */
struct usb_raw_ep_info {
	__u8				name[USB_RAW_EP_NAME_MAX];
	__u32				addr;
	struct usb_raw_ep_caps		caps;
	struct usb_raw_ep_limits	limits;
};

/* Argument of USB_RAW_IOCTL_EPS_INFO; the index is the endpoint handle. */
struct usb_raw_eps_info {
	struct usb_raw_ep_info	eps[USB_RAW_EPS_NUM_MAX];
};

/*
 * The ioctls.  Each returns a negative errno on failure; the return value
 * on success is given per ioctl.  Arguments declared __u32 are passed by
 * value, not by pointer.
 *
 * INIT: set UDC names and speed, once per open file; 0.
 * RUN: bind to the UDC and start; 0.
 * EVENT_FETCH: wait for the next event; 0.
 * EP0_WRITE / EP0_READ: answer the pending IN / OUT (or zero-length)
 *	control request and wait for completion; bytes transferred.
 * EP_ENABLE: enable an endpoint matching the descriptor; its handle.
 * EP_DISABLE: disable endpoint handle; 0.
 * EP_WRITE / EP_READ: one transfer on endpoint io.ep; bytes transferred.
 * CONFIGURE: put the gadget into the configured state; 0.
 * VBUS_DRAW: set the VBUS current limit, in 2 mA units; 0.
 * EPS_INFO: describe the UDC's non-control endpoints; their number.
 * EP0_STALL: stall the pending control request; 0.
 * EP_SET_HALT / EP_CLEAR_HALT / EP_SET_WEDGE: halt state of an
 *	endpoint handle; 0.
 */
#define USB_RAW_IOCTL_INIT		_IOW('U', 0, struct usb_raw_init)
#define USB_RAW_IOCTL_RUN		_IO('U', 1)
#define USB_RAW_IOCTL_EVENT_FETCH	_IOR('U', 2, struct usb_raw_event)
#define USB_RAW_IOCTL_EP0_WRITE		_IOW('U', 3, struct usb_raw_ep_io)
#define USB_RAW_IOCTL_EP0_READ		_IOWR('U', 4, struct usb_raw_ep_io)
#define USB_RAW_IOCTL_EP_ENABLE		_IOW('U', 5, struct usb_endpoint_descriptor)
#define USB_RAW_IOCTL_EP_DISABLE	_IOW('U', 6, __u32)
#define USB_RAW_IOCTL_EP_WRITE		_IOW('U', 7, struct usb_raw_ep_io)
#define USB_RAW_IOCTL_EP_READ		_IOWR('U', 8, struct usb_raw_ep_io)
#define USB_RAW_IOCTL_CONFIGURE		_IO('U', 9)
#define USB_RAW_IOCTL_VBUS_DRAW		_IOW('U', 10, __u32)
#define USB_RAW_IOCTL_EPS_INFO		_IOR('U', 11, struct usb_raw_eps_info)
#define USB_RAW_IOCTL_EP0_STALL		_IO('U', 12)
#define USB_RAW_IOCTL_EP_SET_HALT	_IOW('U', 13, __u32)
#define USB_RAW_IOCTL_EP_CLEAR_HALT	_IOW('U', 14, __u32)
#define USB_RAW_IOCTL_EP_SET_WEDGE	_IOW('U', 15, __u32)

/*
 * ('U', 16) is taken by an abandoned upstream proposal (SET_TIMEOUT) and is
 * never used here.
 */

/* ------------------------------------------------------------------------
 * mw57 extensions (not in upstream Linux).
 *
 * poll()/epoll: /dev/raw-gadget reports EPOLLIN | EPOLLRDNORM while an
 * event is queued (USB_RAW_IOCTL_EVENT_FETCH will not block), EPOLLERR
 * once the instance has failed, and EPOLLOUT | EPOLLWRNORM always.
 * Upstream kernels have no poll method and report the fd as always
 * readable and writable.
 *
 * It also reports EPOLLRDBAND while a completion of an asynchronous
 * request can be reaped (USB_RAW_MW57_IOCTL_REAP will not block).
 *
 * O_NONBLOCK (at open, or set with fcntl): USB_RAW_IOCTL_EVENT_FETCH and
 * USB_RAW_MW57_IOCTL_REAP fail with EAGAIN when nothing is queued.  The
 * transfer ioctls ignore it.  Upstream kernels refuse to open with
 * O_NONBLOCK (EINVAL).
 */

/* Ioctl magic of the mw57 extensions; unassigned in ioctl-number.rst. */
#define USB_RAW_MW57_IOCTL_MAGIC	0xB9

/*
 * struct usb_raw_mw57_info - argument of USB_RAW_MW57_IOCTL_INFO.
 * @speed: the speed negotiated with the host (enum usb_device_speed).
 * @max_speed: the fastest the UDC can go (enum usb_device_speed); zero
 *	from older mw57 modules, where this byte was reserved.
 * @ep0_maxpacket: the maxpacket value of ep0 at that speed, as the UDC
 *	keeps it (dummy_hcd keeps 9, bMaxPacketSize0's exponent, at
 *	SuperSpeed).
 * @reserved: zero, for future fields.
 */
struct usb_raw_mw57_info {
	__u8	speed;
	__u8	max_speed;
	__u16	ep0_maxpacket;
	__u32	reserved[3];
};

/*
 * Reports the negotiated speed and the ep0 maxpacket of the bound UDC.
 * Returns 0, or EINVAL when the instance is not running, EBUSY when no UDC
 * is bound, ENOTCONN while the UDC reports no speed (a UDC sets it when
 * the host resets the port; dummy_hcd already when the gadget connects).
 */
#define USB_RAW_MW57_IOCTL_INFO	\
	_IOR(USB_RAW_MW57_IOCTL_MAGIC, 0, struct usb_raw_mw57_info)

/*
 * struct usb_raw_mw57_ep_ss - argument of USB_RAW_MW57_IOCTL_EP_ENABLE_SS.
 * @desc: the endpoint descriptor, as USB_RAW_IOCTL_EP_ENABLE takes it.
 * @comp: its SuperSpeed endpoint companion descriptor (bLength 6, type
 *	USB_DT_SS_ENDPOINT_COMP), as the configuration gives it to the host.
 * @reserved: zero.
 */
struct usb_raw_mw57_ep_ss {
	struct usb_endpoint_descriptor		desc;
	struct usb_ss_ep_comp_descriptor	comp;
	__u8					reserved;
};

/*
 * EP_ENABLE for a SuperSpeed connection: the endpoint also gets the
 * companion's burst (bMaxBurst + 1 packets), for iso its mult
 * (bmAttributes bits 1:0, plus 1) and for bulk its streams (2^bmAttributes
 * bits 4:0, of which the UDC endpoint must have as many).  Returns the
 * handle, as EP_ENABLE; EINVAL for a malformed companion or when the
 * connection is slower than SuperSpeed.
 */
#define USB_RAW_MW57_IOCTL_EP_ENABLE_SS	\
	_IOW(USB_RAW_MW57_IOCTL_MAGIC, 1, struct usb_raw_mw57_ep_ss)

/*
 * struct usb_raw_mw57_ep_io_stream - argument of the stream transfers.
 * @ep, @flags, @length: as in struct usb_raw_ep_io.
 * @stream_id: the bulk stream, 1 up to the number of streams that
 *	EP_ENABLE_SS gave the endpoint.
 * @reserved0: zero.
 * @reserved: zero.
 * @data: the data, @length bytes.
 */
struct usb_raw_mw57_ep_io_stream {
	__u16	ep;
	__u16	flags;
	__u32	length;
	__u16	stream_id;
	__u16	reserved0;
	__u32	reserved;
	__u8	data[];
};

/*
 * EP_WRITE and EP_READ on one stream of a bulk endpoint enabled with
 * streams (EP_ENABLE_SS): the transfer completes when the host moves data
 * on that stream.  Bytes transferred; EINVAL for stream 0 (use EP_WRITE
 * and EP_READ) or a stream the endpoint does not have.
 */
#define USB_RAW_MW57_IOCTL_EP_WRITE_STREAM	\
	_IOW(USB_RAW_MW57_IOCTL_MAGIC, 2, struct usb_raw_mw57_ep_io_stream)
#define USB_RAW_MW57_IOCTL_EP_READ_STREAM	\
	_IOWR(USB_RAW_MW57_IOCTL_MAGIC, 3, struct usb_raw_mw57_ep_io_stream)

/*
 * Asynchronous transfers on the non-control endpoints, in the manner of
 * usbfs' SUBMITURB and REAPURB.  Up to USB_RAW_MW57_ASYNC_DEPTH requests
 * per endpoint are in flight, and the requests of an open file that are
 * in flight or not yet reaped hold at most USB_RAW_MW57_ASYNC_BYTES (their
 * buffers plus a record of less than 128 bytes each).  An endpoint
 * with asynchronous requests takes no EP_READ or EP_WRITE (EBUSY), and
 * SUBMIT on an endpoint that a blocking transfer is using is EBUSY too.
 * EP_DISABLE, an unbind of the UDC and close() end every request on the
 * endpoint (status ESHUTDOWN, as the UDC gives it); a bus reset ends them
 * the way the UDC does (dummy_hcd: ESHUTDOWN).  Completions of requests
 * that ended stay reapable until close().
 */
#define USB_RAW_MW57_ASYNC_DEPTH	32
#define USB_RAW_MW57_ASYNC_BYTES	(32 << 20)

/*
 * struct usb_raw_mw57_urb - argument of USB_RAW_MW57_IOCTL_SUBMIT.
 * @tag: the caller's, returned in the completion.
 * @buffer: the data, a user pointer: read at SUBMIT for an IN endpoint,
 *	written at REAP for an OUT endpoint (so it must stay valid until the
 *	completion is reaped).  With USB_RAW_MW57_URB_MAPPED: the offset of
 *	the data in the file's transfer area instead.
 * @length: bytes, at most the kernel's largest kmalloc (4 MiB on amd64).
 * @ep: the endpoint handle, as EP_ENABLE returned it.
 * @flags: USB_RAW_IO_FLAGS_ZERO, as for EP_WRITE, and
 *	USB_RAW_MW57_URB_MAPPED.
 * @stream_id: 0, or a bulk stream of an endpoint enabled with streams.
 * @reserved0: zero.
 * @reserved: zero.
 */
struct usb_raw_mw57_urb {
	__u64	tag;
	__u64	buffer;
	__u32	length;
	__u16	ep;
	__u16	flags;
	__u16	stream_id;
	__u16	reserved0;
	__u32	reserved;
};

/*
 * The transfer area: mmap() of /dev/raw-gadget (MAP_SHARED, offset 0, at
 * most USB_RAW_MW57_MAP_MAX bytes) maps a zeroed kernel buffer that a
 * SUBMIT with USB_RAW_MW57_URB_MAPPED transfers from or into directly,
 * with no copy at SUBMIT or REAP: the UDC reads an IN request's data from
 * the area while it is in flight, and an OUT request's data is in the
 * area when its completion is reaped.  The first mmap() of a file creates
 * the area at its length; it lasts until close(), and later mmap()s map
 * it again at that length (EINVAL for another length, a private mapping
 * or an offset; ENOMEM when no contiguous memory is free).  A mapped
 * request's buffer does not count against USB_RAW_MW57_ASYNC_BYTES.
 * Upstream kernels have no mmap on /dev/raw-gadget (ENODEV).
 */
#define USB_RAW_MW57_MAP_MAX		(4 << 20)
#define USB_RAW_MW57_URB_MAPPED		0x8000

/*
 * struct usb_raw_mw57_completion - what USB_RAW_MW57_IOCTL_REAP returns.
 * @tag: the request's tag.
 * @status: 0, or the negative errno the UDC ended the request with
 *	(ECONNRESET: cancelled; ESHUTDOWN: disabled, disconnected, unbound).
 * @actual: bytes transferred.
 * @frame_number: the (micro)frame of an isochronous transfer, where the
 *	UDC reports it; 0 otherwise.
 * @ep: the endpoint handle.
 * @reserved0: zero.
 * @reserved: zero.
 */
struct usb_raw_mw57_completion {
	__u64	tag;
	__s32	status;
	__u32	actual;
	__u32	frame_number;
	__u16	ep;
	__u16	reserved0;
	__u32	reserved[2];
};

/*
 * struct usb_raw_mw57_cancel - argument of USB_RAW_MW57_IOCTL_CANCEL.
 * @tag: the tag of the request to cancel.
 * @ep: its endpoint handle.
 * @reserved0: zero.
 * @reserved: zero.
 */
struct usb_raw_mw57_cancel {
	__u64	tag;
	__u16	ep;
	__u16	reserved0;
	__u32	reserved;
};

/*
 * SUBMIT queues a transfer and returns 0 at once; its completion is
 * reaped later.  EINVAL as for EP_WRITE/EP_READ and for reserved fields,
 * and for a mapped request with no area or outside it;
 * EBUSY while a blocking transfer uses the endpoint; EAGAIN when the
 * endpoint has USB_RAW_MW57_ASYNC_DEPTH requests in flight, ENOMEM when
 * the file's requests would pass USB_RAW_MW57_ASYNC_BYTES (reap first).
 *
 * REAP takes the oldest completion of any endpoint, copies an OUT
 * transfer's data to its buffer and returns 0.  It waits for one unless
 * the file is O_NONBLOCK (then EAGAIN), and is interrupted by signals
 * (EINTR).  EINVAL before RUN, and once the instance has failed with
 * nothing left to reap.  EFAULT when a buffer is gone: the completion is
 * consumed anyway.
 *
 * CANCEL asks the UDC to end the request with that tag on that endpoint,
 * still in flight; it is reaped with ECONNRESET (or its own status if it
 * ended first).  0, or EINVAL when no such request is in flight.
 */
#define USB_RAW_MW57_IOCTL_SUBMIT	\
	_IOW(USB_RAW_MW57_IOCTL_MAGIC, 4, struct usb_raw_mw57_urb)
#define USB_RAW_MW57_IOCTL_REAP		\
	_IOR(USB_RAW_MW57_IOCTL_MAGIC, 5, struct usb_raw_mw57_completion)
#define USB_RAW_MW57_IOCTL_CANCEL	\
	_IOW(USB_RAW_MW57_IOCTL_MAGIC, 6, struct usb_raw_mw57_cancel)

#endif /* _UAPI__LINUX_USB_RAW_GADGET_H */
