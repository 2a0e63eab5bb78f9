// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The mw57 authors. */
/* libsoftacc: client side of softacc queues (see mw57/libsoftacc.h). */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <misc/uacce/uacce.h>
#include <mw57/libsoftacc.h>

static int read_size(int fd, const char *attr, size_t *out)
{
	struct stat st;
	char path[128];
	unsigned long v;
	FILE *f;
	int n;

	if (fstat(fd, &st) < 0)
		return -errno;
	snprintf(path, sizeof(path), "/sys/dev/char/%u:%u/%s",
		 major(st.st_rdev), minor(st.st_rdev), attr);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	n = fscanf(f, "%lu", &v);
	fclose(f);
	if (n != 1)
		return -EINVAL;
	*out = v;
	return 0;
}

int sacc_region_sizes(int fd, size_t *mmio, size_t *dus)
{
	int ret = read_size(fd, "region_mmio_size", mmio);

	return ret ? ret : read_size(fd, "region_dus_size", dus);
}

int sacc_start(struct sacc_queue *q)
{
	if (ioctl(q->fd, UACCE_CMD_START_Q) < 0)
		return -errno;
	/* the engine starts a fresh ring */
	q->sq_tail = 0;
	q->cq_head = 0;
	return 0;
}

int sacc_stop(struct sacc_queue *q)
{
	return ioctl(q->fd, UACCE_CMD_PUT_Q) < 0 ? -errno : 0;
}

int sacc_kick(struct sacc_queue *q)
{
	return ioctl(q->fd, SOFTACC_CMD_KICK) < 0 ? -errno : 0;
}

/* [off, off + n * size) lies in [0, limit) and off is ALIGN-aligned */
static int area_ok(uint32_t off, uint32_t n, uint32_t size, size_t limit,
		   uint32_t align)
{
	return !(off % align) && (uint64_t)off + (uint64_t)n * size <= limit;
}

int sacc_check_header(const struct softacc_dus_header *h, size_t dus_size)
{
	if (dus_size < sizeof(*h) || h->magic != SOFTACC_MAGIC ||
	    h->version != SOFTACC_VERSION)
		return -EPROTO;
	/* sacc_submit copies a whole SQE; sacc_reap indexes CQEs by type */
	if (!h->sq_depth || !h->cq_depth ||
	    h->sqe_size < sizeof(struct softacc_sqe) ||
	    h->cqe_size != sizeof(struct softacc_cqe))
		return -EPROTO;
	if (!area_ok(h->sq_off, h->sq_depth, h->sqe_size, dus_size, 8) ||
	    !area_ok(h->cq_off, h->cq_depth, h->cqe_size, dus_size, 8) ||
	    !area_ok(h->data_off, 1, h->data_size, dus_size, 1))
		return -EPROTO;
	return 0;
}

int sacc_open(struct sacc_queue *q, const char *path)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p;
	int ret;

	memset(q, 0, sizeof(*q));
	q->fd = open(path ? path : "/dev/softacc-0", O_RDWR | O_CLOEXEC);
	if (q->fd < 0)
		return -errno;
	ret = sacc_region_sizes(q->fd, &q->mmio_size, &q->dus_size);
	if (ret)
		goto err_close;

	p = mmap(NULL, q->mmio_size, PROT_READ | PROT_WRITE, MAP_SHARED, q->fd,
		 UACCE_QFRT_MMIO * page);
	if (p == MAP_FAILED)
		goto err_errno;
	q->db = p;
	p = mmap(NULL, q->dus_size, PROT_READ | PROT_WRITE, MAP_SHARED, q->fd,
		 UACCE_QFRT_DUS * page);
	if (p == MAP_FAILED)
		goto err_errno;
	q->dus = p;
	ret = -EPROTO;
	if (q->mmio_size < sizeof(*q->db) || q->dus_size < sizeof(q->hdr))
		goto err_close;
	memcpy(&q->hdr, q->dus, sizeof(q->hdr));
	ret = sacc_check_header(&q->hdr, q->dus_size);
	if (ret)
		goto err_close;
	q->data = q->dus + q->hdr.data_off;
	ret = sacc_start(q);
	if (ret)
		goto err_close;
	return 0;

err_errno:
	ret = -errno;
err_close:
	sacc_close(q);
	return ret;
}

int sacc_submit(struct sacc_queue *q, const struct softacc_sqe *sqe)
{
	uint8_t *slot;

	if (q->sq_tail - q->db->sq_head >= q->hdr.sq_depth)
		return -EAGAIN;
	slot = q->dus + q->hdr.sq_off +
	       (size_t)(q->sq_tail % q->hdr.sq_depth) * q->hdr.sqe_size;
	memcpy(slot, sqe, sizeof(*sqe));
	q->sq_tail++;
	__atomic_store_n(&q->db->sq_tail, q->sq_tail, __ATOMIC_RELEASE);
	return 0;
}

int sacc_reap(struct sacc_queue *q, struct softacc_cqe *out, int max)
{
	volatile struct softacc_cqe *c;
	int n = 0;

	while (n < max) {
		c = (volatile struct softacc_cqe *)(q->dus + q->hdr.cq_off) +
		    q->cq_head % q->hdr.cq_depth;
		if (__atomic_load_n(&c->phase, __ATOMIC_ACQUIRE) !=
		    (((q->cq_head / q->hdr.cq_depth) & 1) ^ 1))
			break;
		out[n].tag = c->tag;
		out[n].status = c->status;
		out[n].phase = c->phase;
		out[n].result = c->result;
		n++;
		q->cq_head++;
	}
	if (n)
		__atomic_store_n(&q->db->cq_head, q->cq_head, __ATOMIC_RELEASE);
	return n;
}

int sacc_wait(struct sacc_queue *q, int timeout_ms)
{
	struct pollfd pfd = { .fd = q->fd, .events = POLLIN };
	int n = poll(&pfd, 1, timeout_ms);

	if (n < 0)
		return -errno;
	if (n && (pfd.revents & (POLLERR | POLLHUP)))
		return -EPIPE;
	return n;
}

void sacc_close(struct sacc_queue *q)
{
	if (q->dus)
		munmap(q->dus, q->dus_size);
	if (q->db)
		munmap((void *)q->db, q->mmio_size);
	if (q->fd >= 0)
		close(q->fd);
	q->dus = NULL;
	q->db = NULL;
	q->fd = -1;
}

uint32_t sacc_crc32c(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	int k;

	crc = ~crc;
	while (len--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82f63b78 & -(crc & 1));
	}
	return ~crc;
}
