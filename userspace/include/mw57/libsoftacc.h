/* SPDX-License-Identifier: GPL-2.0 */
/* Copyright (C) 2026 The mw57 authors. */
/*
 * libsoftacc: a small client for softacc queues on uacce (see softacc.h
 * for the queue ABI).  Functions return 0 or a count on success and
 * -errno on failure.
 *
 *	struct sacc_queue q;
 *	sacc_open(&q, "/dev/softacc-0");	open, map, START_Q
 *	memcpy(q.data + off, buf, len);		payloads go to the data area
 *	sacc_submit(&q, &sqe);			one SQE (offsets, not pointers)
 *	sacc_wait(&q, 1000);			poll() for completions
 *	sacc_reap(&q, cqes, n);			consume up to n CQEs
 *	sacc_close(&q);
 */
#ifndef _MW57_LIBSOFTACC_H
#define _MW57_LIBSOFTACC_H

#include <stddef.h>
#include <stdint.h>

#include <mw57/softacc.h>

struct sacc_queue {
	int fd;
	volatile struct softacc_doorbell *db;	/* MMIO region */
	uint8_t *dus;				/* DUS region */
	size_t mmio_size;
	size_t dus_size;
	struct softacc_dus_header hdr;
	uint8_t *data;				/* dus + hdr.data_off */
	uint32_t sq_tail;			/* submitted */
	uint32_t cq_head;			/* consumed */
};

/* The uacce region sizes of the device behind FD (sysfs, by dev_t). */
int sacc_region_sizes(int fd, size_t *mmio, size_t *dus);

/*
 * Open PATH (NULL: /dev/softacc-0), map both regions, check the DUS
 * header (sacc_check_header; -EPROTO), start the queue.
 */
int sacc_open(struct sacc_queue *q, const char *path);
/*
 * 0 when every field of H that the library uses fits a DUS region of
 * DUS_SIZE bytes (magic, version, nonzero depths, entry sizes, rings and
 * data area inside the region, aligned rings), else -EPROTO.
 */
int sacc_check_header(const struct softacc_dus_header *h, size_t dus_size);
int sacc_start(struct sacc_queue *q);	/* UACCE_CMD_START_Q, fresh ring */
int sacc_stop(struct sacc_queue *q);	/* UACCE_CMD_PUT_Q */
int sacc_kick(struct sacc_queue *q);	/* SOFTACC_CMD_KICK */
/* Queue one SQE and ring the doorbell; -EAGAIN when the SQ is full. */
int sacc_submit(struct sacc_queue *q, const struct softacc_sqe *sqe);
/* Consume up to MAX completed CQEs into OUT; returns how many. */
int sacc_reap(struct sacc_queue *q, struct softacc_cqe *out, int max);
/* poll() for completions: 1 ready, 0 timeout, -errno (-EPIPE: removed). */
int sacc_wait(struct sacc_queue *q, int timeout_ms);
void sacc_close(struct sacc_queue *q);

/* CRC32C (Castagnoli) of BUF, continuing from CRC (0 to start). */
uint32_t sacc_crc32c(uint32_t crc, const void *buf, size_t len);

#endif /* _MW57_LIBSOFTACC_H */
