// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The mw57 authors. */
/*
 * irq_inject - inject interrupts from userspace.
 *
 * Debian's kernels export irq_inject_interrupt() (genirq, v5.7) but are
 * built without GENERIC_IRQ_DEBUGFS, so the upstream debugfs "trigger"
 * file does not exist.  This module offers the same capability:
 *
 *   /sys/kernel/debug/irq_inject/inject   write-only: "IRQ [COUNT]"
 *   /sys/kernel/debug/irq_inject/stats    read-only:  per-irq tally
 *
 * COUNT defaults to 1 and is at most IRQINJ_MAX_COUNT.  Each injection
 * waits, for at most IRQINJ_WAIT_US, until the previous one was delivered
 * (its handler ran), so a burst does not collapse into -EBUSY and the
 * /proc/interrupts delta equals the number of successes.  A write returns
 * its byte count when every injection succeeded, else the errno of the
 * first failure; the burst stops there.
 *
 * This is a debug facility: on x86 an injected edge interrupt is replayed
 * by an IPI of its vector, which can complete a pending affinity change
 * early.  Level-triggered interrupts cannot be injected (-EINVAL).
 */

#include <linux/capability.h>
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/irqdesc.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched/signal.h>
#include <linux/security.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>

/* Upper bound of COUNT in one write. */
#define IRQINJ_MAX_COUNT	10000
/* Longest accepted command: "4294967295 10000\n" plus slack. */
#define IRQINJ_MAX_INPUT	32
/* Bound on waiting for a delivery, or for a pending replay to clear. */
#define IRQINJ_WAIT_US		(100 * USEC_PER_MSEC)
#define IRQINJ_POLL_US		50

struct irqinj_tally {
	unsigned long requested;
	unsigned long succeeded;
	int last_errno;
};

/* Serialises bursts: one injection in flight at a time. */
static DEFINE_MUTEX(irqinj_burst_lock);
/* Guards the tallies; held briefly, so stats stay readable during a burst. */
static DEFINE_MUTEX(irqinj_tally_lock);
/* irq number -> struct irqinj_tally, only for irqs that have a descriptor. */
static DEFINE_XARRAY(irqinj_tallies);
static struct dentry *irqinj_dir;

/* A decimal number made of digits only: no sign, no blanks, no overflow. */
static int irqinj_parse_uint(const char *tok, unsigned int *val)
{
	const char *p;

	if (!*tok)
		return -EINVAL;
	for (p = tok; *p; p++)
		if (!isdigit(*p))
			return -EINVAL;
	return kstrtouint(tok, 10, val) ? -EINVAL : 0;
}

/* Parse "IRQ" or "IRQ COUNT", optionally ended by one newline. */
static int irqinj_parse(char *buf, size_t len, unsigned int *irq,
			unsigned int *count)
{
	char *sep;
	int ret;

	if (len && buf[len - 1] == '\n')
		buf[--len] = '\0';
	if (strlen(buf) != len)		/* embedded NUL */
		return -EINVAL;

	*count = 1;
	sep = strchr(buf, ' ');
	if (sep) {
		*sep = '\0';
		ret = irqinj_parse_uint(sep + 1, count);
		if (ret)
			return ret;
		if (*count < 1 || *count > IRQINJ_MAX_COUNT)
			return -EINVAL;
	}
	return irqinj_parse_uint(buf, irq);
}

/* Sum of the per-CPU delivery counters of @irq (what /proc/interrupts shows). */
static int irqinj_delivered(unsigned int irq, unsigned long *sum)
{
	struct irq_data *data;
	struct irq_desc *desc;
	unsigned long total = 0;
	unsigned int cpu;
	int ret = -EINVAL;

	/* Descriptors are freed after an RCU grace period. */
	rcu_read_lock();
	data = irq_get_irq_data(irq);
	if (data) {
		desc = irq_data_to_desc(data);
		for_each_possible_cpu(cpu)
			total += irq_desc_kstat_cpu(desc, cpu);
		*sum = total;
		ret = 0;
	}
	rcu_read_unlock();
	return ret;
}

static int irqinj_pause(ktime_t deadline)
{
	if (signal_pending(current))
		return -EINTR;
	if (ktime_after(ktime_get(), deadline))
		return -ETIMEDOUT;
	usleep_range(IRQINJ_POLL_US, 2 * IRQINJ_POLL_US);
	return 0;
}

/* Inject once, retrying while a previous replay is still pending. */
static int irqinj_trigger(unsigned int irq)
{
	ktime_t deadline = ktime_add_us(ktime_get(), IRQINJ_WAIT_US);
	int ret;

	for (;;) {
		ret = irq_inject_interrupt(irq);
		if (ret != -EBUSY)
			return ret;
		if (irqinj_pause(deadline))
			return -EBUSY;
	}
}

/* Wait until the delivery counter moved past @before and the handler ended. */
static int irqinj_wait_delivery(unsigned int irq, unsigned long before)
{
	ktime_t deadline = ktime_add_us(ktime_get(), IRQINJ_WAIT_US);
	unsigned long now;
	int ret;

	for (;;) {
		if (irqinj_delivered(irq, &now))
			return -EINVAL;		/* the irq went away */
		if (now != before)
			break;
		ret = irqinj_pause(deadline);
		if (ret)
			return ret;
	}
	synchronize_irq(irq);
	return 0;
}

/* The tally of @irq, created on first use; called with irqinj_tally_lock. */
static struct irqinj_tally *irqinj_tally_get(unsigned int irq)
{
	struct irqinj_tally *t;
	unsigned long unused;
	int ret;

	/* Only irqs with a descriptor get a tally: memory stays bounded. */
	if (irqinj_delivered(irq, &unused))
		return ERR_PTR(-EINVAL);
	t = xa_load(&irqinj_tallies, irq);
	if (t)
		return t;
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return ERR_PTR(-ENOMEM);
	ret = xa_err(xa_store(&irqinj_tallies, irq, t, GFP_KERNEL));
	if (ret) {
		kfree(t);
		return ERR_PTR(ret);
	}
	return t;
}

/* Run one burst; called with irqinj_burst_lock held. */
static int irqinj_burst(unsigned int irq, unsigned int count)
{
	struct irqinj_tally *t;
	unsigned long before;
	unsigned int i;
	int ret = 0;

	mutex_lock(&irqinj_tally_lock);
	t = irqinj_tally_get(irq);
	if (!IS_ERR(t))
		t->requested += count;
	mutex_unlock(&irqinj_tally_lock);
	if (IS_ERR(t))
		return PTR_ERR(t);

	/* Tallies are never freed before module exit: t stays valid. */
	for (i = 0; i < count; i++) {
		ret = irqinj_delivered(irq, &before);
		if (ret)
			break;
		ret = irqinj_trigger(irq);
		if (ret)
			break;
		mutex_lock(&irqinj_tally_lock);
		t->succeeded++;
		mutex_unlock(&irqinj_tally_lock);
		ret = irqinj_wait_delivery(irq, before);
		if (ret)
			break;
	}
	mutex_lock(&irqinj_tally_lock);
	t->last_errno = -ret;
	mutex_unlock(&irqinj_tally_lock);
	return ret;
}

static ssize_t irqinj_inject_write(struct file *file, const char __user *ubuf,
				   size_t len, loff_t *ppos)
{
	char buf[IRQINJ_MAX_INPUT + 1];
	unsigned int irq, count;
	int ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	ret = security_locked_down(LOCKDOWN_DEBUGFS);
	if (ret)
		return ret;
	if (len == 0 || len > IRQINJ_MAX_INPUT)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	ret = irqinj_parse(buf, len, &irq, &count);
	if (ret)
		return ret;

	if (mutex_lock_interruptible(&irqinj_burst_lock))
		return -EINTR;
	ret = irqinj_burst(irq, count);
	mutex_unlock(&irqinj_burst_lock);
	return ret ? ret : len;
}

static const struct file_operations irqinj_inject_fops = {
	.owner = THIS_MODULE,
	.open = nonseekable_open,
	.write = irqinj_inject_write,
};

static int irqinj_stats_show(struct seq_file *m, void *unused)
{
	struct irqinj_tally *t;
	unsigned long irq;

	if (mutex_lock_interruptible(&irqinj_tally_lock))
		return -EINTR;
	seq_puts(m, "irq requested succeeded last_errno\n");
	xa_for_each(&irqinj_tallies, irq, t)
		seq_printf(m, "%lu %lu %lu %d\n", irq, t->requested,
			   t->succeeded, t->last_errno);
	mutex_unlock(&irqinj_tally_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(irqinj_stats);

static int __init irqinj_mod_init(void)
{
	irqinj_dir = debugfs_create_dir("irq_inject", NULL);
	if (IS_ERR(irqinj_dir))
		return PTR_ERR(irqinj_dir);
	debugfs_create_file("inject", 0200, irqinj_dir, NULL,
			    &irqinj_inject_fops);
	debugfs_create_file("stats", 0400, irqinj_dir, NULL,
			    &irqinj_stats_fops);
	return 0;
}

static void __exit irqinj_mod_exit(void)
{
	struct irqinj_tally *t;
	unsigned long irq;

	/* Waits for writers still inside the files; they hold a module ref. */
	debugfs_remove(irqinj_dir);
	xa_for_each(&irqinj_tallies, irq, t)
		kfree(t);
	xa_destroy(&irqinj_tallies);
}

module_init(irqinj_mod_init);
module_exit(irqinj_mod_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("The mw57 authors");
MODULE_DESCRIPTION("Inject interrupts from userspace through debugfs");
MODULE_VERSION(MW57_VERSION);
