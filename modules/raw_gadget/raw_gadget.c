// SPDX-License-Identifier: GPL-2.0
/*
 * USB Raw Gadget for Debian's kernels: /dev/raw-gadget, the upstream
 * userspace ABI (ioctls 0-15, events 1-6) plus mw57's extensions (poll,
 * O_NONBLOCK, info, SuperSpeed, streams, asynchronous requests).  See
 * README.md next to this file.
 *
 * Ownership, the answer to upstream's lifetime bugs:
 *
 * - The open file owns struct rg_dev.  release() unregisters the gadget
 *   driver, which returns only after unbind; then nothing else can reach
 *   the device and it is freed.  There is no reference count.
 * - Endpoint descriptors live inside struct rg_ep (rg_dev.eps[]): usb_ep
 *   ->desc points there while the endpoint is enabled, and disable and
 *   unbind clear it (and comp_desc) before the instance can be freed.
 * - Each endpoint's usb_request belongs to its rg_ep slot.  Only the thread
 *   that set the slot's op (enable, disable, I/O) touches it; unbind waits
 *   for every op to finish before disabling endpoints and freeing requests.
 * - Transfer buffers belong to the ioctl that allocated them; an
 *   interrupted transfer is dequeued and waited for before they are freed.
 * - An asynchronous request (struct rg_urb) owns its buffer until it is
 *   reaped or the file is released.  Its usb_request comes from the
 *   endpoint slot's pool, which lives until the endpoint is disabled;
 *   dev->async_mutex serializes submitting, cancelling and tearing down
 *   endpoints, so a pooled request is never reused or freed under a
 *   dequeue.  Disable and unbind wait until the slot has nothing in
 *   flight.
 *
 * Copyright (C) 2026 The mw57 authors.
 */

#include <linux/compat.h>
#include <linux/ctype.h>
#include <linux/idr.h>
#include <linux/kernel.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <linux/usb/ch9.h>
#include <linux/usb/composite.h>
#include <linux/usb/gadget.h>

/* Our copy of the uapi header: the kernel's own may be the 6.1 version. */
#include <linux/usb/raw_gadget.h>

#define RG_DEVICE_NAME		"raw-gadget"
#define RG_DRIVER_PREFIX	"raw-gadget."
#define RG_EVENT_QUEUE_SIZE	16

enum rg_state {
	RG_OPENED,
	RG_INITIALIZING,	/* INIT in progress, internal */
	RG_INITIALIZED,
	RG_REGISTERING,
	RG_RUNNING,
	RG_FAILED,
};

/* What the thread that owns an endpoint slot is doing with it. */
enum rg_op {
	RG_OP_NONE,
	RG_OP_ENABLE,
	RG_OP_DISABLE,
	RG_OP_IO,
};

struct rg_event {
	u32 type;
	u32 length;
	u8 data[];
};

struct rg_ep {
	struct usb_ep *ep;		/* the UDC's endpoint, while bound */
	u8 addr;			/* number from its name, or ANY */
	bool enabled;
	enum rg_op op;
	struct usb_request *req;	/* allocated while enabled */
	struct usb_endpoint_descriptor desc;	/* ep->desc points here */
	struct usb_ss_ep_comp_descriptor comp;	/* and ep->comp_desc here */
	struct completion done;

	/* asynchronous requests; the pool is freed when the slot is disabled */
	struct usb_request *pool[USB_RAW_MW57_ASYNC_DEPTH];
	u32 pool_busy;			/* bit i: pool[i] is in flight */
	struct list_head urbs;		/* in flight */
};

/* An asynchronous request, from SUBMIT until REAP (or release). */
struct rg_urb {
	struct list_head node;		/* rg_ep.urbs, then rg_dev.done */
	struct rg_dev *dev;
	struct rg_ep *ep;
	struct usb_request *req;	/* pooled, while in flight */
	unsigned int slot;		/* its index in ep->pool */
	u64 tag;
	void __user *ubuf;
	void *buf;
	u32 length;
	bool out;			/* OUT endpoint: data goes to ubuf */
	bool mapped;			/* buf is in the transfer area */
	u16 handle;
	int status;
	u32 actual;
	u32 frame_number;
};

struct rg_dev {
	spinlock_t lock;		/* everything below but the names */
	enum rg_state state;
	struct usb_gadget *gadget;	/* set by bind, cleared by unbind */
	bool unbinding;			/* no new endpoint or ep0 work */
	bool registered;		/* usb_gadget_register_driver() done */

	/* the event FIFO */
	struct rg_event *events[RG_EVENT_QUEUE_SIZE];
	unsigned int ev_head;
	unsigned int ev_count;
	wait_queue_head_t ev_wait;

	/* ep0 */
	struct usb_request *ep0_req;
	bool ep0_in_pending;
	bool ep0_out_pending;
	bool ep0_busy;
	struct completion ep0_done;

	/* the UDC's non-control endpoints, at most USB_RAW_EPS_NUM_MAX */
	struct rg_ep eps[USB_RAW_EPS_NUM_MAX];
	unsigned int eps_num;
	wait_queue_head_t op_wait;	/* an op or ep0 transfer ended */

	/* asynchronous requests */
	struct mutex async_mutex;	/* submit, cancel, endpoint teardown */
	struct list_head done;		/* completed, oldest first */
	size_t async_bytes;		/* of the in-flight and unreaped urbs */
	void *map;			/* the transfer area, set once by mmap */
	size_t map_size;

	/* set once by INIT; read-only afterwards */
	int id;
	char drv_name[sizeof(RG_DRIVER_PREFIX) + 10];
	char udc_driver[UDC_NAME_LENGTH_MAX];
	char udc_device[UDC_NAME_LENGTH_MAX];
	struct usb_gadget_driver driver;
};

static DEFINE_IDA(rg_ida);

static struct miscdevice rg_misc;

/*
 * Why an ioctl failed, for whoever turns on the module's dynamic debug
 * (echo 'module raw_gadget +p' >/sys/kernel/debug/dynamic_debug/control):
 * "raw-gadget.<id>: <ioctl>: <reason>".
 */
#define rg_why(dev, op, fmt, ...)					\
	dev_dbg(rg_misc.this_device, "%s: %s: " fmt, rg_name(dev), op,	\
		##__VA_ARGS__)

/* "raw-gadget.<id>" once INIT has named the instance. */
static const char *rg_name(const struct rg_dev *dev)
{
	return dev->drv_name[0] ? dev->drv_name : RG_DEVICE_NAME;
}

/* --- events ------------------------------------------------------------ */

/*
 * Queue an event; dev->lock held.  A full queue fails the instance, as
 * upstream does since 6.7 (no WARN: a client that stops fetching can
 * overflow it with bus events).
 */
static int rg_event_add(struct rg_dev *dev, u32 type, const void *data,
			u32 length)
{
	struct rg_event *ev;

	if (dev->ev_count == RG_EVENT_QUEUE_SIZE) {
		dev_dbg(&dev->gadget->dev, "event queue full, instance failed\n");
		dev->state = RG_FAILED;
		wake_up_all(&dev->ev_wait);
		return -ENOMEM;
	}
	ev = kmalloc(struct_size(ev, data, length), GFP_ATOMIC);
	if (!ev)
		return -ENOMEM;
	ev->type = type;
	ev->length = length;
	if (length)
		memcpy(ev->data, data, length);
	dev->events[(dev->ev_head + dev->ev_count) % RG_EVENT_QUEUE_SIZE] = ev;
	dev->ev_count++;
	wake_up_all(&dev->ev_wait);
	return 0;
}

/* Take the oldest event, or NULL; dev->lock held. */
static struct rg_event *rg_event_take(struct rg_dev *dev)
{
	struct rg_event *ev;

	if (!dev->ev_count)
		return NULL;
	ev = dev->events[dev->ev_head];
	dev->events[dev->ev_head] = NULL;
	dev->ev_head = (dev->ev_head + 1) % RG_EVENT_QUEUE_SIZE;
	dev->ev_count--;
	return ev;
}

/*
 * Drop the queued CONTROL events; dev->lock held.  After a reset or a
 * disconnect the host has abandoned those requests: an answer to one would
 * go to the next request instead.
 */
static void rg_event_drop_control(struct rg_dev *dev)
{
	unsigned int i, kept = 0;

	for (i = 0; i < dev->ev_count; i++) {
		unsigned int from = (dev->ev_head + i) % RG_EVENT_QUEUE_SIZE;
		struct rg_event *ev = dev->events[from];

		dev->events[from] = NULL;
		if (ev->type == USB_RAW_EVENT_CONTROL) {
			kfree(ev);
			continue;
		}
		dev->events[(dev->ev_head + kept++) % RG_EVENT_QUEUE_SIZE] = ev;
	}
	if (kept != dev->ev_count)
		dev_dbg(&dev->gadget->dev, "%u unfetched control requests dropped\n",
			dev->ev_count - kept);
	dev->ev_count = kept;
}

/* --- gadget driver callbacks ---------------------------------------------- */

/* Bound or binding, and not failed: callbacks may queue events. */
static bool rg_active(struct rg_dev *dev)
{
	return dev->state == RG_REGISTERING || dev->state == RG_RUNNING;
}

static struct rg_dev *rg_from_gadget(struct usb_gadget *gadget)
{
	return get_gadget_data(gadget);
}

/*
 * A UDC may give a request back from inside usb_ep_queue() (an error it
 * finds late) and from inside usb_ep_dequeue(), and both are called with
 * dev->lock held, so this must not take it: complete() takes only the
 * completion's own lock.  The lock is held across the queueing so that
 * unbind, which sets dev->unbinding and dequeues every RG_OP_IO request
 * under it, sees each request either queued (and dequeues it) or not yet
 * started (the ioctl then finds unbinding set and gives up).
 */
static void rg_complete(struct usb_ep *ep, struct usb_request *req)
{
	complete(req->context);
}

/*
 * An asynchronous request ended: keep its result for REAP and give its
 * pooled usb_request back.  Never called with dev->lock held: SUBMIT,
 * CANCEL and teardown call the UDC without it.
 */
static void rg_urb_complete(struct usb_ep *ep, struct usb_request *req)
{
	struct rg_urb *urb = req->context;
	struct rg_dev *dev = urb->dev;
	unsigned long flags;

	spin_lock_irqsave(&dev->lock, flags);
	urb->status = req->status;
	urb->actual = req->actual;
	urb->frame_number = req->frame_number;
	urb->req = NULL;
	urb->ep->pool_busy &= ~BIT(urb->slot);
	list_move_tail(&urb->node, &dev->done);
	wake_up_all(&dev->ev_wait);
	if (!urb->ep->pool_busy)
		wake_up_all(&dev->op_wait);
	spin_unlock_irqrestore(&dev->lock, flags);
}

/* The endpoint number in a fixed UDC name such as "ep1in-bulk", or ANY. */
static u8 rg_ep_addr(const char *name)
{
	unsigned int n = 0;
	const char *p = name + 2;

	if (strncmp(name, "ep", 2) || !isdigit(*p))
		return USB_RAW_EP_ADDR_ANY;
	while (isdigit(*p) && n <= USB_ENDPOINT_NUMBER_MASK)
		n = n * 10 + (*p++ - '0');
	return n <= USB_ENDPOINT_NUMBER_MASK ? n : USB_RAW_EP_ADDR_ANY;
}

/*
 * Point the UDC's endpoint at the slot's descriptors and set every field
 * the UDC's previous user (a composite function, say) may have left: its
 * SuperSpeed companion is freed memory by now.  Burst and mult as the
 * gadget core's config_ep_by_speed() derives them, from the slot's
 * companion when @ss.  Only the slot's owner (op set) calls this.
 */
static void rg_ep_config(struct rg_ep *ep, bool high_speed, bool ss)
{
	struct usb_ep *uep = ep->ep;

	uep->desc = &ep->desc;
	uep->comp_desc = ss ? &ep->comp : NULL;
	uep->maxburst = 0;
	uep->mult = 1;
	if (high_speed && (usb_endpoint_xfer_isoc(&ep->desc) ||
			   usb_endpoint_xfer_int(&ep->desc)))
		uep->mult = usb_endpoint_maxp_mult(&ep->desc);
	if (!ss)
		return;
	if (usb_endpoint_xfer_isoc(&ep->desc))
		uep->mult = USB_SS_MULT(ep->comp.bmAttributes);
	uep->maxburst = ep->comp.bMaxBurst + 1;
}

/* Leave nothing in the UDC pointing into the slot, freed at release. */
static void rg_ep_unconfig(struct rg_ep *ep)
{
	ep->ep->desc = NULL;
	ep->ep->comp_desc = NULL;
}

/*
 * Disable an enabled endpoint slot and free its requests.  The caller owns
 * the slot (its op, or unbind) and holds dev->async_mutex, so no request
 * is being submitted or cancelled.  The UDC gives back every queued
 * request before usb_ep_disable() returns (ESHUTDOWN); the wait is for one
 * that does it later.
 */
static void rg_ep_teardown(struct rg_dev *dev, struct rg_ep *ep)
{
	unsigned int i;

	usb_ep_disable(ep->ep);
	wait_event(dev->op_wait, !READ_ONCE(ep->pool_busy));
	rg_ep_unconfig(ep);
	usb_ep_free_request(ep->ep, ep->req);
	ep->req = NULL;
	for (i = 0; i < ARRAY_SIZE(ep->pool); i++) {
		if (ep->pool[i])
			usb_ep_free_request(ep->ep, ep->pool[i]);
		ep->pool[i] = NULL;
	}
}

static int rg_bind(struct usb_gadget *gadget, struct usb_gadget_driver *driver)
{
	struct rg_dev *dev = container_of(driver, struct rg_dev, driver);
	struct usb_request *req;
	struct usb_ep *ep;
	unsigned long flags;
	unsigned int i = 0, total = 0;
	int ret;

	if (strcmp(gadget->name, dev->udc_driver))
		return -ENODEV;

	req = usb_ep_alloc_request(gadget->ep0, GFP_KERNEL);
	if (!req)
		return -ENOMEM;

	spin_lock_irqsave(&dev->lock, flags);
	dev->gadget = gadget;
	dev->ep0_req = req;
	dev->ep0_in_pending = false;
	dev->ep0_out_pending = false;
	/* Bounded: a UDC with more endpoints than the ABI can describe. */
	list_for_each_entry(ep, &gadget->ep_list, ep_list) {
		if (total++ >= USB_RAW_EPS_NUM_MAX)
			continue;
		dev->eps[i].ep = ep;
		dev->eps[i].addr = rg_ep_addr(ep->name);
		dev->eps[i].enabled = false;
		dev->eps[i].op = RG_OP_NONE;
		dev->eps[i].req = NULL;
		i++;
	}
	dev->eps_num = i;
	set_gadget_data(gadget, dev);
	ret = rg_event_add(dev, USB_RAW_EVENT_CONNECT, NULL, 0);
	if (ret) {
		set_gadget_data(gadget, NULL);
		dev->gadget = NULL;
		dev->ep0_req = NULL;
		dev->eps_num = 0;
	}
	spin_unlock_irqrestore(&dev->lock, flags);

	if (ret)
		usb_ep_free_request(gadget->ep0, req);
	else if (total > i)
		dev_warn(&gadget->dev, "%u endpoints, only the first %u usable\n",
			 total, i);
	return ret;
}

/* No op running and no ep0 transfer queued; dev->lock held. */
static bool rg_idle(struct rg_dev *dev)
{
	unsigned int i;

	if (dev->ep0_busy)
		return false;
	for (i = 0; i < dev->eps_num; i++)
		if (dev->eps[i].op != RG_OP_NONE)
			return false;
	return true;
}

static bool rg_idle_locked(struct rg_dev *dev)
{
	unsigned long flags;
	bool idle;

	spin_lock_irqsave(&dev->lock, flags);
	idle = rg_idle(dev);
	spin_unlock_irqrestore(&dev->lock, flags);
	return idle;
}

static void rg_unbind(struct usb_gadget *gadget)
{
	struct rg_dev *dev = rg_from_gadget(gadget);
	unsigned long flags;
	unsigned int i;

	/* Stop new work, cancel queued transfers, wait for every op. */
	spin_lock_irqsave(&dev->lock, flags);
	dev->unbinding = true;
	if (dev->ep0_busy)
		usb_ep_dequeue(gadget->ep0, dev->ep0_req);
	for (i = 0; i < dev->eps_num; i++)
		if (dev->eps[i].op == RG_OP_IO)
			usb_ep_dequeue(dev->eps[i].ep, dev->eps[i].req);
	spin_unlock_irqrestore(&dev->lock, flags);
	wait_event(dev->op_wait, rg_idle_locked(dev));

	/*
	 * Only this thread touches the endpoints now; a SUBMIT that got in
	 * before unbinding was set holds the mutex until its request is
	 * queued, and the teardown ends it.
	 */
	mutex_lock(&dev->async_mutex);
	for (i = 0; i < dev->eps_num; i++) {
		struct rg_ep *ep = &dev->eps[i];

		if (!ep->enabled)
			continue;
		rg_ep_teardown(dev, ep);
		ep->enabled = false;
	}
	mutex_unlock(&dev->async_mutex);
	usb_ep_free_request(gadget->ep0, dev->ep0_req);

	spin_lock_irqsave(&dev->lock, flags);
	dev->ep0_req = NULL;
	dev->eps_num = 0;
	dev->gadget = NULL;
	dev->unbinding = false;
	spin_unlock_irqrestore(&dev->lock, flags);
	set_gadget_data(gadget, NULL);
}

static int rg_setup(struct usb_gadget *gadget,
		    const struct usb_ctrlrequest *ctrl)
{
	struct rg_dev *dev = rg_from_gadget(gadget);
	unsigned long flags;
	bool in;
	int ret;

	spin_lock_irqsave(&dev->lock, flags);
	if (!rg_active(dev)) {
		ret = -ENODEV;
		goto out_unlock;
	}
	if (dev->ep0_in_pending || dev->ep0_out_pending) {
		dev_dbg(&gadget->dev, "setup while a request is pending\n");
		ret = -EBUSY;
		goto out_unlock;
	}
	/* A zero-length IN request is answered like an OUT one. */
	in = (ctrl->bRequestType & USB_DIR_IN) && le16_to_cpu(ctrl->wLength);
	ret = rg_event_add(dev, USB_RAW_EVENT_CONTROL, ctrl, sizeof(*ctrl));
	if (ret)
		goto out_unlock;
	if (in)
		dev->ep0_in_pending = true;
	else
		dev->ep0_out_pending = true;
	/* Userspace answers the status stage of zero-length requests too. */
	if (!le16_to_cpu(ctrl->wLength))
		ret = USB_GADGET_DELAYED_STATUS;
out_unlock:
	spin_unlock_irqrestore(&dev->lock, flags);
	return ret;
}

static void rg_bus_event(struct usb_gadget *gadget, u32 type)
{
	struct rg_dev *dev = rg_from_gadget(gadget);
	unsigned long flags;

	if (!dev)
		return;
	spin_lock_irqsave(&dev->lock, flags);
	if (rg_active(dev)) {
		/*
		 * A control request from before a reset or disconnect can
		 * never be answered: forgetting it lets the next setup
		 * through, and dropping its queued event keeps the client
		 * from answering the next request with the old one's data.
		 */
		if (type == USB_RAW_EVENT_RESET ||
		    type == USB_RAW_EVENT_DISCONNECT) {
			dev->ep0_in_pending = false;
			dev->ep0_out_pending = false;
			rg_event_drop_control(dev);
		}
		rg_event_add(dev, type, NULL, 0);
	}
	spin_unlock_irqrestore(&dev->lock, flags);
}

static void rg_suspend(struct usb_gadget *gadget)
{
	rg_bus_event(gadget, USB_RAW_EVENT_SUSPEND);
}

static void rg_resume(struct usb_gadget *gadget)
{
	rg_bus_event(gadget, USB_RAW_EVENT_RESUME);
}

static void rg_reset(struct usb_gadget *gadget)
{
	rg_bus_event(gadget, USB_RAW_EVENT_RESET);
}

static void rg_disconnect(struct usb_gadget *gadget)
{
	rg_bus_event(gadget, USB_RAW_EVENT_DISCONNECT);
}

/* --- file operations -------------------------------------------------- */

static int rg_open(struct inode *inode, struct file *file)
{
	struct rg_dev *dev;
	unsigned int i;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	spin_lock_init(&dev->lock);
	init_waitqueue_head(&dev->ev_wait);
	init_waitqueue_head(&dev->op_wait);
	init_completion(&dev->ep0_done);
	mutex_init(&dev->async_mutex);
	INIT_LIST_HEAD(&dev->done);
	for (i = 0; i < USB_RAW_EPS_NUM_MAX; i++)
		INIT_LIST_HEAD(&dev->eps[i].urbs);
	dev->state = RG_OPENED;
	dev->id = -1;
	file->private_data = dev;
	return stream_open(inode, file);
}

static void rg_urb_free(struct rg_urb *urb)
{
	if (!urb->mapped)
		kfree(urb->buf);
	kfree(urb);
}

static int rg_release(struct inode *inode, struct file *file)
{
	struct rg_dev *dev = file->private_data;
	struct rg_urb *urb, *next;
	unsigned int i;

	/* Returns after unbind: no callback can reach dev afterwards. */
	if (dev->registered)
		usb_gadget_unregister_driver(&dev->driver);
	/* Unbind ended every request: they are all on the done list. */
	list_for_each_entry_safe(urb, next, &dev->done, node)
		rg_urb_free(urb);
	/* No mapping is left either: each one holds the file. */
	if (dev->map)
		free_pages_exact(dev->map, dev->map_size);
	mutex_destroy(&dev->async_mutex);
	for (i = 0; i < RG_EVENT_QUEUE_SIZE; i++)
		kfree(dev->events[i]);
	if (dev->id >= 0)
		ida_free(&rg_ida, dev->id);
	kfree(dev);
	return 0;
}

/*
 * The transfer area (USB_RAW_MW57_URB_MAPPED): one physically contiguous
 * buffer per file, so that a UDC can map a request in it for DMA.  It is
 * created by the first mmap() and freed by release, which runs after the
 * last mapping and the last request are gone.  Its pages are inserted as
 * normal, refcounted pages (not a raw PFN map), so they can be pinned
 * (get_user_pages: O_DIRECT I/O from the area works).
 */
static int rg_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct rg_dev *dev = file->private_data;
	size_t size = vma->vm_end - vma->vm_start;
	unsigned long flags, off;
	void *map;
	int ret;

	if (vma->vm_pgoff || !(vma->vm_flags & VM_SHARED) ||
	    size > USB_RAW_MW57_MAP_MAX) {
		rg_why(dev, "mmap", "%s, %zu bytes at page %lu: want shared, at 0, <= %u\n",
		       vma->vm_flags & VM_SHARED ? "shared" : "private",
		       size, vma->vm_pgoff, USB_RAW_MW57_MAP_MAX);
		return -EINVAL;
	}
	/* Allocated unlocked: SUBMIT may fault on user memory under its locks. */
	map = NULL;
	if (!READ_ONCE(dev->map)) {
		map = alloc_pages_exact(size, GFP_KERNEL | __GFP_ZERO |
					__GFP_NOWARN);
		if (!map) {
			rg_why(dev, "mmap", "no %zu contiguous bytes free\n", size);
			return -ENOMEM;
		}
	}
	spin_lock_irqsave(&dev->lock, flags);
	if (!dev->map) {
		dev->map = map;
		dev->map_size = size;
		map = NULL;
	}
	ret = dev->map_size == size ? 0 : -EINVAL;
	spin_unlock_irqrestore(&dev->lock, flags);
	if (map)
		free_pages_exact(map, size);
	if (ret) {
		rg_why(dev, "mmap", "the area has %zu bytes, not %zu\n",
		       dev->map_size, size);
		return ret;
	}
	mw57_vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	for (off = 0; off < size && !ret; off += PAGE_SIZE)
		ret = vm_insert_page(vma, vma->vm_start + off,
				     virt_to_page(dev->map + off));
	return ret;
}

static __poll_t rg_poll(struct file *file, poll_table *wait)
{
	struct rg_dev *dev = file->private_data;
	unsigned long flags;
	__poll_t mask;

	poll_wait(file, &dev->ev_wait, wait);
	/*
	 * Always writable, as upstream's default mask says: an ioctl may be
	 * issued at any time, and the transfer ioctls wait on their own.
	 */
	mask = EPOLLOUT | EPOLLWRNORM;
	spin_lock_irqsave(&dev->lock, flags);
	if (dev->ev_count)
		mask |= EPOLLIN | EPOLLRDNORM;
	if (!list_empty(&dev->done))
		mask |= EPOLLRDBAND;
	if (dev->state == RG_FAILED)
		mask |= EPOLLERR;
	spin_unlock_irqrestore(&dev->lock, flags);
	return mask;
}

static int rg_ioctl_init(struct rg_dev *dev, unsigned long value)
{
	struct usb_raw_init arg;
	unsigned long flags;
	int id, ret;

	if (copy_from_user(&arg, (void __user *)value, sizeof(arg)))
		return -EFAULT;
	switch (arg.speed) {
	case USB_SPEED_UNKNOWN:
		arg.speed = USB_SPEED_HIGH;
		break;
	case USB_SPEED_LOW:
	case USB_SPEED_FULL:
	case USB_SPEED_HIGH:
	case USB_SPEED_SUPER:
		break;
	default:
		rg_why(dev, "INIT", "speed %u is not one of 0-3 or 5\n", arg.speed);
		return -EINVAL;
	}

	/* The id is taken only after the state check and kept until release. */
	spin_lock_irqsave(&dev->lock, flags);
	if (dev->state != RG_OPENED) {
		rg_why(dev, "INIT", "done before on this file\n");
		ret = -EINVAL;
		goto out_unlock;
	}
	dev->state = RG_INITIALIZING;	/* INIT and RUN now get EINVAL */
	spin_unlock_irqrestore(&dev->lock, flags);

	if (strscpy(dev->udc_driver, arg.driver_name,
		    sizeof(dev->udc_driver)) < 0 ||
	    strscpy(dev->udc_device, arg.device_name,
		    sizeof(dev->udc_device)) < 0) {
		rg_why(dev, "INIT", "a UDC name is not terminated\n");
		ret = -E2BIG;
		goto out_reopen;
	}
	id = ida_alloc(&rg_ida, GFP_KERNEL);
	if (id < 0) {
		ret = id;
		goto out_reopen;
	}
	dev->id = id;
	snprintf(dev->drv_name, sizeof(dev->drv_name), RG_DRIVER_PREFIX "%d",
		 id);

	dev->driver.function = RG_DEVICE_NAME;
	dev->driver.max_speed = arg.speed;
	dev->driver.bind = rg_bind;
	dev->driver.unbind = rg_unbind;
	dev->driver.setup = rg_setup;
	dev->driver.disconnect = rg_disconnect;
	dev->driver.suspend = rg_suspend;
	dev->driver.resume = rg_resume;
	dev->driver.reset = rg_reset;
	dev->driver.driver.name = dev->drv_name;
	dev->driver.udc_name = dev->udc_device;
	dev->driver.match_existing_only = 1;

	spin_lock_irqsave(&dev->lock, flags);
	dev->state = RG_INITIALIZED;
	spin_unlock_irqrestore(&dev->lock, flags);
	return 0;

out_reopen:
	spin_lock_irqsave(&dev->lock, flags);
	dev->state = RG_OPENED;
out_unlock:
	spin_unlock_irqrestore(&dev->lock, flags);
	return ret;
}

static int rg_ioctl_run(struct rg_dev *dev, unsigned long value)
{
	unsigned long flags;
	int ret;

	if (value) {
		rg_why(dev, "RUN", "the argument must be 0\n");
		return -EINVAL;
	}
	spin_lock_irqsave(&dev->lock, flags);
	if (dev->state != RG_INITIALIZED) {
		spin_unlock_irqrestore(&dev->lock, flags);
		rg_why(dev, "RUN", "%s\n", dev->state == RG_OPENED ?
		       "INIT first" : "done before on this file");
		return -EINVAL;
	}
	dev->state = RG_REGISTERING;	/* a concurrent RUN gets EINVAL */
	spin_unlock_irqrestore(&dev->lock, flags);

	ret = usb_gadget_register_driver(&dev->driver);

	spin_lock_irqsave(&dev->lock, flags);
	if (ret) {
		rg_why(dev, "RUN", "cannot register the gadget driver: %d\n",
		       ret);
		dev->state = RG_FAILED;
		wake_up_all(&dev->ev_wait);	/* pollers see POLLERR */
	} else {
		dev->registered = true;
		if (dev->state == RG_REGISTERING)
			dev->state = RG_RUNNING;
	}
	spin_unlock_irqrestore(&dev->lock, flags);
	return ret;
}

/* RUNNING with a UDC bound; dev->lock held.  @op names the ioctl. */
static int rg_check_bound(struct rg_dev *dev, const char *op)
{
	if (dev->state != RG_RUNNING) {
		rg_why(dev, op, "%s\n", dev->state == RG_FAILED ?
		       "the instance has failed" : "not running (RUN first)");
		return -EINVAL;
	}
	if (!dev->gadget || dev->unbinding) {
		rg_why(dev, op, "no UDC bound\n");
		return -EBUSY;
	}
	return 0;
}

/* O_NONBLOCK (at open or by fcntl) makes an empty queue EAGAIN. */
static int rg_ioctl_event_fetch(struct rg_dev *dev, unsigned long value,
				bool nonblock)
{
	struct usb_raw_event __user *uev = (void __user *)value;
	struct usb_raw_event arg;
	struct rg_event *ev = NULL;
	unsigned long flags;
	int ret;

	if (copy_from_user(&arg, uev, sizeof(arg)))
		return -EFAULT;

	spin_lock_irqsave(&dev->lock, flags);
	ret = rg_check_bound(dev, "EVENT_FETCH");
	spin_unlock_irqrestore(&dev->lock, flags);
	if (ret)
		return ret;

	/* Several fetchers may wake for one event: loop until one is ours. */
	while (!ev) {
		if (nonblock && !READ_ONCE(dev->ev_count) &&
		    READ_ONCE(dev->state) == RG_RUNNING)
			return -EAGAIN;
		if (wait_event_interruptible(dev->ev_wait,
					     READ_ONCE(dev->ev_count) ||
					     READ_ONCE(dev->state) != RG_RUNNING))
			return -EINTR;
		spin_lock_irqsave(&dev->lock, flags);
		ev = rg_event_take(dev);
		if (!ev && dev->state != RG_RUNNING) {
			dev->state = RG_FAILED;
			ret = -ENODEV;
		}
		spin_unlock_irqrestore(&dev->lock, flags);
		if (ret)
			return ret;
	}

	/* The header carries the full length; the event is consumed anyway. */
	if (copy_to_user(uev, ev, sizeof(*uev)) ||
	    copy_to_user(uev->data, ev->data, min_t(u32, arg.length, ev->length)))
		ret = -EFAULT;
	kfree(ev);
	return ret;
}

/*
 * Copy in the header of an I/O ioctl and allocate the transfer buffer
 * (filled from userspace for writes).  The caller owns *bufp.
 */
/* A transfer ioctl's header, upstream's or the stream one, and its data. */
struct rg_io {
	struct usb_raw_ep_io hdr;	/* ep, flags, length */
	u16 stream_id;			/* 0: not on a stream */
	void __user *data;
};

/* Copy in the stream transfers' header; the caller checks the rest. */
static int rg_io_stream_header(struct rg_dev *dev, const char *op,
			       unsigned long value, struct rg_io *io)
{
	struct usb_raw_mw57_ep_io_stream __user *us = (void __user *)value;
	struct usb_raw_mw57_ep_io_stream s;

	if (copy_from_user(&s, us, sizeof(s)))
		return -EFAULT;
	if (!s.stream_id || s.reserved0 || s.reserved) {
		rg_why(dev, op, "%s\n", s.stream_id ? "reserved fields set" :
		       "stream 0 (use EP_WRITE and EP_READ)");
		return -EINVAL;
	}
	io->hdr.ep = s.ep;
	io->hdr.flags = s.flags;
	io->hdr.length = s.length;
	io->stream_id = s.stream_id;
	io->data = us->data;
	return 0;
}

/* Flags and length of a transfer, blocking or asynchronous. */
static int rg_io_check(struct rg_dev *dev, const char *op, u16 flags,
		       u32 length)
{
	if (!usb_raw_io_flags_valid(flags)) {
		rg_why(dev, op, "unknown flags %#x\n", flags);
		return -EINVAL;
	}
	if (length > KMALLOC_MAX_SIZE) {
		rg_why(dev, op, "length %u is over %lu\n", length,
		       (unsigned long)KMALLOC_MAX_SIZE);
		return -EINVAL;
	}
	return 0;
}

/* A transfer buffer; never ZERO_SIZE_PTR: a real UDC maps it for DMA. */
static void *rg_io_alloc(u32 length)
{
	return kmalloc(max_t(u32, length, 1), GFP_KERNEL | __GFP_NOWARN);
}

static int rg_io_prepare(struct rg_dev *dev, const char *op,
			 unsigned long value, bool stream, struct rg_io *rio,
			 void **bufp, bool in)
{
	struct usb_raw_ep_io __user *uio = (void __user *)value;
	struct usb_raw_ep_io *io = &rio->hdr;
	void *buf;
	int ret;

	if (stream) {
		ret = rg_io_stream_header(dev, op, value, rio);
		if (ret)
			return ret;
	} else {
		if (copy_from_user(io, uio, sizeof(*io)))
			return -EFAULT;
		rio->stream_id = 0;
		rio->data = uio->data;
	}
	if (io->ep >= USB_RAW_EPS_NUM_MAX) {
		rg_why(dev, op, "handle %u is past the ABI's %u\n", io->ep,
		       USB_RAW_EPS_NUM_MAX);
		return -EINVAL;
	}
	ret = rg_io_check(dev, op, io->flags, io->length);
	if (ret)
		return ret;
	buf = rg_io_alloc(io->length);
	if (!buf)
		return -ENOMEM;
	if (in && copy_from_user(buf, rio->data, io->length)) {
		kfree(buf);
		return -EFAULT;
	}
	*bufp = buf;
	return 0;
}

/* Fill the request for one transfer of io from buf; dev->lock held. */
static void rg_req_fill(struct usb_request *req, struct rg_io *io,
			void *buf, struct completion *done)
{
	req->buf = buf;
	req->length = io->hdr.length;
	req->zero = usb_raw_io_flags_zero(io->hdr.flags);
	req->stream_id = io->stream_id;
	req->complete = rg_complete;
	req->context = done;
	reinit_completion(done);
}

/*
 * Wait for a queued request.  On a signal the request is dequeued and
 * waited for anyway: the buffer must not be freed under the UDC.  One
 * that unbind dequeued (the UDC is going away) ends with ESHUTDOWN, as
 * when the UDC itself cuts it at a disconnect or reset.
 */
static int rg_req_wait(struct rg_dev *dev, struct usb_ep *ep,
		       struct usb_request *req, struct completion *done)
{
	if (wait_for_completion_interruptible(done)) {
		usb_ep_dequeue(ep, req);
		wait_for_completion(done);
		if (req->status == -ECONNRESET)
			return -EINTR;
	}
	if (req->status == -ECONNRESET && READ_ONCE(dev->unbinding))
		return -ESHUTDOWN;
	return req->status < 0 ? req->status : req->actual;
}

static int rg_ep0_io(struct rg_dev *dev, const char *op, struct rg_io *io,
		     void *buf, bool write)
{
	struct usb_request *req;
	unsigned long flags;
	struct usb_ep *ep0;
	int ret;

	spin_lock_irqsave(&dev->lock, flags);
	ret = rg_check_bound(dev, op);
	if (ret)
		goto out_unlock;
	if (dev->ep0_busy ||
	    (write ? !dev->ep0_in_pending : !dev->ep0_out_pending)) {
		rg_why(dev, op, "%s\n", dev->ep0_busy ? "an ep0 transfer is running" :
		       dev->ep0_in_pending || dev->ep0_out_pending ?
		       "the pending request has the other direction" :
		       "no control request is pending");
		ret = -EBUSY;
		goto out_unlock;
	}
	ep0 = dev->gadget->ep0;
	req = dev->ep0_req;
	rg_req_fill(req, io, buf, &dev->ep0_done);
	ret = usb_ep_queue(ep0, req, GFP_ATOMIC);
	if (ret)
		goto out_unlock;
	dev->ep0_busy = true;
	dev->ep0_in_pending = false;
	dev->ep0_out_pending = false;
	spin_unlock_irqrestore(&dev->lock, flags);

	ret = rg_req_wait(dev, ep0, req, &dev->ep0_done);

	spin_lock_irqsave(&dev->lock, flags);
	dev->ep0_busy = false;
	wake_up_all(&dev->op_wait);
out_unlock:
	spin_unlock_irqrestore(&dev->lock, flags);
	return ret;
}

static int rg_ep_io(struct rg_dev *dev, const char *op, struct rg_io *io,
		    void *buf, bool write)
{
	unsigned int handle = io->hdr.ep;
	struct rg_ep *ep;
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&dev->lock, flags);
	ret = rg_check_bound(dev, op);
	if (ret)
		goto out_unlock;
	if (handle >= dev->eps_num) {
		rg_why(dev, op, "handle %u: the UDC has %u endpoints\n", handle,
		       dev->eps_num);
		ret = -EINVAL;
		goto out_unlock;
	}
	ep = &dev->eps[handle];
	if (!ep->enabled || ep->op != RG_OP_NONE || ep->pool_busy) {
		rg_why(dev, op, "handle %u is %s\n", handle, !ep->enabled ?
		       "not enabled" : ep->pool_busy ?
		       "busy (asynchronous requests in flight)" :
		       "busy (one transfer at a time)");
		ret = -EBUSY;
		goto out_unlock;
	}
	/* The enabled descriptor decides, not the endpoint's caps. */
	if (write != usb_endpoint_dir_in(&ep->desc)) {
		rg_why(dev, op, "handle %u is an %s endpoint\n", handle,
		       write ? "OUT" : "IN");
		ret = -EINVAL;
		goto out_unlock;
	}
	if (io->stream_id > usb_ss_max_streams(ep->ep->comp_desc)) {
		rg_why(dev, op, "handle %u has %d streams, not stream %u\n",
		       handle, usb_ss_max_streams(ep->ep->comp_desc),
		       io->stream_id);
		ret = -EINVAL;
		goto out_unlock;
	}
	rg_req_fill(ep->req, io, buf, &ep->done);
	ret = usb_ep_queue(ep->ep, ep->req, GFP_ATOMIC);
	if (ret)
		goto out_unlock;
	ep->op = RG_OP_IO;
	spin_unlock_irqrestore(&dev->lock, flags);

	ret = rg_req_wait(dev, ep->ep, ep->req, &ep->done);

	spin_lock_irqsave(&dev->lock, flags);
	ep->op = RG_OP_NONE;
	wake_up_all(&dev->op_wait);
out_unlock:
	spin_unlock_irqrestore(&dev->lock, flags);
	return ret;
}

enum rg_io_kind { RG_IO_EP0, RG_IO_EP, RG_IO_STREAM };

static const char *const rg_io_names[][2] = {
	[RG_IO_EP0] = { "EP0_READ", "EP0_WRITE" },
	[RG_IO_EP] = { "EP_READ", "EP_WRITE" },
	[RG_IO_STREAM] = { "EP_READ_STREAM", "EP_WRITE_STREAM" },
};

static int rg_ioctl_io(struct rg_dev *dev, unsigned long value,
		       enum rg_io_kind kind, bool write)
{
	const char *op = rg_io_names[kind][write];
	struct rg_io io;
	void *buf;
	int ret;

	ret = rg_io_prepare(dev, op, value, kind == RG_IO_STREAM, &io, &buf,
			    write);
	if (ret)
		return ret;
	if (kind == RG_IO_EP0)
		ret = rg_ep0_io(dev, op, &io, buf, write);
	else
		ret = rg_ep_io(dev, op, &io, buf, write);
	if (ret > 0 && !write) {
		ret = min_t(u32, ret, io.hdr.length);
		if (copy_to_user(io.data, buf, ret))
			ret = -EFAULT;
	}
	kfree(buf);
	return ret;
}

/*
 * A companion descriptor as USB 3.2 9.6.7 allows it for @desc: its type
 * and length, a burst of at most 16, no streams but on bulk (at most
 * 2^16), a mult of at most 3 on iso, nothing else set.
 */
static const char *rg_comp_invalid(const struct usb_endpoint_descriptor *desc,
				   const struct usb_ss_ep_comp_descriptor *comp)
{
	u8 attr = comp->bmAttributes;

	if (comp->bLength != USB_DT_SS_EP_COMP_SIZE ||
	    comp->bDescriptorType != USB_DT_SS_ENDPOINT_COMP)
		return "not a SuperSpeed endpoint companion descriptor";
	if (comp->bMaxBurst > 15)
		return "bMaxBurst over 15";
	switch (usb_endpoint_type(desc)) {
	case USB_ENDPOINT_XFER_BULK:
		return (attr & 0x1f) > 16 || attr & ~0x1f ?
		       "bulk bmAttributes: more than 2^16 streams" : NULL;
	case USB_ENDPOINT_XFER_ISOC:
		return (attr & 0x3) > 2 || attr & ~0x83 ?
		       "iso bmAttributes: mult over 3" : NULL;
	case USB_ENDPOINT_XFER_INT:
		return attr ? "interrupt bmAttributes must be 0" : NULL;
	default:
		return "a control endpoint";
	}
}

/*
 * EP_ENABLE, and EP_ENABLE_SS when @comp is given: the first free UDC
 * endpoint that matches (and has the streams @comp asks for); its handle.
 */
static int rg_ep_enable(struct rg_dev *dev, const char *op,
			struct usb_endpoint_descriptor *desc,
			struct usb_ss_ep_comp_descriptor *comp)
{
	struct usb_request *req = NULL;
	struct rg_ep *ep = NULL;
	bool matched = false, high_speed;
	unsigned long flags;
	unsigned int i;
	int ret;

	if (!usb_endpoint_maxp(desc)) {
		rg_why(dev, op, "wMaxPacketSize 0\n");
		return -EINVAL;
	}

	spin_lock_irqsave(&dev->lock, flags);
	ret = rg_check_bound(dev, op);
	if (ret)
		goto out_unlock;
	if (comp && dev->gadget->speed < USB_SPEED_SUPER) {
		rg_why(dev, op, "the connection is not SuperSpeed\n");
		ret = -EINVAL;
		goto out_unlock;
	}
	for (i = 0; i < dev->eps_num; i++) {
		struct rg_ep *e = &dev->eps[i];

		if (e->addr != USB_RAW_EP_ADDR_ANY &&
		    e->addr != usb_endpoint_num(desc))
			continue;
		if (!usb_gadget_ep_match_desc(dev->gadget, e->ep, desc, comp))
			continue;
		matched = true;
		if (e->enabled || e->op != RG_OP_NONE)
			continue;
		ep = e;
		break;
	}
	if (!ep) {
		rg_why(dev, op, "%s for address %#x, type %u, maxpacket %u\n",
		       matched ? "every matching endpoint is in use" :
		       "no endpoint of the UDC matches",
		       desc->bEndpointAddress, usb_endpoint_type(desc),
		       usb_endpoint_maxp(desc));
		ret = matched ? -EBUSY : -EINVAL;
		goto out_unlock;
	}
	ep->op = RG_OP_ENABLE;
	ep->desc = *desc;	/* owned by the slot, outlives the UDC's use */
	if (comp)
		ep->comp = *comp;
	high_speed = dev->gadget->speed == USB_SPEED_HIGH;
	spin_unlock_irqrestore(&dev->lock, flags);

	req = usb_ep_alloc_request(ep->ep, GFP_KERNEL);
	if (!req) {
		ret = -ENOMEM;
	} else {
		rg_ep_config(ep, high_speed, !!comp);
		ret = usb_ep_enable(ep->ep);
		if (ret) {
			rg_why(dev, op, "%s: the UDC refused the descriptor: %d\n",
			       ep->ep->name, ret);
			rg_ep_unconfig(ep);
			usb_ep_free_request(ep->ep, req);
		}
	}

	spin_lock_irqsave(&dev->lock, flags);
	if (!ret) {
		ep->req = req;
		ep->enabled = true;
		init_completion(&ep->done);
		ret = i;
	}
	ep->op = RG_OP_NONE;
	wake_up_all(&dev->op_wait);
out_unlock:
	spin_unlock_irqrestore(&dev->lock, flags);
	return ret;
}

static int rg_ioctl_ep_enable(struct rg_dev *dev, unsigned long value)
{
	struct usb_endpoint_descriptor desc;

	if (copy_from_user(&desc, (void __user *)value, sizeof(desc)))
		return -EFAULT;
	return rg_ep_enable(dev, "EP_ENABLE", &desc, NULL);
}

static int rg_ioctl_ep_enable_ss(struct rg_dev *dev, unsigned long value)
{
	struct usb_raw_mw57_ep_ss arg;
	const char *why;

	if (copy_from_user(&arg, (void __user *)value, sizeof(arg)))
		return -EFAULT;
	why = arg.reserved ? "reserved byte not zero" :
	      rg_comp_invalid(&arg.desc, &arg.comp);
	if (why) {
		rg_why(dev, "EP_ENABLE_SS", "%s\n", why);
		return -EINVAL;
	}
	return rg_ep_enable(dev, "EP_ENABLE_SS", &arg.desc, &arg.comp);
}

/* Look up an endpoint handle for disable and halt; dev->lock held. */
static struct rg_ep *rg_ep_get(struct rg_dev *dev, const char *op,
			       unsigned long handle, int *err)
{
	struct rg_ep *ep;

	*err = rg_check_bound(dev, op);
	if (*err)
		return NULL;
	if (handle >= dev->eps_num) {
		rg_why(dev, op, "handle %lu: the UDC has %u endpoints\n", handle,
		       dev->eps_num);
		*err = -EBUSY;	/* sic: upstream ABI */
		return NULL;
	}
	ep = &dev->eps[handle];
	if (!ep->enabled || ep->op != RG_OP_NONE) {
		rg_why(dev, op, "handle %lu is %s\n", handle, ep->enabled ?
		       "busy (a transfer is running)" : "not enabled");
		*err = -EINVAL;
		return NULL;
	}
	return ep;
}

/* Asynchronous requests on the endpoint end with ESHUTDOWN. */
static int rg_ioctl_ep_disable(struct rg_dev *dev, unsigned long value)
{
	unsigned long flags;
	struct rg_ep *ep;
	int ret;

	mutex_lock(&dev->async_mutex);
	spin_lock_irqsave(&dev->lock, flags);
	ep = rg_ep_get(dev, "EP_DISABLE", value, &ret);
	if (!ep)
		goto out_unlock;
	ep->op = RG_OP_DISABLE;
	spin_unlock_irqrestore(&dev->lock, flags);

	rg_ep_teardown(dev, ep);

	spin_lock_irqsave(&dev->lock, flags);
	ep->enabled = false;
	ep->op = RG_OP_NONE;
	wake_up_all(&dev->op_wait);
out_unlock:
	spin_unlock_irqrestore(&dev->lock, flags);
	mutex_unlock(&dev->async_mutex);
	return ret;
}

enum rg_halt_op { RG_SET_HALT, RG_CLEAR_HALT, RG_SET_WEDGE };

static const char *const rg_halt_names[] = {
	[RG_SET_HALT] = "EP_SET_HALT",
	[RG_CLEAR_HALT] = "EP_CLEAR_HALT",
	[RG_SET_WEDGE] = "EP_SET_WEDGE",
};

static int rg_ioctl_ep_halt(struct rg_dev *dev, unsigned long value,
			    enum rg_halt_op op)
{
	unsigned long flags;
	struct rg_ep *ep;
	int ret;

	spin_lock_irqsave(&dev->lock, flags);
	ep = rg_ep_get(dev, rg_halt_names[op], value, &ret);
	if (!ep)
		goto out_unlock;
	if (usb_endpoint_xfer_isoc(&ep->desc)) {
		rg_why(dev, rg_halt_names[op], "an iso endpoint cannot halt\n");
		ret = -EINVAL;
		goto out_unlock;
	}
	switch (op) {
	case RG_SET_HALT:
		ret = usb_ep_set_halt(ep->ep);
		break;
	case RG_CLEAR_HALT:
		ret = usb_ep_clear_halt(ep->ep);
		break;
	case RG_SET_WEDGE:
		ret = usb_ep_set_wedge(ep->ep);
		break;
	}
out_unlock:
	spin_unlock_irqrestore(&dev->lock, flags);
	return ret;
}

static int rg_ioctl_ep0_stall(struct rg_dev *dev, unsigned long value)
{
	unsigned long flags;
	int ret;

	if (value) {
		rg_why(dev, "EP0_STALL", "the argument must be 0\n");
		return -EINVAL;
	}
	spin_lock_irqsave(&dev->lock, flags);
	ret = rg_check_bound(dev, "EP0_STALL");
	if (ret)
		goto out_unlock;
	if (dev->ep0_busy || (!dev->ep0_in_pending && !dev->ep0_out_pending)) {
		rg_why(dev, "EP0_STALL", "%s\n", dev->ep0_busy ?
		       "an ep0 transfer is running" :
		       "no control request is pending");
		ret = -EBUSY;
		goto out_unlock;
	}
	ret = usb_ep_set_halt(dev->gadget->ep0);
	dev->ep0_in_pending = false;
	dev->ep0_out_pending = false;
out_unlock:
	spin_unlock_irqrestore(&dev->lock, flags);
	return ret;
}

static int rg_ioctl_configure(struct rg_dev *dev, unsigned long value)
{
	unsigned long flags;
	int ret;

	if (value) {
		rg_why(dev, "CONFIGURE", "the argument must be 0\n");
		return -EINVAL;
	}
	spin_lock_irqsave(&dev->lock, flags);
	ret = rg_check_bound(dev, "CONFIGURE");
	if (!ret)
		usb_gadget_set_state(dev->gadget, USB_STATE_CONFIGURED);
	spin_unlock_irqrestore(&dev->lock, flags);
	return ret;
}

static int rg_ioctl_vbus_draw(struct rg_dev *dev, unsigned long value)
{
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&dev->lock, flags);
	ret = rg_check_bound(dev, "VBUS_DRAW");
	if (!ret)	/* the UDC's answer is not the caller's business */
		usb_gadget_vbus_draw(dev->gadget, 2 * (u32)value);
	spin_unlock_irqrestore(&dev->lock, flags);
	return ret;
}

static int rg_ioctl_eps_info(struct rg_dev *dev, unsigned long value)
{
	struct usb_raw_eps_info *info;
	unsigned long flags;
	unsigned int i;
	int ret;

	info = kzalloc(sizeof(*info), GFP_KERNEL);
	if (!info)
		return -ENOMEM;

	spin_lock_irqsave(&dev->lock, flags);
	ret = rg_check_bound(dev, "EPS_INFO");
	if (ret)
		goto out_unlock;
	for (i = 0; i < dev->eps_num; i++) {
		struct usb_raw_ep_info *e = &info->eps[i];
		struct usb_ep *ep = dev->eps[i].ep;

		strscpy(e->name, ep->name, sizeof(e->name));
		e->addr = dev->eps[i].addr;
		e->caps.type_control = ep->caps.type_control;
		e->caps.type_iso = ep->caps.type_iso;
		e->caps.type_bulk = ep->caps.type_bulk;
		e->caps.type_int = ep->caps.type_int;
		e->caps.dir_in = ep->caps.dir_in;
		e->caps.dir_out = ep->caps.dir_out;
		e->limits.maxpacket_limit = ep->maxpacket_limit;
		e->limits.max_streams = ep->max_streams;
	}
	ret = dev->eps_num;
out_unlock:
	spin_unlock_irqrestore(&dev->lock, flags);
	if (ret >= 0 && copy_to_user((void __user *)value, info, sizeof(*info)))
		ret = -EFAULT;
	kfree(info);
	return ret;
}

static int rg_ioctl_mw57_info(struct rg_dev *dev, unsigned long value)
{
	struct usb_raw_mw57_info info = { };
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&dev->lock, flags);
	ret = rg_check_bound(dev, "mw57 INFO");
	if (!ret && dev->gadget->speed == USB_SPEED_UNKNOWN) {
		rg_why(dev, "mw57 INFO", "no speed negotiated yet\n");
		ret = -ENOTCONN;
	}
	if (!ret) {
		info.speed = dev->gadget->speed;
		info.max_speed = dev->gadget->max_speed;
		info.ep0_maxpacket = dev->gadget->ep0->maxpacket;
	}
	spin_unlock_irqrestore(&dev->lock, flags);
	if (!ret && copy_to_user((void __user *)value, &info, sizeof(info)))
		ret = -EFAULT;
	return ret;
}

/* --- asynchronous requests ------------------------------------------------ */

/* What an urb holds against USB_RAW_MW57_ASYNC_BYTES. */
static size_t rg_urb_cost(const struct rg_urb *urb)
{
	return sizeof(*urb) + (urb->mapped ? 0 : urb->length);
}

/* A mapped request's buffer, @offset into the area; dev->lock held. */
static int rg_urb_map(struct rg_dev *dev, struct rg_urb *urb, u64 offset)
{
	if (!dev->map) {
		rg_why(dev, "SUBMIT", "mapped, but there is no area: mmap() first\n");
		return -EINVAL;
	}
	if (offset > dev->map_size || urb->length > dev->map_size - offset) {
		rg_why(dev, "SUBMIT", "%u bytes at %llu are outside the %zu-byte area\n",
		       urb->length, offset, dev->map_size);
		return -EINVAL;
	}
	urb->buf = dev->map + offset;
	return 0;
}

/*
 * The endpoint a SUBMIT goes to, with a pool slot and the bytes reserved
 * for @urb; dev->lock held.  NULL and *err when it cannot take one more.
 */
static struct rg_ep *rg_urb_reserve(struct rg_dev *dev, struct rg_urb *urb,
				    const struct usb_raw_mw57_urb *arg,
				    int *err)
{
	struct rg_ep *ep;

	*err = rg_check_bound(dev, "SUBMIT");
	if (*err)
		return NULL;
	if (urb->handle >= dev->eps_num) {
		rg_why(dev, "SUBMIT", "handle %u: the UDC has %u endpoints\n",
		       urb->handle, dev->eps_num);
		*err = -EINVAL;
		return NULL;
	}
	ep = &dev->eps[urb->handle];
	if (!ep->enabled || ep->op != RG_OP_NONE) {
		rg_why(dev, "SUBMIT", "handle %u is %s\n", urb->handle,
		       ep->enabled ? "busy (a blocking transfer is running)" :
		       "not enabled");
		*err = -EBUSY;
		return NULL;
	}
	if (arg->stream_id > usb_ss_max_streams(ep->ep->comp_desc)) {
		rg_why(dev, "SUBMIT", "handle %u has %d streams, not stream %u\n",
		       urb->handle, usb_ss_max_streams(ep->ep->comp_desc),
		       arg->stream_id);
		*err = -EINVAL;
		return NULL;
	}
	if (urb->mapped) {
		*err = rg_urb_map(dev, urb, arg->buffer);
		if (*err)
			return NULL;
	}
	if (ep->pool_busy == GENMASK(USB_RAW_MW57_ASYNC_DEPTH - 1, 0)) {
		rg_why(dev, "SUBMIT", "handle %u has %u requests in flight\n",
		       urb->handle, USB_RAW_MW57_ASYNC_DEPTH);
		*err = -EAGAIN;
		return NULL;
	}
	if (dev->async_bytes + rg_urb_cost(urb) > USB_RAW_MW57_ASYNC_BYTES) {
		rg_why(dev, "SUBMIT", "%zu bytes held by requests, %zu more is over %u\n",
		       dev->async_bytes, rg_urb_cost(urb),
		       USB_RAW_MW57_ASYNC_BYTES);
		*err = -ENOMEM;
		return NULL;
	}
	urb->slot = ffz(ep->pool_busy);
	ep->pool_busy |= BIT(urb->slot);
	dev->async_bytes += rg_urb_cost(urb);
	urb->ep = ep;
	urb->out = !usb_endpoint_dir_in(&ep->desc);
	return ep;
}

/* Undo rg_urb_reserve() for a request that never got queued. */
static void rg_urb_unreserve(struct rg_dev *dev, struct rg_urb *urb)
{
	unsigned long flags;

	spin_lock_irqsave(&dev->lock, flags);
	if (!list_empty(&urb->node))
		list_del_init(&urb->node);
	urb->ep->pool_busy &= ~BIT(urb->slot);
	dev->async_bytes -= rg_urb_cost(urb);
	if (!urb->ep->pool_busy)
		wake_up_all(&dev->op_wait);
	spin_unlock_irqrestore(&dev->lock, flags);
}

/* Queue @urb, whose buffer is allocated, as its SUBMIT @arg says. */
static int rg_urb_queue(struct rg_dev *dev, struct rg_urb *urb,
			const struct usb_raw_mw57_urb *arg)
{
	struct usb_request *req;
	unsigned long flags;
	struct rg_ep *ep;
	int ret;

	spin_lock_irqsave(&dev->lock, flags);
	ep = rg_urb_reserve(dev, urb, arg, &ret);
	spin_unlock_irqrestore(&dev->lock, flags);
	if (!ep)
		return ret;

	/* The slot and its pool stay ours: teardown needs the mutex. */
	if (!urb->out && !urb->mapped &&
	    copy_from_user(urb->buf, urb->ubuf, urb->length)) {
		ret = -EFAULT;
		goto err_unreserve;
	}
	if (!ep->pool[urb->slot])
		ep->pool[urb->slot] = usb_ep_alloc_request(ep->ep, GFP_KERNEL);
	req = ep->pool[urb->slot];
	if (!req) {
		ret = -ENOMEM;
		goto err_unreserve;
	}
	req->buf = urb->buf;
	req->length = urb->length;
	req->zero = usb_raw_io_flags_zero(arg->flags);
	req->stream_id = arg->stream_id;
	req->complete = rg_urb_complete;
	req->context = urb;
	urb->req = req;

	/* Listed first: the UDC may give it back inside usb_ep_queue(). */
	spin_lock_irqsave(&dev->lock, flags);
	list_add_tail(&urb->node, &ep->urbs);
	spin_unlock_irqrestore(&dev->lock, flags);
	ret = usb_ep_queue(ep->ep, req, GFP_KERNEL);
	if (ret) {
		rg_why(dev, "SUBMIT", "%s: the UDC refused the request: %d\n",
		       ep->ep->name, ret);
		goto err_unreserve;
	}
	return 0;

err_unreserve:
	urb->req = NULL;
	rg_urb_unreserve(dev, urb);
	return ret;
}

static int rg_ioctl_submit(struct rg_dev *dev, unsigned long value)
{
	struct usb_raw_mw57_urb arg;
	struct rg_urb *urb;
	int ret;

	if (copy_from_user(&arg, (void __user *)value, sizeof(arg)))
		return -EFAULT;
	if (arg.reserved0 || arg.reserved) {
		rg_why(dev, "SUBMIT", "reserved fields set\n");
		return -EINVAL;
	}
	ret = rg_io_check(dev, "SUBMIT", arg.flags & ~USB_RAW_MW57_URB_MAPPED,
			  arg.length);
	if (ret)
		return ret;

	urb = kzalloc(sizeof(*urb), GFP_KERNEL);
	if (!urb)
		return -ENOMEM;
	/* A mapped request gets its buffer in rg_urb_reserve(). */
	urb->mapped = arg.flags & USB_RAW_MW57_URB_MAPPED;
	if (!urb->mapped) {
		urb->buf = rg_io_alloc(arg.length);
		if (!urb->buf) {
			ret = -ENOMEM;
			goto err_free;
		}
	}
	INIT_LIST_HEAD(&urb->node);
	urb->dev = dev;
	urb->tag = arg.tag;
	urb->ubuf = u64_to_user_ptr(arg.buffer);
	urb->length = arg.length;
	urb->handle = arg.ep;

	mutex_lock(&dev->async_mutex);
	ret = rg_urb_queue(dev, urb, &arg);
	mutex_unlock(&dev->async_mutex);
	if (ret)
		goto err_free;
	return 0;

err_free:
	rg_urb_free(urb);
	return ret;
}

/* The oldest completion, or NULL and *err (0: wait for one); dev->lock held. */
static struct rg_urb *rg_urb_take(struct rg_dev *dev, bool nonblock, int *err)
{
	struct rg_urb *urb;

	*err = 0;
	urb = list_first_entry_or_null(&dev->done, struct rg_urb, node);
	if (urb) {
		list_del(&urb->node);
		dev->async_bytes -= rg_urb_cost(urb);
		return urb;
	}
	if (dev->state != RG_RUNNING && dev->state != RG_REGISTERING) {
		rg_why(dev, "REAP", "%s\n", dev->state == RG_FAILED ?
		       "the instance has failed" : "not running (RUN first)");
		*err = -EINVAL;
	} else if (nonblock) {
		*err = -EAGAIN;
	}
	return NULL;
}

static int rg_ioctl_reap(struct rg_dev *dev, unsigned long value,
			 bool nonblock)
{
	struct usb_raw_mw57_completion c = { };
	struct rg_urb *urb;
	unsigned long flags;
	int ret;

	for (;;) {
		spin_lock_irqsave(&dev->lock, flags);
		urb = rg_urb_take(dev, nonblock, &ret);
		spin_unlock_irqrestore(&dev->lock, flags);
		if (urb || ret)
			break;
		if (wait_event_interruptible(dev->ev_wait,
					     !list_empty(&dev->done) ||
					     READ_ONCE(dev->state) == RG_FAILED))
			return -EINTR;
	}
	if (!urb)
		return ret;

	c.tag = urb->tag;
	c.status = urb->status;
	c.actual = urb->actual;
	c.frame_number = urb->frame_number;
	c.ep = urb->handle;
	/* Consumed even when a copy fails, as EVENT_FETCH's events are. */
	if (urb->out && !urb->mapped && urb->actual &&
	    copy_to_user(urb->ubuf, urb->buf, min(urb->actual, urb->length)))
		ret = -EFAULT;
	else if (copy_to_user((void __user *)value, &c, sizeof(c)))
		ret = -EFAULT;
	rg_urb_free(urb);
	return ret;
}

static int rg_ioctl_cancel(struct rg_dev *dev, unsigned long value)
{
	struct usb_raw_mw57_cancel arg;
	struct usb_request *req = NULL;
	struct usb_ep *uep = NULL;
	unsigned long flags;
	struct rg_urb *urb;
	int ret;

	if (copy_from_user(&arg, (void __user *)value, sizeof(arg)))
		return -EFAULT;
	if (arg.reserved0 || arg.reserved) {
		rg_why(dev, "CANCEL", "reserved fields set\n");
		return -EINVAL;
	}

	/* The mutex keeps the pooled request from being reused or freed. */
	mutex_lock(&dev->async_mutex);
	spin_lock_irqsave(&dev->lock, flags);
	ret = rg_check_bound(dev, "CANCEL");
	if (!ret && arg.ep >= dev->eps_num) {
		rg_why(dev, "CANCEL", "handle %u: the UDC has %u endpoints\n",
		       arg.ep, dev->eps_num);
		ret = -EINVAL;
	}
	if (!ret) {
		list_for_each_entry(urb, &dev->eps[arg.ep].urbs, node) {
			if (urb->tag == arg.tag) {
				req = urb->req;
				uep = dev->eps[arg.ep].ep;
				break;
			}
		}
		if (!req) {
			rg_why(dev, "CANCEL", "no request with tag %llu in flight on handle %u\n",
			       arg.tag, arg.ep);
			ret = -EINVAL;
		}
	}
	spin_unlock_irqrestore(&dev->lock, flags);
	/* It may have ended meanwhile: then the UDC just finds nothing. */
	if (req)
		usb_ep_dequeue(uep, req);
	mutex_unlock(&dev->async_mutex);
	return ret;
}

static long rg_ioctl(struct file *file, unsigned int cmd, unsigned long value)
{
	struct rg_dev *dev = file->private_data;

	switch (cmd) {
	case USB_RAW_IOCTL_INIT:
		return rg_ioctl_init(dev, value);
	case USB_RAW_IOCTL_RUN:
		return rg_ioctl_run(dev, value);
	case USB_RAW_IOCTL_EVENT_FETCH:
		return rg_ioctl_event_fetch(dev, value,
					    file->f_flags & O_NONBLOCK);
	case USB_RAW_IOCTL_EP0_WRITE:
		return rg_ioctl_io(dev, value, RG_IO_EP0, true);
	case USB_RAW_IOCTL_EP0_READ:
		return rg_ioctl_io(dev, value, RG_IO_EP0, false);
	case USB_RAW_IOCTL_EP_ENABLE:
		return rg_ioctl_ep_enable(dev, value);
	case USB_RAW_IOCTL_EP_DISABLE:
		return rg_ioctl_ep_disable(dev, value);
	case USB_RAW_IOCTL_EP_WRITE:
		return rg_ioctl_io(dev, value, RG_IO_EP, true);
	case USB_RAW_IOCTL_EP_READ:
		return rg_ioctl_io(dev, value, RG_IO_EP, false);
	case USB_RAW_IOCTL_CONFIGURE:
		return rg_ioctl_configure(dev, value);
	case USB_RAW_IOCTL_VBUS_DRAW:
		return rg_ioctl_vbus_draw(dev, value);
	case USB_RAW_IOCTL_EPS_INFO:
		return rg_ioctl_eps_info(dev, value);
	case USB_RAW_IOCTL_EP0_STALL:
		return rg_ioctl_ep0_stall(dev, value);
	case USB_RAW_IOCTL_EP_SET_HALT:
		return rg_ioctl_ep_halt(dev, value, RG_SET_HALT);
	case USB_RAW_IOCTL_EP_CLEAR_HALT:
		return rg_ioctl_ep_halt(dev, value, RG_CLEAR_HALT);
	case USB_RAW_IOCTL_EP_SET_WEDGE:
		return rg_ioctl_ep_halt(dev, value, RG_SET_WEDGE);
	case USB_RAW_MW57_IOCTL_INFO:
		return rg_ioctl_mw57_info(dev, value);
	case USB_RAW_MW57_IOCTL_EP_ENABLE_SS:
		return rg_ioctl_ep_enable_ss(dev, value);
	case USB_RAW_MW57_IOCTL_EP_WRITE_STREAM:
		return rg_ioctl_io(dev, value, RG_IO_STREAM, true);
	case USB_RAW_MW57_IOCTL_EP_READ_STREAM:
		return rg_ioctl_io(dev, value, RG_IO_STREAM, false);
	case USB_RAW_MW57_IOCTL_SUBMIT:
		return rg_ioctl_submit(dev, value);
	case USB_RAW_MW57_IOCTL_REAP:
		return rg_ioctl_reap(dev, value, file->f_flags & O_NONBLOCK);
	case USB_RAW_MW57_IOCTL_CANCEL:
		return rg_ioctl_cancel(dev, value);
	default:
		rg_why(dev, "ioctl", "unknown command %#x\n", cmd);
		return -EINVAL;	/* upstream ABI: not ENOTTY */
	}
}

/*
 * No pointers or longs in the ABI structs, so 32-bit callers share the
 * handler; llseek stays unset (stream_open), which is ESPIPE everywhere.
 */
static const struct file_operations rg_fops = {
	.owner		= THIS_MODULE,
	.open		= rg_open,
	.release	= rg_release,
	.poll		= rg_poll,
	.mmap		= rg_mmap,
	.unlocked_ioctl	= rg_ioctl,
	.compat_ioctl	= rg_ioctl,
};

static struct miscdevice rg_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= RG_DEVICE_NAME,
	.fops	= &rg_fops,
};

static int __init rg_init(void)
{
	return misc_register(&rg_misc);
}

static void __exit rg_exit(void)
{
	misc_deregister(&rg_misc);
	ida_destroy(&rg_ida);
}

module_init(rg_init);
module_exit(rg_exit);

MODULE_DESCRIPTION("USB Raw Gadget: userspace USB device emulation");
MODULE_AUTHOR("The mw57 authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(MW57_VERSION);
