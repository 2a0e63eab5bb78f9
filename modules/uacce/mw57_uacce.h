/* SPDX-License-Identifier: GPL-2.0 */
/* Copyright (C) 2026 The mw57 authors. */
/*
 * Kernel API of mw57's uacce framework (modules/uacce).  It has our own
 * file name because Debian's header packages ship a stub <linux/uacce.h>
 * (CONFIG_UACCE off) that kbuild would find first.  The names and the
 * calling sequence are upstream's (alloc, fill, register, ..., remove);
 * the isolate ops of 6.3+ are offered on every kernel.  The userspace ABI
 * comes from the packaged <uapi/misc/uacce/uacce.h>, identical in both
 * trees.
 *
 * Driver rules (see README.md): map only refcounted memory in ->mmap
 * (remap_vmalloc_range, vm_insert_page), never set vma->vm_ops, make
 * ->stop_queue synchronous, and keep ->is_q_updated lock-free; after
 * uacce_remove() returns the framework calls no op again.
 *
 * Locks: ->start_queue, ->stop_queue (for UACCE_CMD_PUT_Q), ->mmap and
 * ->is_q_updated run under q->mutex, which nests inside mmap_lock (mmap
 * and munmap take it with mmap_lock held), so these ops must not take
 * mmap_lock nor touch user memory (copy_{from,to}_user, get_user_pages).
 * ->get_queue, ->ioctl, and ->stop_queue/->put_queue at close and in
 * uacce_remove() run under uacce->mutex, which is taken before q->mutex
 * and never with mmap_lock held: ->ioctl may copy from and to the user.
 */
#ifndef _MW57_UACCE_H
#define _MW57_UACCE_H

#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/list.h>
#include <linux/mm_types.h>
#include <linux/mutex.h>
#include <linux/wait.h>
#include <uapi/misc/uacce/uacce.h>

#define UACCE_NAME		"uacce"
#define UACCE_MAX_REGION	2
#define UACCE_MAX_NAME_SIZE	64
#define UACCE_MAX_ERR_THRESHOLD	65535

struct uacce_queue;
struct uacce_device;

/*
 * One mapped region of a queue, the private data of its VMAs.  users
 * counts them (a failed mremap briefly makes two), under q->mutex.
 */
struct uacce_qfile_region {
	enum uacce_qfrt type;
	struct uacce_queue *q;
	unsigned int users;
	struct mm_struct *mm;	/* of the mapping; remove waits for its mmap */
};

enum uacce_dev_state {
	UACCE_DEV_NORMAL,
	UACCE_DEV_ISOLATE,
};

/* Every op is optional. */
struct uacce_ops {
	int (*get_available_instances)(struct uacce_device *uacce);
	int (*get_queue)(struct uacce_device *uacce, unsigned long arg,
			 struct uacce_queue *q);
	void (*put_queue)(struct uacce_queue *q);
	int (*start_queue)(struct uacce_queue *q);
	void (*stop_queue)(struct uacce_queue *q);
	int (*is_q_updated)(struct uacce_queue *q);
	int (*mmap)(struct uacce_queue *q, struct vm_area_struct *vma,
		    struct uacce_qfile_region *qfr);
	long (*ioctl)(struct uacce_queue *q, unsigned int cmd,
		      unsigned long arg);
	enum uacce_dev_state (*get_isolate_state)(struct uacce_device *uacce);
	int (*isolate_err_threshold_write)(struct uacce_device *uacce, u32 num);
	u32 (*isolate_err_threshold_read)(struct uacce_device *uacce);
};

struct uacce_interface {
	char name[UACCE_MAX_NAME_SIZE];
	unsigned int flags;		/* requested: 0 or UACCE_DEV_SVA */
	const struct uacce_ops *ops;
};

enum uacce_q_state {
	UACCE_Q_ZOMBIE = 0,
	UACCE_Q_INIT,
	UACCE_Q_STARTED,
};

struct uacce_queue {
	struct uacce_device *uacce;
	void *priv;			/* the driver's, set in get_queue */
	wait_queue_head_t wait;
	struct list_head list;
	struct uacce_qfile_region *qfrs[UACCE_MAX_REGION];
	struct mutex mutex;		/* state, qfrs */
	enum uacce_q_state state;
	u32 pasid;
	struct iommu_sva *handle;
	struct address_space *mapping;	/* of the file that opened it */
};

struct uacce_device {
	const char *algs;
	const char *api_ver;
	const struct uacce_ops *ops;	/* NULL once removed */
	unsigned long qf_pg_num[UACCE_MAX_REGION];
	struct device *parent;		/* NULL once removed */
	bool is_vf;
	u32 flags;			/* negotiated */
	u32 dev_id;
	struct cdev *cdev;
	struct device dev;
	struct mutex mutex;		/* ops, parent, queues */
	void *priv;
	struct list_head queues;
};

struct uacce_device *uacce_alloc(struct device *parent,
				 struct uacce_interface *interface);
int uacce_register(struct uacce_device *uacce);
void uacce_remove(struct uacce_device *uacce);

#endif /* _MW57_UACCE_H */
