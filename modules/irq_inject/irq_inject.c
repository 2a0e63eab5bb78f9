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
 * waits until the irq's handler is idle, then until the injection was
 * delivered (counted, its handler and thread done), so a burst does not
 * collapse into -EBUSY and, on an otherwise quiet irq, the
 * /proc/interrupts delta equals the number of successes.  An injection
 * made while a device interrupt of the same irq is being handled is
 * folded into that run by genirq (replayed by handle_edge_irq(), not
 * counted): the idle wait makes that rare, and the device's own count
 * then stands for it.  A write returns its byte count when every
 * injection succeeded, else the errno of the first failure; the burst
 * stops there.  Every wait is bounded and ends on a signal (-EINTR).
 *
 * The irq is not ours: its descriptor may be freed (a device unbound, its
 * MSI vectors released) at any time.  Descriptors are freed after an RCU
 * grace period, and the last put of their kobject: the counters are read
 * under rcu_read_lock(), and an injection holds a kobject reference and
 * the descriptor's request_mutex, which free_irq() takes, so the irq keeps
 * its action and its chips until the injection is made.  Nothing waits on
 * a descriptor's handlers (no synchronize_irq()).
 *
 * Timer irqs (irq 0, any action with IRQF_TIMER) are refused (-EPERM).
 * genirq's spurious-interrupt detector (note_interrupt()) disables a line
 * when 99,900 of 100,000 interrupts went unhandled, counting an unhandled
 * one only when it comes within HZ/10 of the previous one; injections
 * into a handler that returns IRQ_NONE are unhandled.  So at most run_max
 * (default and at most 50,000, half the detector's window) injections go
 * into one irq without a pause of IRQINJ_GAP_MS after a delivery, across
 * writes: the next injection waits for the pause.
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
#include <linux/kobject.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
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
/*
 * Bound on waiting for a delivery, or for a pending replay to clear.  On
 * hardware either takes microseconds; an emulated CPU on a loaded host
 * (QEMU TCG) can stay descheduled for over 100 ms, and an ETIMEDOUT for a
 * delivery that merely came late would be spurious.
 */
#define IRQINJ_WAIT_US		(1000 * USEC_PER_MSEC)
/* Bound on waiting for a running handler (its thread included) to end. */
#define IRQINJ_IDLE_US		(1000 * USEC_PER_MSEC)
#define IRQINJ_POLL_US		50
/* A pause that restarts note_interrupt()'s count (HZ/10, with margin). */
#define IRQINJ_GAP_MS		150
#define IRQINJ_RUN_MAX		50000

static unsigned int irqinj_run_max = IRQINJ_RUN_MAX;

static int irqinj_run_max_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, IRQINJ_RUN_MAX);
}

static const struct kernel_param_ops irqinj_run_max_ops = {
	.set = irqinj_run_max_set,
	.get = param_get_uint,
};
module_param_cb(run_max, &irqinj_run_max_ops, &irqinj_run_max, 0644);
MODULE_PARM_DESC(run_max,
		 "injections into one irq without a 150 ms pause (1..50000, default 50000)");

struct irqinj_tally {
	unsigned long requested;
	unsigned long succeeded;
	int last_errno;
	/* the current run: injections with no IRQINJ_GAP_MS pause between */
	unsigned long run;
	unsigned long longest_run;
	ktime_t last;			/* when the last injection was done */
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

/*
 * The delivery count of @irq (the sum /proc/interrupts shows) and whether
 * its handler or thread is running.  The descriptor is freed after an RCU
 * grace period, and only looked at under rcu_read_lock().
 */
static int irqinj_state(unsigned int irq, unsigned long *sum, bool *busy)
{
	struct irq_data *data;
	struct irq_desc *desc;
	unsigned long total = 0;
	unsigned int cpu;
	int ret = -EINVAL;

	rcu_read_lock();
	data = irq_get_irq_data(irq);
	if (data) {
		desc = irq_data_to_desc(data);
		for_each_possible_cpu(cpu)
			total += irq_desc_kstat_cpu(desc, cpu);
		/* counted at entry, before the handler is marked running */
		smp_rmb();
		*sum = total;
		*busy = irqd_irq_inprogress(data) ||
			atomic_read(&desc->threads_active);
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

/*
 * Whether the irq of @desc may be injected; called under its
 * request_mutex.  -EINVAL for an irq without action or activation (freed
 * by free_irq(), its chips torn down next, which irq_set_irqchip_state()
 * would WARN about), -EPERM for a timer.
 */
static int irqinj_may_inject(unsigned int irq, struct irq_desc *desc)
{
	struct irqaction *action;
	unsigned long flags;
	bool timer = !irq, inactive;

	raw_spin_lock_irqsave(&desc->lock, flags);
	inactive = !desc->action || !irqd_is_activated(&desc->irq_data);
	for (action = desc->action; action; action = action->next)
		timer |= !!(action->flags & IRQF_TIMER);
	raw_spin_unlock_irqrestore(&desc->lock, flags);
	if (timer)
		return -EPERM;
	return inactive ? -EINVAL : 0;
}

/*
 * Inject @irq once.  A kobject reference keeps its descriptor's memory;
 * holding its request_mutex keeps free_irq() from completing, so a driver
 * cannot tear the irq down between the check and the injection.  The
 * mutex is held for this one attempt only, never across a pause.
 */
static int irqinj_inject_once(unsigned int irq)
{
	struct irq_desc *desc = NULL;
	struct irq_data *data;
	int ret;

	rcu_read_lock();
	data = irq_get_irq_data(irq);
	if (data && kobject_get_unless_zero(&irq_data_to_desc(data)->kobj))
		desc = irq_data_to_desc(data);
	rcu_read_unlock();
	if (!desc)
		return -EINVAL;

	ret = mutex_lock_interruptible(&desc->request_mutex);
	if (ret)
		goto put;
	ret = irqinj_may_inject(irq, desc);
	if (!ret)
		ret = irq_inject_interrupt(irq);
	mutex_unlock(&desc->request_mutex);
put:
	kobject_put(&desc->kobj);
	return ret;
}

/* Inject once, retrying while a previous replay is still pending. */
static int irqinj_trigger(unsigned int irq)
{
	ktime_t deadline = ktime_add_us(ktime_get(), IRQINJ_WAIT_US);
	int ret;

	for (;;) {
		ret = irqinj_inject_once(irq);
		if (ret != -EBUSY)
			return ret;
		ret = irqinj_pause(deadline);
		if (ret)
			return ret == -ETIMEDOUT ? -EBUSY : ret;
	}
}

/*
 * Wait until @irq's handler and thread are idle, and read its delivery
 * count then: an injection made while the handler runs would be folded
 * into that run.
 */
static int irqinj_settle(unsigned int irq, unsigned long *count)
{
	ktime_t deadline = ktime_add_us(ktime_get(), IRQINJ_IDLE_US);
	bool busy;
	int ret;

	for (;;) {
		if (irqinj_state(irq, count, &busy))
			return -EINVAL;		/* the irq went away */
		if (!busy)
			return 0;
		ret = irqinj_pause(deadline);
		if (ret)
			return ret;
	}
}

/* Wait until the delivery count moved past @before and the handler ended. */
static int irqinj_wait_delivery(unsigned int irq, unsigned long before)
{
	ktime_t deadline = ktime_add_us(ktime_get(), IRQINJ_WAIT_US);
	unsigned long now;
	bool busy;
	int ret;

	for (;;) {
		if (irqinj_state(irq, &now, &busy))
			return -EINVAL;		/* the irq went away */
		if (now != before)
			break;
		ret = irqinj_pause(deadline);
		if (ret)
			return ret;
	}
	return irqinj_settle(irq, &now);
}

/*
 * Keep note_interrupt() from disabling the line: after run_max injections
 * with no IRQINJ_GAP_MS pause between two, wait for that pause.
 */
static int irqinj_pace(struct irqinj_tally *t)
{
	ktime_t quiet = ktime_add_ms(t->last, IRQINJ_GAP_MS);
	s64 ms = ktime_ms_delta(quiet, ktime_get());

	if (ms > 0 && t->run >= READ_ONCE(irqinj_run_max)) {
		if (msleep_interruptible(ms + 1))
			return -EINTR;
		ms = 0;
	}
	if (ms <= 0)
		t->run = 0;
	return 0;
}

/* The tally of @irq, created on first use; called with irqinj_tally_lock. */
static struct irqinj_tally *irqinj_tally_get(unsigned int irq)
{
	struct irqinj_tally *t;
	unsigned long unused;
	bool busy;
	int ret;

	/* Only irqs with a descriptor get a tally: memory stays bounded. */
	if (irqinj_state(irq, &unused, &busy))
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

	/*
	 * Tallies are never freed before module exit: t stays valid.  Its
	 * run and last are used under irqinj_burst_lock only.
	 */
	for (i = 0; i < count; i++) {
		if (signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		ret = irqinj_pace(t);
		if (ret)
			break;
		ret = irqinj_settle(irq, &before);
		if (ret)
			break;
		ret = irqinj_trigger(irq);
		if (ret)
			break;
		mutex_lock(&irqinj_tally_lock);
		t->succeeded++;
		t->longest_run = max(t->longest_run, ++t->run);
		mutex_unlock(&irqinj_tally_lock);
		ret = irqinj_wait_delivery(irq, before);
		t->last = ktime_get();
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
	seq_puts(m, "irq requested succeeded last_errno longest_run\n");
	xa_for_each(&irqinj_tallies, irq, t)
		seq_printf(m, "%lu %lu %lu %d %lu\n", irq, t->requested,
			   t->succeeded, t->last_errno, t->longest_run);
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
