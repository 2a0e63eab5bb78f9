// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The mw57 authors. */
/*
 * uacce_test MODE ...: the C side of the uacce guest suite, on softacc.
 *
 *   basic DEV NR_QUEUES   TAP: sysfs, instances, mmap rules, ioctl state
 *                         machine, data path, bad descriptors (tests 1-6)
 *   closework DEV         TAP: close with work queued, SIGKILL mid-batch
 *   hold DEV [DEV2]       TAP: hold queues (mapped, jobs in flight, a
 *                         poller) until a line on stdin, then check the
 *                         device was revoked: SIGBUS, ENXIO, poll woken
 *   open DEV              open + START_Q; exit 0, else print the errno
 *   fail DEV N            submit N FAIL jobs; exit 0 when all gave -EIO
 *   data DEV N            N random jobs checked against userspace; exit 0
 *   churn DEV SECONDS     open/map/start/submit/close in a loop, errors of
 *                         a device going away tolerated; exit 0
 *   mmaprace DEV          map and unmap DUS until the queue dies, keep
 *                         the mapping made as it died; after a line on
 *                         stdin it must give SIGBUS; exit 0
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <misc/uacce/uacce.h>
#include <mw57/libsoftacc.h>

#include "../lib/ktap.h"

static long page;

/* --- helpers ------------------------------------------------------------- */

static int sysfs_read(const char *dev, const char *attr, char *buf, size_t len)
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/sys/class/uacce/%s/%s",
		 strrchr(dev, '/') + 1, attr);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	return 0;
}

static long sysfs_long(const char *dev, const char *attr)
{
	char buf[64];

	return sysfs_read(dev, attr, buf, sizeof(buf)) ? -1 : strtol(buf, NULL, 0);
}

static void *map_region(int fd, int type, size_t size)
{
	return mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		    type * page);
}

/* errno of a failed mmap, 0 (and unmapped again) when it worked */
static int map_errno(int fd, int type, size_t size)
{
	void *p = map_region(fd, type, size);

	if (p == MAP_FAILED)
		return errno;
	munmap(p, size);
	return 0;
}

static sigjmp_buf fault_jmp;

static void fault_handler(int sig)
{
	siglongjmp(fault_jmp, sig);
}

/* Touch P; the signal it raised (SIGBUS, SIGSEGV) or 0. */
static int touch(volatile uint8_t *p, int write)
{
	struct sigaction sa = { .sa_handler = fault_handler }, obus, osegv;
	int sig;

	sigaction(SIGBUS, &sa, &obus);
	sigaction(SIGSEGV, &sa, &osegv);
	sig = sigsetjmp(fault_jmp, 1);
	if (!sig) {
		if (write)
			*p = 0x5a;
		else
			(void)*p;
	}
	sigaction(SIGBUS, &obus, NULL);
	sigaction(SIGSEGV, &osegv, NULL);
	return sig;
}

static struct softacc_sqe sqe_make(uint8_t op, uint64_t tag, uint32_t src,
				   uint32_t slen, uint32_t dst, uint32_t dlen,
				   uint32_t seed)
{
	struct softacc_sqe e = {
		.opcode = op, .tag = tag, .src_off = src, .src_len = slen,
		.dst_off = dst, .dst_len = dlen, .seed = seed,
	};

	return e;
}

/* Submit one job and wait for its completion (up to 10 s). */
static int run_one(struct sacc_queue *q, const struct softacc_sqe *e,
		   struct softacc_cqe *c)
{
	int ret = sacc_submit(q, e), i;

	if (ret)
		return ret;
	for (i = 0; i < 100; i++) {
		if (sacc_reap(q, c, 1) == 1)
			return 0;
		ret = sacc_wait(q, 100);
		if (ret < 0)
			return ret;
	}
	return -ETIMEDOUT;
}

static uint32_t rnd(void)
{
	static uint32_t x = 2463534242u;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return x;
}

/*
 * N random CRC32C/memcpy/NOP jobs in batches, each checked against the
 * same work done here.  Returns the number of wrong results, or -errno.
 */
static int data_path(struct sacc_queue *q, int n, int *wraps)
{
	enum { BATCH = 16, SLICE = 1024 };
	struct softacc_cqe c[BATCH];
	uint32_t expect[BATCH];
	uint8_t op[BATCH], want[BATCH][SLICE];
	uint32_t dst[BATCH], len[BATCH];
	int done = 0, bad = 0, i, k, got, ret;
	uint32_t first_phase_lap = q->cq_head / q->hdr.cq_depth;

	if (q->hdr.data_size < 2 * BATCH * SLICE)
		return -ENOSPC;
	while (done < n) {
		int b = n - done < BATCH ? n - done : BATCH;

		for (i = 0; i < b; i++) {
			uint32_t src = 2 * i * SLICE, d = src + SLICE;
			struct softacc_sqe e;

			len[i] = 1 + rnd() % SLICE;
			for (k = 0; k < (int)len[i]; k++)
				q->data[src + k] = rnd();
			op[i] = rnd() % 3;
			dst[i] = d;
			if (op[i] == SOFTACC_OP_CRC32C) {
				expect[i] = sacc_crc32c(0, q->data + src, len[i]);
			} else if (op[i] == SOFTACC_OP_MEMCPY) {
				memcpy(want[i], q->data + src, len[i]);
				memset(q->data + d, 0, SLICE);
				expect[i] = len[i];
			} else {
				expect[i] = 0;
			}
			e = sqe_make(op[i], done + i, src, len[i], d, SLICE, 0);
			ret = sacc_submit(q, &e);
			if (ret)
				return ret;
		}
		sacc_kick(q);
		for (got = 0; got < b;) {
			k = sacc_reap(q, c + got, b - got);
			got += k;
			if (!k && (ret = sacc_wait(q, 10000)) <= 0)
				return ret ? ret : -ETIMEDOUT;
		}
		for (i = 0; i < b; i++) {
			k = c[i].tag - done;
			if (k < 0 || k >= b || c[i].status || c[i].result != expect[k] ||
			    (op[k] == SOFTACC_OP_MEMCPY &&
			     memcmp(q->data + dst[k], want[k], len[k])))
				bad++;
		}
		done += b;
	}
	if (wraps)
		*wraps = q->cq_head / q->hdr.cq_depth - first_phase_lap;
	return bad;
}

/* --- basic: tests 1 to 6 -------------------------------------------------- */

static void test_sysfs(const char *dev)
{
	char buf[256], dfile[64];
	struct stat st;
	unsigned int ma, mi;
	int lines = 0, ok;
	char *p;

	ktap_result(!sysfs_read(dev, "api", buf, sizeof(buf)) &&
		    !strcmp(buf, SOFTACC_API "\n"), "sysfs: api is %s", SOFTACC_API);
	ktap_result(sysfs_long(dev, "flags") == 0, "sysfs: flags is 0 (no SVA)");
	if (!sysfs_read(dev, "algorithms", buf, sizeof(buf)))
		for (p = buf; *p; p++)
			lines += *p == '\n';
	ktap_result(lines == 3 && strstr(buf, "crc32c") && strstr(buf, "memcpy") &&
		    strstr(buf, "nop"), "sysfs: algorithms has crc32c, memcpy, nop");
	ktap_result(sysfs_long(dev, "region_mmio_size") == page,
		    "sysfs: region_mmio_size is one page");
	ktap_result(sysfs_long(dev, "region_dus_size") == 16 * page,
		    "sysfs: region_dus_size is 16 pages (64 KiB)");
	ok = !sysfs_read(dev, "device/numa_node", buf, sizeof(buf));
	ktap_result(ok, "sysfs: device/numa_node readable (%s)", strtok(buf, "\n"));
	ktap_result(sysfs_long(dev, "isolate") == 0 &&
		    sysfs_long(dev, "isolate_strategy") == 0,
		    "sysfs: isolate 0 and isolate_strategy 0 present");
	snprintf(dfile, sizeof(dfile), "dev");
	ktap_result(!sysfs_read(dev, dfile, buf, sizeof(buf)) &&
		    sscanf(buf, "%u:%u", &ma, &mi) == 2 && !stat(dev, &st) &&
		    S_ISCHR(st.st_mode) && major(st.st_rdev) == ma &&
		    minor(st.st_rdev) == mi, "%s is the char device of sysfs dev", dev);
}

static void test_instances(const char *dev, int nr)
{
	int fds[64], i, n0 = sysfs_long(dev, "available_instances"), ok = 1, e;

	ktap_result(n0 == nr, "instances: %d available at start", n0);
	for (i = 0; i < nr; i++) {
		fds[i] = open(dev, O_RDWR);
		ok &= fds[i] >= 0 && sysfs_long(dev, "available_instances") == nr - i - 1;
	}
	ktap_result(ok, "instances: each open takes one (down to 0)");
	e = open(dev, O_RDWR) < 0 ? errno : 0;
	ktap_result(e == EBUSY, "instances: open %d gives EBUSY (got %s)", nr + 1,
		    strerror(e));
	ok = !ioctl(fds[0], UACCE_CMD_START_Q) && !ioctl(fds[0], UACCE_CMD_PUT_Q) &&
	     sysfs_long(dev, "available_instances") == 0;
	ktap_result(ok, "instances: START_Q then PUT_Q gives nothing back");
	for (i = 0; i < nr; i++)
		close(fds[i]);
	ktap_result(sysfs_long(dev, "available_instances") == nr,
		    "instances: closing gives them all back");
}

static void test_mmap(const char *dev)
{
	size_t mmio, dus;
	int fd = open(dev, O_RDWR), fd2 = open(dev, O_RDWR), st, e;
	uint8_t *p, *m, *q;
	pid_t pid;

	if (fd < 0 || fd2 < 0 || sacc_region_sizes(fd, &mmio, &dus))
		ktap_bail("cannot open the device for the mmap tests");
	p = map_region(fd, UACCE_QFRT_DUS, dus);
	m = map_region(fd, UACCE_QFRT_MMIO, mmio);
	ktap_result(p != MAP_FAILED && m != MAP_FAILED,
		    "mmap: DUS (%zu) and MMIO (%zu) map with the sysfs sizes", dus, mmio);
	ktap_result(map_errno(fd, UACCE_QFRT_DUS, dus) == EEXIST &&
		    map_errno(fd, UACCE_QFRT_MMIO, mmio) == EEXIST,
		    "mmap: a second mapping of a region gives EEXIST");
	ktap_result(map_errno(fd2, 2, page) == EINVAL, "mmap: page offset 2 gives EINVAL");
	ktap_result(map_errno(fd2, UACCE_QFRT_DUS, dus - page) == EINVAL &&
		    map_errno(fd2, UACCE_QFRT_MMIO, 2 * mmio) == EINVAL,
		    "mmap: a wrong size gives EINVAL");
	q = mmap(NULL, dus, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd2, UACCE_QFRT_DUS * page);
	e = q == MAP_FAILED ? errno : 0;
	if (q != MAP_FAILED)
		munmap(q, dus);
	ktap_result(e == EINVAL, "mmap: MAP_PRIVATE gives EINVAL (%s)", strerror(e));
	e = mprotect(p + page, page, PROT_READ) ? errno : 0;
	ktap_result(e == EINVAL, "mmap: mprotect of one page (a split) gives EINVAL (%s)",
		    strerror(e));
	e = munmap(p, page) ? errno : 0;
	ktap_result(e == EINVAL, "mmap: partial munmap gives EINVAL (%s)", strerror(e));
	q = mmap(NULL, dus, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	e = mremap(p, dus, dus, MREMAP_MAYMOVE | MREMAP_FIXED, q) == MAP_FAILED ? errno : 0;
	ktap_result(e == EPERM, "mmap: mremap gives EPERM (%s)", strerror(e));
	munmap(q, dus);
	ktap_result(touch(p + 2 * page, 1) == 0, "mmap: the DUS mapping is still usable");

	pid = fork();
	if (!pid)
		_exit((touch(p, 0) == SIGSEGV ? 0 : 1) |
		      (map_errno(fd, UACCE_QFRT_DUS, dus) == EEXIST ? 0 : 2));
	waitpid(pid, &st, 0);
	ktap_result(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		    "mmap: a forked child has no mapping and its mmap gives EEXIST (status %#x)",
		    st);
	/*
	 * MADV_DOFORK clears VM_DONTCOPY: the child's copy of the VMA shares
	 * the region record (vma open), has no pages (VM_WIPEONFORK, and no
	 * fault handler: SIGBUS), and its unmap must leave the record to the
	 * parent, which still holds the region.
	 */
	/* 7.x refuses MADV_DOFORK here (EINVAL): then no copy exists at all */
	e = madvise(p, dus, MADV_DOFORK) ? errno : 0;
	pid = fork();
	if (!pid && !e)
		_exit((touch(p, 0) == SIGBUS ? 0 : 1) |
		      (map_errno(fd, UACCE_QFRT_DUS, dus) == EEXIST ? 0 : 2) |
		      (munmap(p, dus) ? 4 : 0));
	if (!pid)
		_exit((touch(p, 0) == SIGSEGV ? 0 : 1) |
		      (map_errno(fd, UACCE_QFRT_DUS, dus) == EEXIST ? 0 : 2));
	waitpid(pid, &st, 0);
	ktap_result((!e || e == EINVAL) && WIFEXITED(st) && WEXITSTATUS(st) == 0,
		    "mmap: MADV_DOFORK, fork: %s (%s, status %#x)",
		    e ? "refused, the child has no mapping and its mmap gives EEXIST" :
		    "the child's copy gives SIGBUS, its mmap EEXIST, its munmap works",
		    strerror(e), st);
	ktap_result(touch(p + page, 1) == 0 && map_errno(fd, UACCE_QFRT_DUS, dus) == EEXIST,
		    "mmap: after the child's munmap and exit the parent's mapping and record live on");
	ktap_result(!munmap(p, dus) && map_errno(fd, UACCE_QFRT_DUS, dus) == 0,
		    "mmap: munmap, then mapping the region again works");
	munmap(m, mmio);
	close(fd);
	close(fd2);
}

static void test_ioctl(const char *dev)
{
	struct sacc_queue q;
	struct softacc_cqe c;
	struct softacc_sqe e = sqe_make(SOFTACC_OP_NOP, 7, 0, 0, 0, 0, 0);
	int ret, fd;

	fd = open(dev, O_RDWR);
	ktap_result(fd >= 0 && !ioctl(fd, UACCE_CMD_PUT_Q),
		    "ioctl: PUT_Q on a queue never started returns 0");
	ret = !ioctl(fd, UACCE_CMD_START_Q);
	ktap_result(ret && ioctl(fd, UACCE_CMD_START_Q) < 0 && errno == EINVAL,
		    "ioctl: START_Q twice: EINVAL the second time");
	ret = !ioctl(fd, UACCE_CMD_PUT_Q) && !ioctl(fd, UACCE_CMD_START_Q);
	ktap_result(ret, "ioctl: START_Q, PUT_Q, START_Q works");
	ktap_result(ioctl(fd, _IO('W', 9)) < 0 && errno == EINVAL,
		    "ioctl: an unknown command gives EINVAL");
	close(fd);

	ret = sacc_open(&q, dev);
	ktap_result(!ret && !run_one(&q, &e, &c) && c.tag == 7 && !c.status,
		    "ioctl: a started queue completes a NOP");
	sacc_stop(&q);
	e.tag = 8;
	sacc_submit(&q, &e);
	ret = sacc_wait(&q, 300);
	ktap_result(ret == 0 && q.db->cq_tail == 1 &&
		    q.db->engine_state == SOFTACC_ENGINE_STOPPED &&
		    *(uint32_t *)(q.dus + SOFTACC_DUS_TX_STOPPED(q.dus_size)) == 1,
		    "ioctl: after PUT_Q a rung doorbell completes nothing (engine quiesced)");
	ret = sacc_start(&q);
	ktap_result(!ret && q.db->cq_tail == 0 && !run_one(&q, &e, &c) && c.tag == 8,
		    "ioctl: START_Q again: a fresh ring that works");
	sacc_close(&q);
}

static void test_data(const char *dev)
{
	static const char check[] = "123456789";
	struct sacc_queue q;
	struct softacc_cqe c;
	struct softacc_sqe e;
	int ret, wraps = 0;

	if (sacc_open(&q, dev))
		ktap_bail("cannot open a queue for the data path");
	memcpy(q.data, check, 9);
	e = sqe_make(SOFTACC_OP_CRC32C, 1, 0, 9, 0, 0, 0);
	ret = run_one(&q, &e, &c);
	ktap_result(!ret && c.result == 0xe3069283,
		    "data: CRC32C(\"123456789\") = 0xe3069283 (got %#x)", c.result);
	ret = data_path(&q, 300, &wraps);
	ktap_result(ret == 0 && wraps >= 4,
		    "data: 300 random CRC32C/memcpy/NOP jobs match userspace (%d wrong, %d CQ wraps)",
		    ret, wraps);
	ret = sacc_wait(&q, 300);
	ktap_result(ret == 0, "data: poll times out with nothing pending (%d)", ret);
	e = sqe_make(SOFTACC_OP_NOP, 2, 0, 0, 0, 0, 0);
	sacc_submit(&q, &e);
	ret = sacc_wait(&q, 10000);
	ktap_result(ret == 1, "data: poll gives POLLIN once a completion is pending");
	ret = sacc_wait(&q, 0);
	ktap_result(ret == 1 && sacc_reap(&q, &c, 1) == 1 && sacc_wait(&q, 0) == 0,
		    "data: POLLIN stays until the CQE is consumed, then clears");
	sacc_close(&q);
}

static void test_bad(const char *dev)
{
	struct sacc_queue q;
	struct softacc_cqe c;
	struct softacc_sqe e;
	uint32_t ds;
	int ok = 1;

	if (sacc_open(&q, dev))
		ktap_bail("cannot open a queue for the bad descriptors");
	ds = q.hdr.data_size;
	e = sqe_make(SOFTACC_OP_CRC32C, 1, ds, 1, 0, 0, 0);
	ktap_result(!run_one(&q, &e, &c) && c.status == -EINVAL,
		    "bad: a CRC32C source past the data area gives -EINVAL");
	e = sqe_make(SOFTACC_OP_CRC32C, 2, 0xfffffff0u, 0x20, 0, 0, 0);
	ktap_result(!run_one(&q, &e, &c) && c.status == -EINVAL,
		    "bad: a CRC32C source wrapping past 2^32 gives -EINVAL");
	/* the destination's first 8 bytes fit: nothing may be written there */
	memset(q.data, 0xa5, 16);
	memset(q.data + ds - 8, 0x3c, 8);
	e = sqe_make(SOFTACC_OP_MEMCPY, 3, 0, 16, ds - 8, 16, 0);
	ok = !run_one(&q, &e, &c) && c.status == -EINVAL;
	ktap_result(ok && q.data[ds - 8] == 0x3c && q.data[ds - 1] == 0x3c,
		    "bad: a memcpy destination past the data area gives -EINVAL, nothing written");
	e = sqe_make(SOFTACC_OP_MEMCPY, 7, 0, 16, 0xfffffff8u, 16, 0);
	ktap_result(!run_one(&q, &e, &c) && c.status == -EINVAL,
		    "bad: a memcpy destination wrapping past 2^32 gives -EINVAL");
	e = sqe_make(SOFTACC_OP_MEMCPY, 4, 0, 64, 4096, 32, 0);
	ktap_result(!run_one(&q, &e, &c) && c.status == -ERANGE,
		    "bad: memcpy into a too small destination gives -ERANGE");
	e = sqe_make(99, 5, 0, 0, 0, 0, 0);
	ktap_result(!run_one(&q, &e, &c) && c.status == -EINVAL,
		    "bad: an unknown opcode gives -EINVAL");
	/* a doorbell more than a ring ahead */
	q.db->sq_tail = q.sq_tail + 1000;
	sacc_kick(&q);
	for (ok = 0; ok < 100 && q.db->err_count == 0; ok++)
		sacc_wait(&q, 20);
	ktap_result(q.db->err_count == 1 && q.db->last_error == -EOVERFLOW,
		    "bad: a doorbell a ring ahead is counted (err_count %u, last_error %d)",
		    q.db->err_count, q.db->last_error);
	q.sq_tail += 1000;
	e = sqe_make(SOFTACC_OP_NOP, 6, 0, 0, 0, 0, 0);
	ktap_result(!run_one(&q, &e, &c) && c.tag == 6 && !c.status,
		    "bad: the queue still works afterwards");
	sacc_close(&q);
}

static int mode_basic(const char *dev, int nr)
{
	ktap_header(8 + 5 + 13 + 7 + 5 + 8);
	test_sysfs(dev);
	test_instances(dev, nr);
	test_mmap(dev);
	test_ioctl(dev);
	test_data(dev);
	test_bad(dev);
	return ktap_finish();
}

/* --- closework: test 7 ------------------------------------------------------ */

/* Fill the SQ with 32 KiB CRC jobs and kick, without waiting. */
static void queue_long_jobs(struct sacc_queue *q)
{
	struct softacc_sqe e = sqe_make(SOFTACC_OP_CRC32C, 0, 0, 32768, 0, 0, 0);

	while (!sacc_submit(q, &e))
		e.tag++;
	sacc_kick(q);
}

static int mode_closework(const char *dev)
{
	int nr = sysfs_long(dev, "available_instances"), st, i;
	struct sacc_queue q;
	pid_t pid;

	ktap_header(3);
	for (i = 0; i < 20; i++) {
		if (sacc_open(&q, dev))
			break;
		queue_long_jobs(&q);
		sacc_close(&q);
	}
	ktap_result(i == 20, "close with a full SQ of 32 KiB CRC jobs in flight, 20 times");

	for (i = 0; i < 10; i++) {
		pid = fork();
		if (!pid) {
			if (sacc_open(&q, dev))
				_exit(1);
			for (;;)
				queue_long_jobs(&q);
		}
		usleep(20000 + 10000 * i);
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		if (!WIFSIGNALED(st))
			break;
	}
	ktap_result(i == 10, "SIGKILL of a submitting process mid-batch, 10 times");
	ktap_result(sysfs_long(dev, "available_instances") == nr,
		    "every instance came back (%d)", nr);
	return ktap_finish();
}

/* --- hold: tests 8 and 9 (the shell removes the device meanwhile) ---------- */

struct poller {
	struct sacc_queue *q;
	int ret;
	struct timespec end;
};

static void *poller_main(void *arg)
{
	struct poller *p = arg;

	/* nothing completes: only the removal can end this early */
	p->ret = sacc_wait(p->q, 120000);
	clock_gettime(CLOCK_MONOTONIC, &p->end);
	return NULL;
}

static int mode_hold(int argc, char **argv)
{
	int nq = argc, i, ok, sig_db, sig_dus;
	struct sacc_queue q[2], idle;
	struct poller pl = { .q = &idle };
	struct timespec go;
	pthread_t th;
	char line[16];
	long late_ms;

	ktap_header(1 + 5 * nq + 1);
	for (i = 0; i < nq; i++)
		if (sacc_open(&q[i], argv[i]))
			ktap_bail("cannot open the queues to hold");
	/* a started queue that never completes anything: only removal ends its poll */
	if (sacc_open(&idle, argv[0]))
		ktap_bail("cannot open the idle queue");
	pthread_create(&th, NULL, poller_main, &pl);
	for (i = 0; i < nq; i++)
		queue_long_jobs(&q[i]);
	ktap_result(1, "holding %d queue(s) with jobs queued, both regions mapped, a poller waiting",
		    nq);
	printf("# ready\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		ktap_bail("no go line on stdin");
	/* the shell sends the line once the removal is over */
	clock_gettime(CLOCK_MONOTONIC, &go);

	for (i = 0; i < nq; i++) {
		sig_db = touch((volatile uint8_t *)q[i].db, 0);
		sig_dus = touch(q[i].dus + q[i].hdr.data_off, 1);
		ktap_result(sig_db == SIGBUS && sig_dus == SIGBUS,
			    "%s: touching MMIO and DUS gives SIGBUS (%d, %d)", argv[i],
			    sig_db, sig_dus);
		ok = ioctl(q[i].fd, UACCE_CMD_START_Q) < 0 && errno == ENXIO &&
		     ioctl(q[i].fd, SOFTACC_CMD_KICK) < 0 && errno == ENXIO;
		ktap_result(ok, "%s: ioctl gives ENXIO", argv[i]);
		munmap(q[i].dus, q[i].dus_size);
		q[i].dus = NULL;
		ktap_result(map_errno(q[i].fd, UACCE_QFRT_DUS, q[i].dus_size) == ENXIO,
			    "%s: mmap gives ENXIO", argv[i]);
		ktap_result(sacc_wait(&q[i], 5000) == -EPIPE,
			    "%s: poll returns POLLERR|POLLHUP at once", argv[i]);
		sacc_close(&q[i]);
		ktap_result(1, "%s: close works", argv[i]);
	}
	pthread_join(th, NULL);
	sacc_close(&idle);
	/*
	 * Woken by the removal, the poller returned before the removal was
	 * over (late_ms <= 0, give or take scheduling); unwoken, its poll
	 * would end only at its 120 s timeout.
	 */
	late_ms = (pl.end.tv_sec - go.tv_sec) * 1000 +
		  (pl.end.tv_nsec - go.tv_nsec) / 1000000;
	ktap_result(pl.ret == -EPIPE && late_ms < 1000,
		    "the poller blocked before the removal was woken by it (%d, %+ld ms after the removal ended)",
		    pl.ret, late_ms);
	return ktap_finish();
}

/* --- small modes for the shell scripts -------------------------------------- */

static int mode_open(const char *dev)
{
	struct sacc_queue q;
	int ret = sacc_open(&q, dev);

	if (ret) {
		printf("%s\n", strerror(-ret));
		return 1;
	}
	sacc_close(&q);
	return 0;
}

static int mode_fail(const char *dev, int n)
{
	struct sacc_queue q;
	struct softacc_cqe c;
	struct softacc_sqe e = sqe_make(SOFTACC_OP_FAIL, 0, 0, 0, 0, 0, 0);
	int i, bad = 0;

	if (sacc_open(&q, dev))
		return 1;
	for (i = 0; i < n; i++)
		bad += run_one(&q, &e, &c) || c.status != -EIO;
	sacc_close(&q);
	return bad ? 1 : 0;
}

static int mode_data(const char *dev, int n)
{
	struct sacc_queue q;
	int ret = sacc_open(&q, dev);

	if (ret) {
		printf("open: %s\n", strerror(-ret));
		return 1;
	}
	ret = data_path(&q, n, NULL);
	sacc_close(&q);
	printf("%d wrong\n", ret);
	return ret ? 1 : 0;
}

/* Errors of a device going away are expected; a wrong result is not. */
static int mode_churn(const char *dev, int seconds)
{
	struct sigaction sa = { .sa_handler = fault_handler };
	time_t end = time(NULL) + seconds;
	volatile long rounds = 0, opened = 0, revoked = 0;
	struct sacc_queue q;
	int ret;

	/* a zapped mapping (even the header read in sacc_open) raises SIGBUS */
	sigaction(SIGBUS, &sa, NULL);
	while (time(NULL) < end) {
		rounds++;
		memset(&q, 0, sizeof(q));
		q.fd = -1;
		if (sigsetjmp(fault_jmp, 1) == 0) {
			if (sacc_open(&q, dev)) {
				usleep(1000);
				continue;
			}
			opened++;
			ret = data_path(&q, 20, NULL);
			if (ret > 0) {
				printf("churn: %d wrong results\n", ret);
				return 1;
			}
		} else {
			revoked++;
		}
		sacc_close(&q);
	}
	printf("churn: %ld rounds, %ld opened, %ld revoked mid-job\n", rounds, opened,
	       revoked);
	return 0;
}

/* The queue was marked dead: poll says so at once. */
static int queue_dead(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLHUP);
}

/*
 * mmap races with the removal: the queue's DUS is mapped and unmapped
 * until the queue dies, and the mapping made as it died (if the last
 * mmap worked) is kept.  A ->mmap that passed before the queue died can
 * return after the removal's zap; once the removal is over (a line on
 * stdin) that mapping must be gone too: SIGBUS, not a live page.
 */
static int mode_mmaprace(const char *dev)
{
	long dus = sysfs_long(dev, "region_dus_size"), n = 0;
	int fd = open(dev, O_RDWR | O_CLOEXEC), e = 0, sig;
	uint8_t *p = MAP_FAILED;
	char line[16];

	if (fd < 0 || dus <= 0) {
		printf("cannot open %s (%s) or read its DUS size\n", dev, strerror(errno));
		return 1;
	}
	printf("# ready\n");
	fflush(stdout);
	for (;;) {
		p = map_region(fd, UACCE_QFRT_DUS, dus);
		if (p == MAP_FAILED) {
			e = errno;
			break;
		}
		n++;
		if (queue_dead(fd))
			break;
		munmap(p, dus);
	}
	if (!fgets(line, sizeof(line), stdin)) {
		printf("no go line on stdin\n");
		return 1;
	}
	if (p == MAP_FAILED) {
		printf("%ld mappings, then mmap gave %s\n", n, strerror(e));
		return e == ENXIO ? 0 : 1;
	}
	sig = touch(p + dus - 1, 1);
	printf("%ld mappings, the last made as the queue died; touching it after removal: %s\n",
	       n, sig ? strsignal(sig) : "no fault, the page is live");
	munmap(p, dus);
	close(fd);
	return sig == SIGBUS ? 0 : 1;
}

int main(int argc, char **argv)
{
	page = sysconf(_SC_PAGESIZE);
	if (argc >= 4 && !strcmp(argv[1], "basic"))
		return mode_basic(argv[2], atoi(argv[3]));
	if (argc >= 3 && !strcmp(argv[1], "closework"))
		return mode_closework(argv[2]);
	if (argc >= 3 && argc <= 4 && !strcmp(argv[1], "hold"))
		return mode_hold(argc - 2, argv + 2);
	if (argc >= 3 && !strcmp(argv[1], "open"))
		return mode_open(argv[2]);
	if (argc >= 4 && !strcmp(argv[1], "fail"))
		return mode_fail(argv[2], atoi(argv[3]));
	if (argc >= 4 && !strcmp(argv[1], "data"))
		return mode_data(argv[2], atoi(argv[3]));
	if (argc >= 4 && !strcmp(argv[1], "churn"))
		return mode_churn(argv[2], atoi(argv[3]));
	if (argc >= 3 && !strcmp(argv[1], "mmaprace"))
		return mode_mmaprace(argv[2]);
	fprintf(stderr, "usage: see the head of tests/uacce/uacce_test.c\n");
	return 2;
}
