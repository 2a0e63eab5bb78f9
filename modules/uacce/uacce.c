// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The mw57 authors. */
/*
 * uacce - the user-space accelerator framework (Linux 5.7) for Debian's
 * kernels, which build without it.
 *
 * A driver registers an accelerator; every open of /dev/<name>-<id> gets a
 * new queue; the queue's regions (MMIO, DUS) are mapped by page offset,
 * each once; UACCE_CMD_START_Q / UACCE_CMD_PUT_Q start and stop it; poll()
 * reports completions.  The userspace ABI and the sysfs attributes are
 * upstream's (the 6.12 isolate attributes on every kernel).  Only non-SVA
 * mode is usable on x86 (the kernels refuse SVA binding); a driver asking
 * for SVA gets flags 0 back, as upstream negotiates it.
 *
 * Where this differs from upstream, on purpose (README.md):
 *  - remove is safe with live queues: each queue is marked dead (no new
 *    op, mmap or ioctl reaches the driver), its user mappings are zapped
 *    (one that an mmap racing with remove is still setting up included),
 *    then it is stopped and put; pollers are woken and see EPOLLERR|HUP;
 *  - each queue zaps the mapping of the file that opened it (several
 *    device nodes work), and a region is free again once its VMA closes;
 *  - mappings cannot be split (partial munmap, mprotect: -EINVAL) or moved
 *    (mremap: -EPERM; the copy the core makes meanwhile is counted, so its
 *    unmap frees nothing), and the region size must be the advertised one;
 *  - an open racing with remove holds a device reference, not a pointer.
 *
 * Locks: uacce->mutex (ops, parent, the queue list; open, release, remove
 * and driver ioctls) then q->mutex (state and regions; START/PUT, mmap,
 * VMA close, poll).  Driver ioctls run without q->mutex, since they may
 * fault on user memory while mmap holds mmap_lock and wants q->mutex.
 * Remove takes an mm's mmap_lock under uacce->mutex (uacce_zap_queue()).
 */

#include <linux/compat.h>
#include <linux/fs.h>
#include <linux/iommu.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "mw57_uacce.h"

static dev_t uacce_devt;
static DEFINE_XARRAY_ALLOC(uacce_xa);
static struct class uacce_class = {
	.name = UACCE_NAME,
};

#define to_uacce_device(d) container_of(d, struct uacce_device, dev)

/* --- queue life ----------------------------------------------------------- */

static int uacce_bind_queue(struct uacce_device *uacce, struct uacce_queue *q)
{
	struct iommu_sva *handle;
	u32 pasid;

	if (!(uacce->flags & UACCE_DEV_SVA))
		return 0;
	handle = mw57_iommu_sva_bind_device(uacce->parent, current->mm);
	if (IS_ERR(handle))
		return PTR_ERR(handle);
	pasid = iommu_sva_get_pasid(handle);
	if (pasid == IOMMU_PASID_INVALID) {
		iommu_sva_unbind_device(handle);
		return -ENODEV;
	}
	q->handle = handle;
	q->pasid = pasid;
	return 0;
}

static void uacce_unbind_queue(struct uacce_queue *q)
{
	if (!q->handle)
		return;
	iommu_sva_unbind_device(q->handle);
	q->handle = NULL;
}

/*
 * Hand a queue that was in STATE (now ZOMBIE) back to the driver.  Under
 * uacce->mutex, with ops still set.
 */
static void uacce_release_queue(struct uacce_device *uacce,
				struct uacce_queue *q, enum uacce_q_state state)
{
	if (state == UACCE_Q_STARTED && uacce->ops->stop_queue)
		uacce->ops->stop_queue(q);
	if (uacce->ops->put_queue)
		uacce->ops->put_queue(q);
	uacce_unbind_queue(q);
}

/* Mark Q dead; returns the state it had. */
static enum uacce_q_state uacce_kill_queue(struct uacce_queue *q)
{
	enum uacce_q_state state;

	mutex_lock(&q->mutex);
	state = q->state;
	WRITE_ONCE(q->state, UACCE_Q_ZOMBIE);
	mutex_unlock(&q->mutex);
	return state;
}

static int uacce_start_queue(struct uacce_queue *q)
{
	const struct uacce_ops *ops;
	int ret = 0;

	mutex_lock(&q->mutex);
	if (q->state == UACCE_Q_ZOMBIE) {
		ret = -ENXIO;
		goto out;
	}
	if (q->state != UACCE_Q_INIT) {
		ret = -EINVAL;
		goto out;
	}
	/* a live queue means remove has not reached it: ops is set */
	ops = q->uacce->ops;
	if (ops->start_queue)
		ret = ops->start_queue(q);
	if (!ret)
		WRITE_ONCE(q->state, UACCE_Q_STARTED);
out:
	mutex_unlock(&q->mutex);
	return ret;
}

/* PUT_Q only stops: the queue is released at close or remove. */
static int uacce_put_queue(struct uacce_queue *q)
{
	const struct uacce_ops *ops;
	int ret = 0;

	mutex_lock(&q->mutex);
	if (q->state == UACCE_Q_ZOMBIE) {
		ret = -ENXIO;
	} else if (q->state == UACCE_Q_STARTED) {
		ops = q->uacce->ops;
		if (ops->stop_queue)
			ops->stop_queue(q);
		WRITE_ONCE(q->state, UACCE_Q_INIT);
	}
	mutex_unlock(&q->mutex);
	return ret;
}

/* --- file operations ------------------------------------------------------- */

static int uacce_fops_open(struct inode *inode, struct file *filep)
{
	struct uacce_device *uacce;
	struct uacce_queue *q;
	int ret;

	xa_lock(&uacce_xa);
	uacce = xa_load(&uacce_xa, iminor(inode));
	if (uacce)
		get_device(&uacce->dev);
	xa_unlock(&uacce_xa);
	if (!uacce)
		return -ENODEV;

	q = kzalloc(sizeof(*q), GFP_KERNEL);
	if (!q) {
		ret = -ENOMEM;
		goto err_put_dev;
	}
	q->uacce = uacce;
	init_waitqueue_head(&q->wait);
	mutex_init(&q->mutex);
	q->mapping = filep->f_mapping;

	mutex_lock(&uacce->mutex);
	if (!uacce->ops) {
		ret = -ENODEV;
		goto err_unlock;
	}
	ret = uacce_bind_queue(uacce, q);
	if (ret)
		goto err_unlock;
	if (uacce->ops->get_queue) {
		ret = uacce->ops->get_queue(uacce, q->pasid, q);
		if (ret)
			goto err_unbind;
	}
	q->state = UACCE_Q_INIT;
	list_add(&q->list, &uacce->queues);
	mutex_unlock(&uacce->mutex);

	filep->private_data = q;
	return nonseekable_open(inode, filep);

err_unbind:
	uacce_unbind_queue(q);
err_unlock:
	mutex_unlock(&uacce->mutex);
	mutex_destroy(&q->mutex);
	kfree(q);
err_put_dev:
	put_device(&uacce->dev);
	return ret;
}

/* Runs once every VMA is gone: each one holds a reference to the file. */
static int uacce_fops_release(struct inode *inode, struct file *filep)
{
	struct uacce_queue *q = filep->private_data;
	struct uacce_device *uacce = q->uacce;
	enum uacce_q_state state;

	mutex_lock(&uacce->mutex);
	state = uacce_kill_queue(q);
	if (state != UACCE_Q_ZOMBIE)
		uacce_release_queue(uacce, q, state);
	list_del(&q->list);
	mutex_unlock(&uacce->mutex);

	mutex_destroy(&q->mutex);
	kfree(q);
	put_device(&uacce->dev);
	return 0;
}

static long uacce_fops_unl_ioctl(struct file *filep, unsigned int cmd,
				 unsigned long arg)
{
	struct uacce_queue *q = filep->private_data;
	struct uacce_device *uacce = q->uacce;
	long ret;

	switch (cmd) {
	case UACCE_CMD_START_Q:
		return uacce_start_queue(q);
	case UACCE_CMD_PUT_Q:
		return uacce_put_queue(q);
	}

	mutex_lock(&uacce->mutex);
	if (!uacce->ops || READ_ONCE(q->state) == UACCE_Q_ZOMBIE)
		ret = -ENXIO;
	else if (!uacce->ops->ioctl)
		ret = -EINVAL;
	else
		ret = uacce->ops->ioctl(q, cmd, arg);
	mutex_unlock(&uacce->mutex);
	return ret;
}

/* A VMA duplicated by the core (copy_vma() in mremap) shares the record. */
static void uacce_vma_open(struct vm_area_struct *vma)
{
	struct uacce_qfile_region *qfr = vma->vm_private_data;

	mutex_lock(&qfr->q->mutex);
	qfr->users++;
	mutex_unlock(&qfr->q->mutex);
}

static void uacce_vma_close(struct vm_area_struct *vma)
{
	struct uacce_qfile_region *qfr = vma->vm_private_data;
	struct uacce_queue *q = qfr->q;
	bool last;

	/* the VMA's file reference keeps the queue alive */
	mutex_lock(&q->mutex);
	last = !--qfr->users;
	if (last && q->qfrs[qfr->type] == qfr)
		q->qfrs[qfr->type] = NULL;
	mutex_unlock(&q->mutex);
	if (last)
		kfree(qfr);
}

/* Refuse moves (the core then unmaps the copy it made: users drops). */
static int uacce_vma_mremap(struct vm_area_struct *vma)
{
	return -EPERM;
}

/* A split would give two VMAs one region record: refuse. */
static int uacce_vma_may_split(struct vm_area_struct *vma, unsigned long addr)
{
	return -EINVAL;
}

static const struct vm_operations_struct uacce_vm_ops = {
	.open = uacce_vma_open,
	.close = uacce_vma_close,
	.mremap = uacce_vma_mremap,
	.may_split = uacce_vma_may_split,
};

static int uacce_fops_mmap(struct file *filep, struct vm_area_struct *vma)
{
	struct uacce_queue *q = filep->private_data;
	struct uacce_device *uacce = q->uacce;
	struct uacce_qfile_region *qfr;
	enum uacce_qfrt type;
	int ret;

	if (vma->vm_pgoff >= UACCE_MAX_REGION)
		return -EINVAL;
	/* a private copy of a queue region means nothing: MAP_SHARED only */
	if (!(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	type = vma->vm_pgoff;

	qfr = kzalloc(sizeof(*qfr), GFP_KERNEL);
	if (!qfr)
		return -ENOMEM;
	qfr->type = type;
	qfr->q = q;
	qfr->mm = vma->vm_mm;
	qfr->users = 1;

	mutex_lock(&q->mutex);
	if (q->state == UACCE_Q_ZOMBIE) {
		ret = -ENXIO;
		goto err_unlock;
	}
	if (q->qfrs[type]) {
		ret = -EEXIST;
		goto err_unlock;
	}
	if (!uacce->ops->mmap || !uacce->qf_pg_num[type] ||
	    vma_pages(vma) != uacce->qf_pg_num[type]) {
		ret = -EINVAL;
		goto err_unlock;
	}
	mw57_vm_flags_set(vma, VM_DONTCOPY | VM_DONTEXPAND | VM_WIPEONFORK);
	ret = uacce->ops->mmap(q, vma, qfr);
	if (ret)
		goto err_unlock;
	/* only now: a failed mmap must not close a freed record */
	vma->vm_private_data = qfr;
	vma->vm_ops = &uacce_vm_ops;
	q->qfrs[type] = qfr;
	mutex_unlock(&q->mutex);
	return 0;

err_unlock:
	mutex_unlock(&q->mutex);
	kfree(qfr);
	return ret;
}

static __poll_t uacce_fops_poll(struct file *file, poll_table *wait)
{
	struct uacce_queue *q = file->private_data;
	const struct uacce_ops *ops;
	__poll_t ret = 0;

	mutex_lock(&q->mutex);
	if (q->state == UACCE_Q_ZOMBIE) {
		/* removed (the only way a queue dies while its file lives) */
		ret = EPOLLERR | EPOLLHUP;
		goto out;
	}
	poll_wait(file, &q->wait, wait);
	ops = q->uacce->ops;
	if (ops->is_q_updated && ops->is_q_updated(q))
		ret = EPOLLIN | EPOLLRDNORM;
out:
	mutex_unlock(&q->mutex);
	return ret;
}

static const struct file_operations uacce_fops = {
	.owner = THIS_MODULE,
	.open = uacce_fops_open,
	.release = uacce_fops_release,
	.unlocked_ioctl = uacce_fops_unl_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = uacce_fops_mmap,
	.poll = uacce_fops_poll,
};

/* --- sysfs ------------------------------------------------------------------ */

static ssize_t api_show(struct device *dev, struct device_attribute *attr,
			char *buf)
{
	return sysfs_emit(buf, "%s\n", to_uacce_device(dev)->api_ver);
}
static DEVICE_ATTR_RO(api);

static ssize_t flags_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	return sysfs_emit(buf, "%u\n", to_uacce_device(dev)->flags);
}
static DEVICE_ATTR_RO(flags);

/*
 * The show/store functions below call driver ops without uacce->mutex:
 * remove deletes the attributes (and waits for running ones) before it
 * clears ops.
 */
static ssize_t available_instances_show(struct device *dev,
					struct device_attribute *attr,
					char *buf)
{
	struct uacce_device *uacce = to_uacce_device(dev);

	if (!uacce->ops->get_available_instances)
		return -ENODEV;
	return sysfs_emit(buf, "%d\n",
			  uacce->ops->get_available_instances(uacce));
}
static DEVICE_ATTR_RO(available_instances);

static ssize_t algorithms_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", to_uacce_device(dev)->algs);
}
static DEVICE_ATTR_RO(algorithms);

static ssize_t region_mmio_size_show(struct device *dev,
				     struct device_attribute *attr, char *buf)
{
	struct uacce_device *uacce = to_uacce_device(dev);

	return sysfs_emit(buf, "%lu\n",
			  uacce->qf_pg_num[UACCE_QFRT_MMIO] << PAGE_SHIFT);
}
static DEVICE_ATTR_RO(region_mmio_size);

static ssize_t region_dus_size_show(struct device *dev,
				    struct device_attribute *attr, char *buf)
{
	struct uacce_device *uacce = to_uacce_device(dev);

	return sysfs_emit(buf, "%lu\n",
			  uacce->qf_pg_num[UACCE_QFRT_DUS] << PAGE_SHIFT);
}
static DEVICE_ATTR_RO(region_dus_size);

static ssize_t isolate_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	struct uacce_device *uacce = to_uacce_device(dev);

	return sysfs_emit(buf, "%d\n", uacce->ops->get_isolate_state(uacce));
}
static DEVICE_ATTR_RO(isolate);

static ssize_t isolate_strategy_show(struct device *dev,
				     struct device_attribute *attr, char *buf)
{
	struct uacce_device *uacce = to_uacce_device(dev);

	if (!uacce->ops->isolate_err_threshold_read)
		return -ENOENT;
	return sysfs_emit(buf, "%u\n",
			  uacce->ops->isolate_err_threshold_read(uacce));
}

static ssize_t isolate_strategy_store(struct device *dev,
				      struct device_attribute *attr,
				      const char *buf, size_t count)
{
	struct uacce_device *uacce = to_uacce_device(dev);
	unsigned long val;
	int ret;

	if (kstrtoul(buf, 0, &val) < 0)
		return -EINVAL;
	if (val > UACCE_MAX_ERR_THRESHOLD)
		return -EINVAL;
	if (!uacce->ops->isolate_err_threshold_write)
		return -ENOENT;
	ret = uacce->ops->isolate_err_threshold_write(uacce, val);
	return ret ? ret : count;
}
static DEVICE_ATTR_RW(isolate_strategy);

static struct attribute *uacce_dev_attrs[] = {
	&dev_attr_api.attr,
	&dev_attr_flags.attr,
	&dev_attr_available_instances.attr,
	&dev_attr_algorithms.attr,
	&dev_attr_region_mmio_size.attr,
	&dev_attr_region_dus_size.attr,
	&dev_attr_isolate.attr,
	&dev_attr_isolate_strategy.attr,
	NULL,
};

static umode_t uacce_dev_is_visible(struct kobject *kobj,
				    struct attribute *attr, int n)
{
	struct uacce_device *uacce = to_uacce_device(kobj_to_dev(kobj));
	const struct uacce_ops *ops = uacce->ops;

	if ((attr == &dev_attr_region_mmio_size.attr &&
	     !uacce->qf_pg_num[UACCE_QFRT_MMIO]) ||
	    (attr == &dev_attr_region_dus_size.attr &&
	     !uacce->qf_pg_num[UACCE_QFRT_DUS]))
		return 0;
	if (attr == &dev_attr_isolate.attr && !ops->get_isolate_state)
		return 0;
	if (attr == &dev_attr_isolate_strategy.attr &&
	    !ops->isolate_err_threshold_read &&
	    !ops->isolate_err_threshold_write)
		return 0;
	return attr->mode;
}

static const struct attribute_group uacce_dev_group = {
	.is_visible = uacce_dev_is_visible,
	.attrs = uacce_dev_attrs,
};
__ATTRIBUTE_GROUPS(uacce_dev);

/* --- driver API --------------------------------------------------------------- */

/* Negotiate SVA: the flags the device ends up with (never fails). */
static unsigned int uacce_enable_sva(struct device *parent, unsigned int flags)
{
	int ret;

	if (!(flags & UACCE_DEV_SVA))
		return flags;
	flags &= ~UACCE_DEV_SVA;
	ret = mw57_iommu_enable_iopf(parent);
	if (ret) {
		dev_err(parent, "failed to enable IOPF feature! ret = %pe\n",
			ERR_PTR(ret));
		return flags;
	}
	ret = mw57_iommu_enable_sva(parent);
	if (ret) {
		dev_err(parent, "failed to enable SVA feature! ret = %pe\n",
			ERR_PTR(ret));
		mw57_iommu_disable_iopf(parent);
		return flags;
	}
	return flags | UACCE_DEV_SVA;
}

static void uacce_disable_sva(struct uacce_device *uacce)
{
	if (!(uacce->flags & UACCE_DEV_SVA))
		return;
	mw57_iommu_disable_sva(uacce->parent);
	mw57_iommu_disable_iopf(uacce->parent);
}

static void uacce_release(struct device *dev)
{
	kfree(to_uacce_device(dev));
}

/**
 * uacce_alloc() - allocate an accelerator
 * @parent: the device it belongs to
 * @interface: name, requested flags and ops
 *
 * The caller fills algs, api_ver, qf_pg_num and priv, then registers it.
 * It must check the negotiated uacce->flags.
 *
 * Return: the device or an ERR_PTR().
 */
struct uacce_device *uacce_alloc(struct device *parent,
				 struct uacce_interface *interface)
{
	struct uacce_device *uacce;
	int ret;

	if (!parent || !interface || !interface->ops)
		return ERR_PTR(-EINVAL);
	uacce = kzalloc(sizeof(*uacce), GFP_KERNEL);
	if (!uacce)
		return ERR_PTR(-ENOMEM);

	uacce->parent = parent;
	uacce->ops = interface->ops;
	INIT_LIST_HEAD(&uacce->queues);
	mutex_init(&uacce->mutex);
	device_initialize(&uacce->dev);
	uacce->dev.class = &uacce_class;
	uacce->dev.groups = uacce_dev_groups;
	uacce->dev.parent = parent;
	uacce->dev.release = uacce_release;

	/* the id is the minor: at most MINORMASK of them */
	ret = xa_alloc(&uacce_xa, &uacce->dev_id, uacce,
		       XA_LIMIT(0, MINORMASK - 1), GFP_KERNEL);
	if (ret < 0)
		goto err_put;
	uacce->dev.devt = MKDEV(MAJOR(uacce_devt), uacce->dev_id);
	ret = dev_set_name(&uacce->dev, "%s-%u", interface->name,
			   uacce->dev_id);
	if (ret)
		goto err_erase;
	uacce->flags = uacce_enable_sva(parent, interface->flags);
	return uacce;

err_erase:
	xa_erase(&uacce_xa, uacce->dev_id);
err_put:
	put_device(&uacce->dev);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(uacce_alloc);

/**
 * uacce_register() - make the accelerator visible (/dev/<name>-<id>)
 * @uacce: from uacce_alloc()
 *
 * Return: 0 or a negative errno; uacce_remove() is still needed on error.
 */
int uacce_register(struct uacce_device *uacce)
{
	int ret;

	if (!uacce)
		return -ENODEV;
	uacce->cdev = cdev_alloc();
	if (!uacce->cdev)
		return -ENOMEM;
	uacce->cdev->ops = &uacce_fops;
	uacce->cdev->owner = THIS_MODULE;
	/*
	 * cdev_device_add() by hand: on its failure the caller cannot tell
	 * a cdev that it deleted (and so freed) from one it never added.
	 * An open file pins the device through the cdev's parent reference,
	 * which cdev_add() takes on success only and the release of a
	 * cdev_alloc() cdev drops.
	 */
	cdev_set_parent(uacce->cdev, &uacce->dev.kobj);
	ret = cdev_add(uacce->cdev, uacce->dev.devt, 1);
	if (ret) {
		dev_dbg(uacce->parent, "cdev_add: %d\n", ret);
		/* the reference that the cdev's release will drop */
		get_device(&uacce->dev);
		goto err_put;
	}
	ret = device_add(&uacce->dev);
	if (ret) {
		dev_dbg(uacce->parent, "device_add: %d\n", ret);
		cdev_del(uacce->cdev);	/* frees it: ours was the last reference */
		goto err_forget;
	}
	return 0;

err_put:
	kobject_put(&uacce->cdev->kobj);
err_forget:
	/* never added, or deleted: remove must not delete it */
	uacce->cdev = NULL;
	return ret;
}
EXPORT_SYMBOL_GPL(uacce_register);

/*
 * Zap Q's user mappings; Q is dead already, so no ->mmap populates one
 * after this.  But a VMA whose ->mmap ran before Q died is linked into the
 * file's mapping tree only after ->mmap returns, under its mm's mmap_lock
 * held for writing: the zap would miss a VMA not linked yet, which then
 * keeps its pages.  So wait for the mmap_lock of every mm that holds a
 * region record first (uacce->mutex is taken before mmap_lock, and Q's
 * mutex, which nests inside it, is not held while waiting).
 */
static void uacce_zap_queue(struct uacce_queue *q)
{
	struct mm_struct *mms[UACCE_MAX_REGION];
	int i, n = 0;

	mutex_lock(&q->mutex);
	for (i = 0; i < UACCE_MAX_REGION; i++) {
		if (!q->qfrs[i])
			continue;
		mms[n] = q->qfrs[i]->mm;
		mmgrab(mms[n++]);
	}
	mutex_unlock(&q->mutex);
	for (i = 0; i < n; i++) {
		mmap_read_lock(mms[i]);
		mmap_read_unlock(mms[i]);
		mmdrop(mms[i]);
	}
	unmap_mapping_range(q->mapping, 0, 0, 1);
}

/**
 * uacce_remove() - remove the accelerator, revoking every open queue
 * @uacce: from uacce_alloc(), registered or not; NULL is ignored
 *
 * Each live queue is marked dead, its user mappings are zapped (a later
 * touch gets SIGBUS), then it is stopped and put, and its pollers are
 * woken.  Open files stay valid: ioctl and mmap give -ENXIO, poll
 * EPOLLERR | EPOLLHUP, close works.  No op is called after this returns,
 * so the driver may free everything and its module may go.
 */
void uacce_remove(struct uacce_device *uacce)
{
	enum uacce_q_state state;
	struct uacce_queue *q;

	if (!uacce)
		return;

	mutex_lock(&uacce->mutex);
	list_for_each_entry(q, &uacce->queues, list) {
		state = uacce_kill_queue(q);
		uacce_zap_queue(q);
		if (state != UACCE_Q_ZOMBIE)
			uacce_release_queue(uacce, q, state);
		wake_up_interruptible_all(&q->wait);
	}
	uacce_disable_sva(uacce);
	/* deletes the sysfs attributes and waits for running ones */
	if (uacce->cdev)
		cdev_device_del(uacce->cdev, &uacce->dev);
	xa_erase(&uacce_xa, uacce->dev_id);
	uacce->ops = NULL;
	uacce->parent = NULL;
	mutex_unlock(&uacce->mutex);
	put_device(&uacce->dev);
}
EXPORT_SYMBOL_GPL(uacce_remove);

static int __init uacce_init(void)
{
	int ret;

	ret = class_register(&uacce_class);
	if (ret)
		return ret;
	ret = alloc_chrdev_region(&uacce_devt, 0, MINORMASK, UACCE_NAME);
	if (ret)
		goto err_class;
	return 0;

err_class:
	class_unregister(&uacce_class);
	return ret;
}

static void __exit uacce_exit(void)
{
	unregister_chrdev_region(uacce_devt, MINORMASK);
	class_unregister(&uacce_class);
}

module_init(uacce_init);
module_exit(uacce_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("The mw57 authors");
MODULE_DESCRIPTION("Unified/User-space-access-intended accelerator framework");
MODULE_VERSION(MW57_VERSION);
