// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The mw57 authors. */
/* librawgadget: the /dev/raw-gadget ioctl wrappers. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <mw57/rawgadget.h>

void rg_ep_desc(struct usb_endpoint_descriptor *out,
		const struct rg_endpoint_descriptor *in)
{
	memset(out, 0, sizeof(*out));
	memcpy(out, in, sizeof(*in));
	out->bLength = USB_DT_ENDPOINT_SIZE;
}

static int rg_ret(int ret)
{
	return ret < 0 ? -errno : ret;
}

int rg_open(void)
{
	return rg_ret(open("/dev/raw-gadget", O_RDWR | O_CLOEXEC));
}

int rg_init(int fd, const char *driver, const char *device,
	    enum usb_device_speed speed)
{
	struct usb_raw_init arg;

	memset(&arg, 0, sizeof(arg));
	if (strlen(driver) >= sizeof(arg.driver_name) ||
	    strlen(device) >= sizeof(arg.device_name))
		return -E2BIG;
	strcpy((char *)arg.driver_name, driver);
	strcpy((char *)arg.device_name, device);
	arg.speed = speed;
	return rg_ret(ioctl(fd, USB_RAW_IOCTL_INIT, &arg));
}

int rg_run(int fd)
{
	return rg_ret(ioctl(fd, USB_RAW_IOCTL_RUN, 0));
}

int rg_event_fetch(int fd, struct usb_raw_event *ev, uint32_t data_len)
{
	ev->type = 0;
	ev->length = data_len;
	return rg_ret(ioctl(fd, USB_RAW_IOCTL_EVENT_FETCH, ev));
}

/* One I/O ioctl through a bounce buffer: header + data. */
/*
 * One transfer ioctl.  The stream ioctls take the mw57 stream header, the
 * others upstream's (struct usb_raw_ep_io): the stream one's first 8 bytes.
 */
static int rg_io(int fd, unsigned long req, int handle, uint16_t stream,
		 void *data, uint32_t len, uint16_t flags, int copy_in,
		 int copy_out)
{
	int streamed = req == USB_RAW_MW57_IOCTL_EP_WRITE_STREAM ||
		       req == USB_RAW_MW57_IOCTL_EP_READ_STREAM;
	size_t hdr = streamed ? sizeof(struct usb_raw_mw57_ep_io_stream) :
				sizeof(struct usb_raw_ep_io);
	struct usb_raw_mw57_ep_io_stream *io;
	uint8_t *payload;
	int ret;

	io = calloc(1, sizeof(*io) + len);
	if (!io)
		return -ENOMEM;
	payload = (uint8_t *)io + hdr;
	io->ep = handle;
	io->flags = flags;
	io->length = len;
	if (streamed)
		io->stream_id = stream;
	if (copy_in && len)
		memcpy(payload, data, len);
	ret = rg_ret(ioctl(fd, req, io));
	if (copy_out && ret > 0)
		memcpy(data, payload, (uint32_t)ret < len ? (uint32_t)ret : len);
	free(io);
	return ret;
}

int rg_ep0_write(int fd, const void *data, uint32_t len)
{
	return rg_io(fd, USB_RAW_IOCTL_EP0_WRITE, 0, 0, (void *)data, len, 0,
		     1, 0);
}

int rg_ep0_read(int fd, void *data, uint32_t len)
{
	return rg_io(fd, USB_RAW_IOCTL_EP0_READ, 0, 0, data, len, 0, 0, 1);
}

int rg_ep0_stall(int fd)
{
	return rg_ret(ioctl(fd, USB_RAW_IOCTL_EP0_STALL, 0));
}

int rg_ep_enable(int fd, const struct usb_endpoint_descriptor *desc)
{
	return rg_ret(ioctl(fd, USB_RAW_IOCTL_EP_ENABLE, desc));
}

int rg_ep_disable(int fd, int handle)
{
	return rg_ret(ioctl(fd, USB_RAW_IOCTL_EP_DISABLE, (unsigned long)handle));
}

int rg_ep_write(int fd, int handle, const void *data, uint32_t len,
		uint16_t flags)
{
	return rg_io(fd, USB_RAW_IOCTL_EP_WRITE, handle, 0, (void *)data, len,
		     flags, 1, 0);
}

int rg_ep_read(int fd, int handle, void *data, uint32_t len)
{
	return rg_io(fd, USB_RAW_IOCTL_EP_READ, handle, 0, data, len, 0, 0, 1);
}

int rg_ep_write_io(int fd, struct usb_raw_ep_io *io)
{
	return rg_ret(ioctl(fd, USB_RAW_IOCTL_EP_WRITE, io));
}

int rg_ep_read_io(int fd, struct usb_raw_ep_io *io)
{
	return rg_ret(ioctl(fd, USB_RAW_IOCTL_EP_READ, io));
}

int rg_configure(int fd)
{
	return rg_ret(ioctl(fd, USB_RAW_IOCTL_CONFIGURE, 0));
}

int rg_vbus_draw(int fd, uint32_t units_2ma)
{
	return rg_ret(ioctl(fd, USB_RAW_IOCTL_VBUS_DRAW, (unsigned long)units_2ma));
}

int rg_eps_info(int fd, struct usb_raw_eps_info *info)
{
	return rg_ret(ioctl(fd, USB_RAW_IOCTL_EPS_INFO, info));
}

int rg_ep_set_halt(int fd, int handle)
{
	return rg_ret(ioctl(fd, USB_RAW_IOCTL_EP_SET_HALT, (unsigned long)handle));
}

int rg_ep_clear_halt(int fd, int handle)
{
	return rg_ret(ioctl(fd, USB_RAW_IOCTL_EP_CLEAR_HALT, (unsigned long)handle));
}

int rg_ep_set_wedge(int fd, int handle)
{
	return rg_ret(ioctl(fd, USB_RAW_IOCTL_EP_SET_WEDGE, (unsigned long)handle));
}

int rg_info(int fd, struct usb_raw_mw57_info *info)
{
	return rg_ret(ioctl(fd, USB_RAW_MW57_IOCTL_INFO, info));
}

int rg_ep_enable_ss(int fd, const struct usb_endpoint_descriptor *desc,
		    const struct usb_ss_ep_comp_descriptor *comp)
{
	struct usb_raw_mw57_ep_ss arg = { .desc = *desc, .comp = *comp };

	return rg_ret(ioctl(fd, USB_RAW_MW57_IOCTL_EP_ENABLE_SS, &arg));
}

const char *rg_event_name(uint32_t type)
{
	static const char *const names[] = {
		"INVALID", "CONNECT", "CONTROL", "SUSPEND", "RESUME", "RESET",
		"DISCONNECT",
	};

	return type < sizeof(names) / sizeof(names[0]) ? names[type] : "UNKNOWN";
}

int rg_ep_write_stream(int fd, int handle, uint16_t stream, const void *data,
		       uint32_t len, uint16_t flags)
{
	return rg_io(fd, USB_RAW_MW57_IOCTL_EP_WRITE_STREAM, handle, stream,
		     (void *)data, len, flags, 1, 0);
}

int rg_ep_read_stream(int fd, int handle, uint16_t stream, void *data,
		      uint32_t len)
{
	return rg_io(fd, USB_RAW_MW57_IOCTL_EP_READ_STREAM, handle, stream,
		     data, len, 0, 0, 1);
}

int rg_submit(int fd, int handle, uint64_t tag, void *data, uint32_t len,
	      uint16_t stream, uint16_t flags)
{
	struct usb_raw_mw57_urb arg = {
		.tag = tag, .buffer = (uintptr_t)data, .length = len,
		.ep = handle, .flags = flags, .stream_id = stream,
	};

	return rg_ret(ioctl(fd, USB_RAW_MW57_IOCTL_SUBMIT, &arg));
}

int rg_submit_mapped(int fd, int handle, uint64_t tag, uint64_t offset,
		     uint32_t len, uint16_t stream, uint16_t flags)
{
	struct usb_raw_mw57_urb arg = {
		.tag = tag, .buffer = offset, .length = len, .ep = handle,
		.flags = flags | USB_RAW_MW57_URB_MAPPED, .stream_id = stream,
	};

	return rg_ret(ioctl(fd, USB_RAW_MW57_IOCTL_SUBMIT, &arg));
}

int rg_submit_in(int fd, int handle, uint64_t tag, const void *area,
		 void *data, uint32_t len, uint16_t stream, uint16_t flags)
{
	if (area)
		return rg_submit_mapped(fd, handle, tag,
					(const uint8_t *)data - (const uint8_t *)area,
					len, stream, flags);
	return rg_submit(fd, handle, tag, data, len, stream, flags);
}

void *rg_map(int fd, size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

int rg_reap(int fd, struct usb_raw_mw57_completion *c)
{
	return rg_ret(ioctl(fd, USB_RAW_MW57_IOCTL_REAP, c));
}

int rg_cancel(int fd, int handle, uint64_t tag)
{
	struct usb_raw_mw57_cancel arg = { .tag = tag, .ep = handle };

	return rg_ret(ioctl(fd, USB_RAW_MW57_IOCTL_CANCEL, &arg));
}
