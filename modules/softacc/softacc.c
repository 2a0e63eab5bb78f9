// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The mw57 authors. */
/*
 * softacc - a software accelerator on uacce, so the framework can be used
 * and tested on machines without accelerator hardware.
 *
 * nr_devs platform devices "softacc.N", each a uacce device "softacc-<id>"
 * (api softacc_v1, algorithms crc32c, memcpy, nop) with nr_queues queues.
 * A queue is a doorbell page (MMIO region) and a ring + data region (DUS),
 * both vmalloc_user() memory mapped with remap_vmalloc_range(), so user
 * mappings hold page references of their own.  The queue ABI is in
 * include/uapi/mw57/softacc.h.
 *
 * The "device" is one kernel thread per started queue that polls the
 * doorbell (backing off from 50 us to 2 ms when idle; SOFTACC_CMD_KICK
 * wakes it), runs the SQEs and writes CQEs, then wakes pollers.
 *
 * Policies (README.md): START_Q gives a fresh ring; PUT_Q stops the
 * engine after the SQE in flight; a FAIL job counts as a device error and
 * the device isolates when isolate_strategy errors happen within an hour
 * (0: never); an isolated device refuses new queues (-EIO) until its
 * debugfs "reset".  Unbinding the driver revokes open queues
 * (remove_policy=revoke, upstream's semantics) or waits until they are
 * closed (remove_policy=wait, HiSilicon's; a signal to the unbinding
 * process ends the wait and revokes).
 */

#include <linux/crc32.h>
#include <linux/debugfs.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/platform_device.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "../uacce/mw57_uacce.h"
#include <mw57/softacc.h>

#define SOFTACC_MAX_DEVS	8
#define SOFTACC_SQ_DEPTH	64
#define SOFTACC_CQ_DEPTH	64
#define SOFTACC_SQ_OFF		256
#define SOFTACC_CQ_OFF		(SOFTACC_SQ_OFF + \
				 SOFTACC_SQ_DEPTH * sizeof(struct softacc_sqe))
#define SOFTACC_DATA_OFF	8192
#define SOFTACC_TAIL_SIZE	64	/* status words at the end */
#define SOFTACC_BACKOFF_MIN_US	50
#define SOFTACC_BACKOFF_MAX_US	2000
#define SOFTACC_BATCH		16
#define SOFTACC_MAX_ERRORS	64	/* timestamps kept for isolation */

static unsigned int nr_devs = 1;
module_param(nr_devs, uint, 0444);
MODULE_PARM_DESC(nr_devs, "Number of devices (1-8)");

static unsigned int nr_queues = 4;
module_param(nr_queues, uint, 0444);
MODULE_PARM_DESC(nr_queues, "Queues per device (1-64)");

static unsigned int dus_pages = 16;
module_param(dus_pages, uint, 0444);
MODULE_PARM_DESC(dus_pages, "Pages of each queue's DUS region (3-1024)");

static bool request_sva;
module_param(request_sva, bool, 0644);
MODULE_PARM_DESC(request_sva, "Ask uacce for SVA (falls back to 0 on x86)");

enum softacc_policy { SOFTACC_REVOKE, SOFTACC_WAIT };
static const char * const softacc_policy_names[] = { "revoke", "wait" };
static enum softacc_policy remove_policy = SOFTACC_REVOKE;

static int softacc_policy_set(const char *val, const struct kernel_param *kp)
{
	int i = sysfs_match_string(softacc_policy_names, val);

	if (i < 0)
		return -EINVAL;
	WRITE_ONCE(remove_policy, i);
	return 0;
}

static int softacc_policy_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n",
			  softacc_policy_names[READ_ONCE(remove_policy)]);
}

static const struct kernel_param_ops softacc_policy_ops = {
	.set = softacc_policy_set,
	.get = softacc_policy_get,
};
module_param_cb(remove_policy, &softacc_policy_ops, NULL, 0644);
MODULE_PARM_DESC(remove_policy,
		 "Unbind with open queues: revoke (default) or wait");

struct softacc_dev {
	struct platform_device *pdev;
	struct uacce_device *uacce;
	struct dentry *debugfs;
	struct mutex lock;		/* everything below */
	unsigned int nr_used;
	bool removing;
	wait_queue_head_t idle_wq;	/* nr_used reached 0 */
	u32 err_threshold;		/* errors per hour; 0: never isolate */
	unsigned int nr_errors;		/* in errors[] */
	unsigned long errors[SOFTACC_MAX_ERRORS];	/* jiffies */
	bool isolated;
};

struct softacc_queue {
	struct softacc_dev *sdev;
	struct uacce_queue *q;
	struct softacc_doorbell *db;	/* MMIO region */
	void *dus;			/* DUS region */
	size_t dus_size;
	u32 data_size;
	spinlock_t engine_lock;		/* engine */
	struct task_struct *engine;
	/* owned by the engine thread while it runs */
	u32 sq_head;
	u32 cq_tail;
};

static struct platform_device *softacc_pdevs[SOFTACC_MAX_DEVS];
static struct dentry *softacc_debugfs;

/* --- errors and isolation ---------------------------------------------------- */

/*
 * A device error: remember when, forget those older than an hour, and
 * isolate when the threshold is reached.  At most SOFTACC_MAX_ERRORS
 * timestamps are kept: a higher threshold isolates at that many errors.
 */
static void softacc_device_error(struct softacc_dev *sdev)
{
	unsigned long hour_ago = jiffies - 3600 * HZ;
	unsigned int i, n = 0;

	mutex_lock(&sdev->lock);
	if (!sdev->err_threshold)
		goto out;
	for (i = 0; i < sdev->nr_errors; i++)
		if (time_after(sdev->errors[i], hour_ago))
			sdev->errors[n++] = sdev->errors[i];
	if (n == ARRAY_SIZE(sdev->errors)) {
		memmove(sdev->errors, sdev->errors + 1,
			(n - 1) * sizeof(sdev->errors[0]));
		n--;
	}
	sdev->errors[n++] = jiffies;
	sdev->nr_errors = n;
	if (n >= min_t(u32, sdev->err_threshold, ARRAY_SIZE(sdev->errors)))
		sdev->isolated = true;
out:
	mutex_unlock(&sdev->lock);
}

static enum uacce_dev_state softacc_get_isolate_state(struct uacce_device *uacce)
{
	struct softacc_dev *sdev = uacce->priv;

	return READ_ONCE(sdev->isolated) ? UACCE_DEV_ISOLATE : UACCE_DEV_NORMAL;
}

static int softacc_isolate_write(struct uacce_device *uacce, u32 num)
{
	struct softacc_dev *sdev = uacce->priv;
	int ret = 0;

	mutex_lock(&sdev->lock);
	if (sdev->isolated) {
		ret = -EPERM;
	} else {
		sdev->err_threshold = num;
		sdev->nr_errors = 0;
	}
	mutex_unlock(&sdev->lock);
	return ret;
}

static u32 softacc_isolate_read(struct uacce_device *uacce)
{
	struct softacc_dev *sdev = uacce->priv;

	return READ_ONCE(sdev->err_threshold);
}

/* --- the engine ---------------------------------------------------------------- */

static bool softacc_range_ok(u32 off, u32 len, u32 size)
{
	return (u64)off + len <= size;
}

static void softacc_exec(struct softacc_queue *sq, const struct softacc_sqe *e,
			 struct softacc_cqe *c)
{
	u8 *data = (u8 *)sq->dus + SOFTACC_DATA_OFF;

	c->tag = e->tag;
	c->status = 0;
	c->result = 0;
	switch (e->opcode) {
	case SOFTACC_OP_NOP:
		break;
	case SOFTACC_OP_MEMCPY:
		if (!softacc_range_ok(e->src_off, e->src_len, sq->data_size) ||
		    !softacc_range_ok(e->dst_off, e->dst_len, sq->data_size))
			c->status = -EINVAL;
		else if (e->dst_len < e->src_len)
			c->status = -ERANGE;
		else
			memmove(data + e->dst_off, data + e->src_off,
				e->src_len);
		c->result = c->status ? 0 : e->src_len;
		break;
	case SOFTACC_OP_CRC32C:
		if (!softacc_range_ok(e->src_off, e->src_len, sq->data_size))
			c->status = -EINVAL;
		else
			c->result = ~mw57_crc32c(~e->seed, data + e->src_off,
						 e->src_len);
		break;
	case SOFTACC_OP_FAIL:
		c->status = -EIO;
		softacc_device_error(sq->sdev);
		break;
	default:
		c->status = -EINVAL;
	}
}

/* Run up to a batch of SQEs; returns how many completed. */
static int softacc_run(struct softacc_queue *sq)
{
	struct softacc_doorbell *db = sq->db;
	u8 *base = sq->dus;
	struct softacc_sqe sqe;
	struct softacc_cqe cqe, *slot;
	u32 tail = READ_ONCE(db->sq_tail);
	int done = 0;

	if (tail - sq->sq_head > SOFTACC_SQ_DEPTH) {
		/* more than a ring: a broken producer, drop its doorbell */
		WRITE_ONCE(db->err_count, db->err_count + 1);
		WRITE_ONCE(db->last_error, -EOVERFLOW);
		sq->sq_head = tail;
		WRITE_ONCE(db->sq_head, tail);
		return 0;
	}
	smp_rmb();	/* the SQEs were written before the tail */
	while (sq->sq_head != tail && done < SOFTACC_BATCH) {
		/* a full CQ waits for the consumer */
		if (sq->cq_tail - READ_ONCE(db->cq_head) >= SOFTACC_CQ_DEPTH)
			break;
		/* one snapshot: userspace may rewrite the ring meanwhile */
		memcpy(&sqe, base + SOFTACC_SQ_OFF +
		       (sq->sq_head % SOFTACC_SQ_DEPTH) * sizeof(sqe),
		       sizeof(sqe));
		softacc_exec(sq, &sqe, &cqe);
		slot = (struct softacc_cqe *)(base + SOFTACC_CQ_OFF) +
		       sq->cq_tail % SOFTACC_CQ_DEPTH;
		slot->tag = cqe.tag;
		slot->status = cqe.status;
		slot->result = cqe.result;
		smp_wmb();	/* the entry before its phase */
		WRITE_ONCE(slot->phase,
			   !((sq->cq_tail / SOFTACC_CQ_DEPTH) & 1));
		sq->sq_head++;
		WRITE_ONCE(sq->cq_tail, sq->cq_tail + 1);
		done++;
	}
	WRITE_ONCE(db->sq_head, sq->sq_head);
	WRITE_ONCE(db->cq_tail, sq->cq_tail);
	if (done)
		wake_up_interruptible(&sq->q->wait);
	return done;
}

static int softacc_engine(void *data)
{
	struct softacc_queue *sq = data;
	unsigned int backoff = SOFTACC_BACKOFF_MIN_US;
	ktime_t t;

	while (!kthread_should_stop()) {
		if (softacc_run(sq)) {
			backoff = SOFTACC_BACKOFF_MIN_US;
			cond_resched();
			continue;
		}
		t = ns_to_ktime((u64)backoff * NSEC_PER_USEC);
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule_hrtimeout_range(&t, backoff * NSEC_PER_USEC,
						 HRTIMER_MODE_REL);
		__set_current_state(TASK_RUNNING);
		backoff = min(backoff * 2, SOFTACC_BACKOFF_MAX_US);
	}
	return 0;
}

static void softacc_set_stopped(struct softacc_queue *sq, u32 tx, u32 rx)
{
	u8 *base = sq->dus;

	WRITE_ONCE(*(u32 *)(base + SOFTACC_DUS_TX_STOPPED(sq->dus_size)), tx);
	WRITE_ONCE(*(u32 *)(base + SOFTACC_DUS_RX_STOPPED(sq->dus_size)), rx);
}

/* --- uacce ops --------------------------------------------------------------- */

static int softacc_get_available_instances(struct uacce_device *uacce)
{
	struct softacc_dev *sdev = uacce->priv;

	return nr_queues - READ_ONCE(sdev->nr_used);
}

static int softacc_get_queue(struct uacce_device *uacce, unsigned long arg,
			     struct uacce_queue *q)
{
	struct softacc_dev *sdev = uacce->priv;
	struct softacc_dus_header *hdr;
	struct softacc_queue *sq;
	int ret = 0;

	mutex_lock(&sdev->lock);
	if (sdev->removing)
		ret = -ENODEV;
	else if (sdev->isolated)
		ret = -EIO;
	else if (sdev->nr_used >= nr_queues)
		ret = -EBUSY;
	else
		WRITE_ONCE(sdev->nr_used, sdev->nr_used + 1);
	mutex_unlock(&sdev->lock);
	if (ret)
		return ret;

	ret = -ENOMEM;
	sq = kzalloc(sizeof(*sq), GFP_KERNEL);
	if (!sq)
		goto err_unuse;
	sq->db = vmalloc_user(PAGE_SIZE);
	if (!sq->db)
		goto err_free_sq;
	sq->dus_size = (size_t)dus_pages << PAGE_SHIFT;
	sq->dus = vmalloc_user(sq->dus_size);
	if (!sq->dus)
		goto err_free_db;

	sq->data_size = sq->dus_size - SOFTACC_DATA_OFF - SOFTACC_TAIL_SIZE;
	hdr = sq->dus;
	hdr->magic = SOFTACC_MAGIC;
	hdr->version = SOFTACC_VERSION;
	hdr->sq_depth = SOFTACC_SQ_DEPTH;
	hdr->cq_depth = SOFTACC_CQ_DEPTH;
	hdr->sqe_size = sizeof(struct softacc_sqe);
	hdr->cqe_size = sizeof(struct softacc_cqe);
	hdr->sq_off = SOFTACC_SQ_OFF;
	hdr->cq_off = SOFTACC_CQ_OFF;
	hdr->data_off = SOFTACC_DATA_OFF;
	hdr->data_size = sq->data_size;
	softacc_set_stopped(sq, 1, 1);
	spin_lock_init(&sq->engine_lock);
	sq->sdev = sdev;
	sq->q = q;
	q->priv = sq;
	return 0;

err_free_db:
	vfree(sq->db);
err_free_sq:
	kfree(sq);
err_unuse:
	mutex_lock(&sdev->lock);
	WRITE_ONCE(sdev->nr_used, sdev->nr_used - 1);
	mutex_unlock(&sdev->lock);
	return ret;
}

/* The framework calls this after stop, with every user mapping gone. */
static void softacc_put_queue(struct uacce_queue *q)
{
	struct softacc_queue *sq = q->priv;
	struct softacc_dev *sdev = sq->sdev;

	/* user mappings hold their own page references */
	vfree(sq->dus);
	vfree(sq->db);
	kfree(sq);
	q->priv = NULL;

	mutex_lock(&sdev->lock);
	WRITE_ONCE(sdev->nr_used, sdev->nr_used - 1);
	mutex_unlock(&sdev->lock);
	wake_up_all(&sdev->idle_wq);
}

/* A fresh ring on every start. */
static int softacc_start_queue(struct uacce_queue *q)
{
	struct softacc_queue *sq = q->priv;
	struct softacc_dev *sdev = sq->sdev;
	struct task_struct *t;

	if (READ_ONCE(sdev->isolated))
		return -EIO;
	sq->sq_head = 0;
	sq->cq_tail = 0;
	memset(sq->db, 0, sizeof(*sq->db));
	memset((u8 *)sq->dus + SOFTACC_CQ_OFF, 0,
	       SOFTACC_CQ_DEPTH * sizeof(struct softacc_cqe));
	softacc_set_stopped(sq, 0, 0);
	WRITE_ONCE(sq->db->engine_state, SOFTACC_ENGINE_RUNNING);

	t = kthread_run(softacc_engine, sq, "softacc%u.q",
			sdev->uacce->dev_id);
	if (IS_ERR(t)) {
		softacc_set_stopped(sq, 1, 1);
		WRITE_ONCE(sq->db->engine_state, SOFTACC_ENGINE_STOPPED);
		return PTR_ERR(t);
	}
	spin_lock(&sq->engine_lock);
	sq->engine = t;
	spin_unlock(&sq->engine_lock);
	return 0;
}

/* Synchronous: the SQE in flight completes, then the engine is gone. */
static void softacc_stop_queue(struct uacce_queue *q)
{
	struct softacc_queue *sq = q->priv;
	struct task_struct *t;
	u8 *base = sq->dus;

	WRITE_ONCE(*(u32 *)(base + SOFTACC_DUS_TX_STOPPED(sq->dus_size)), 1);
	spin_lock(&sq->engine_lock);
	t = sq->engine;
	sq->engine = NULL;
	spin_unlock(&sq->engine_lock);
	if (t)
		kthread_stop(t);
	WRITE_ONCE(sq->db->engine_state, SOFTACC_ENGINE_STOPPED);
	softacc_set_stopped(sq, 1, 1);
}

/* Lock-free: may run while the queue starts or stops. */
static int softacc_is_q_updated(struct uacce_queue *q)
{
	struct softacc_queue *sq = q->priv;

	return READ_ONCE(sq->cq_tail) != READ_ONCE(sq->db->cq_head);
}

static int softacc_mmap(struct uacce_queue *q, struct vm_area_struct *vma,
			struct uacce_qfile_region *qfr)
{
	struct softacc_queue *sq = q->priv;

	/* vm_pgoff is the region type, not an offset into our buffer */
	return remap_vmalloc_range(vma, qfr->type == UACCE_QFRT_MMIO ?
				   (void *)sq->db : sq->dus, 0);
}

static long softacc_ioctl(struct uacce_queue *q, unsigned int cmd,
			  unsigned long arg)
{
	struct softacc_queue *sq = q->priv;

	if (cmd != SOFTACC_CMD_KICK)
		return -EINVAL;
	spin_lock(&sq->engine_lock);
	if (sq->engine)
		wake_up_process(sq->engine);
	spin_unlock(&sq->engine_lock);
	return 0;
}

static const struct uacce_ops softacc_ops = {
	.get_available_instances = softacc_get_available_instances,
	.get_queue = softacc_get_queue,
	.put_queue = softacc_put_queue,
	.start_queue = softacc_start_queue,
	.stop_queue = softacc_stop_queue,
	.is_q_updated = softacc_is_q_updated,
	.mmap = softacc_mmap,
	.ioctl = softacc_ioctl,
	.get_isolate_state = softacc_get_isolate_state,
	.isolate_err_threshold_write = softacc_isolate_write,
	.isolate_err_threshold_read = softacc_isolate_read,
};

/* --- debugfs: reset --------------------------------------------------------------- */

static ssize_t softacc_reset_write(struct file *file, const char __user *buf,
				   size_t count, loff_t *ppos)
{
	struct softacc_dev *sdev = file_inode(file)->i_private;

	mutex_lock(&sdev->lock);
	sdev->isolated = false;
	sdev->nr_errors = 0;
	mutex_unlock(&sdev->lock);
	return count;
}

static const struct file_operations softacc_reset_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = softacc_reset_write,
	.llseek = default_llseek,
};

/* --- platform driver ---------------------------------------------------------- */

/*
 * Unbind (a devres action: it runs after probe failure too, and needs no
 * .remove, whose type differs between the kernels).
 */
static void softacc_teardown(void *data)
{
	struct softacc_dev *sdev = data;

	mutex_lock(&sdev->lock);
	sdev->removing = true;
	mutex_unlock(&sdev->lock);
	/*
	 * nr_used changes under the lock; no lock in the condition.  A signal
	 * ends the wait (the unbinding process may hold a queue itself):
	 * the queues still open are then revoked.
	 */
	if (READ_ONCE(remove_policy) == SOFTACC_WAIT &&
	    wait_event_interruptible(sdev->idle_wq, !READ_ONCE(sdev->nr_used)))
		dev_warn(&sdev->pdev->dev,
			 "unbind interrupted, revoking %u open queues\n",
			 READ_ONCE(sdev->nr_used));
	debugfs_remove_recursive(sdev->debugfs);
	uacce_remove(sdev->uacce);
}

static int softacc_probe(struct platform_device *pdev)
{
	struct uacce_interface iface = {
		.name = "softacc",
		.flags = READ_ONCE(request_sva) ? UACCE_DEV_SVA : 0,
		.ops = &softacc_ops,
	};
	struct softacc_dev *sdev;
	struct uacce_device *uacce;
	int ret;

	sdev = devm_kzalloc(&pdev->dev, sizeof(*sdev), GFP_KERNEL);
	if (!sdev)
		return -ENOMEM;
	sdev->pdev = pdev;
	mutex_init(&sdev->lock);
	init_waitqueue_head(&sdev->idle_wq);

	uacce = uacce_alloc(&pdev->dev, &iface);
	if (IS_ERR(uacce))
		return PTR_ERR(uacce);
	/* whatever was negotiated, softacc works on offsets only */
	if (iface.flags & ~uacce->flags)
		dev_info(&pdev->dev, "SVA not available: asked %#x, got %#x\n",
			 iface.flags, uacce->flags);
	uacce->api_ver = SOFTACC_API;
	uacce->algs = "crc32c\nmemcpy\nnop";
	uacce->qf_pg_num[UACCE_QFRT_MMIO] = 1;
	uacce->qf_pg_num[UACCE_QFRT_DUS] = dus_pages;
	uacce->priv = sdev;
	sdev->uacce = uacce;
	ret = devm_add_action_or_reset(&pdev->dev, softacc_teardown, sdev);
	if (ret)
		return ret;

	ret = uacce_register(uacce);
	if (ret)
		return ret;
	sdev->debugfs = debugfs_create_dir(dev_name(&uacce->dev),
					   softacc_debugfs);
	debugfs_create_file("reset", 0200, sdev->debugfs, sdev,
			    &softacc_reset_fops);
	return 0;
}

static struct platform_driver softacc_driver = {
	.probe = softacc_probe,
	.driver = {
		.name = "softacc",
	},
};

static void softacc_del_devices(void)
{
	int i;

	for (i = SOFTACC_MAX_DEVS - 1; i >= 0; i--) {
		if (softacc_pdevs[i])
			platform_device_unregister(softacc_pdevs[i]);
		softacc_pdevs[i] = NULL;
	}
}

static int __init softacc_init(void)
{
	struct platform_device *pdev;
	unsigned int i;
	int ret;

	if (!nr_devs || nr_devs > SOFTACC_MAX_DEVS || !nr_queues ||
	    nr_queues > 64 || dus_pages < 3 || dus_pages > 1024) {
		pr_err("nr_devs 1-8, nr_queues 1-64, dus_pages 3-1024\n");
		return -EINVAL;
	}
	softacc_debugfs = debugfs_create_dir("softacc", NULL);
	ret = platform_driver_register(&softacc_driver);
	if (ret)
		goto err_debugfs;
	for (i = 0; i < nr_devs; i++) {
		ret = -ENOMEM;
		pdev = platform_device_alloc("softacc", i);
		if (!pdev)
			goto err_devices;
		/* numa_node is only visible with a node (uadk reads it) */
		set_dev_node(&pdev->dev, 0);
		ret = platform_device_add(pdev);
		if (ret) {
			platform_device_put(pdev);
			goto err_devices;
		}
		softacc_pdevs[i] = pdev;
	}
	return 0;

err_devices:
	softacc_del_devices();
	platform_driver_unregister(&softacc_driver);
err_debugfs:
	debugfs_remove_recursive(softacc_debugfs);
	return ret;
}

static void __exit softacc_exit(void)
{
	softacc_del_devices();
	platform_driver_unregister(&softacc_driver);
	debugfs_remove_recursive(softacc_debugfs);
}

module_init(softacc_init);
module_exit(softacc_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("The mw57 authors");
MODULE_DESCRIPTION("Software accelerator for uacce (crc32c, memcpy, nop)");
MODULE_VERSION(MW57_VERSION);
