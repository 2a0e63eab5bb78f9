// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The mw57 authors. */
/*
 * uacce_bench DEV ROUNDS: CRC32C and memcpy throughput through a softacc
 * queue (the SQ kept full, completions reaped as they come) against the
 * same work in this process (a slice-by-8 CRC32C, the algorithm class of
 * the kernel's __crc32c_le, and memcpy), job sizes 64 B to 64 KiB.
 * Rounds interleave sizes, operations and paths; medians are printed with
 * the ratios queue/direct for throughput and for the caller's CPU time
 * per byte.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mw57/libsoftacc.h>

#define SAMPLE_NS	300000000LL	/* per sample */

static uint32_t crc_tab[8][256];

static void crc_init(void)
{
	uint32_t c;
	int i, k;

	for (i = 0; i < 256; i++) {
		c = i;
		for (k = 0; k < 8; k++)
			c = (c >> 1) ^ (0x82f63b78 & -(c & 1));
		crc_tab[0][i] = c;
	}
	for (i = 0; i < 256; i++)
		for (k = 1; k < 8; k++)
			crc_tab[k][i] = (crc_tab[k - 1][i] >> 8) ^
					crc_tab[0][crc_tab[k - 1][i] & 0xff];
}

static uint32_t crc_sw(uint32_t crc, const uint8_t *p, size_t len)
{
	uint64_t v;

	crc = ~crc;
	while (len >= 8) {
		memcpy(&v, p, 8);
		v ^= crc;
		crc = crc_tab[7][v & 0xff] ^ crc_tab[6][(v >> 8) & 0xff] ^
		      crc_tab[5][(v >> 16) & 0xff] ^ crc_tab[4][(v >> 24) & 0xff] ^
		      crc_tab[3][(v >> 32) & 0xff] ^ crc_tab[2][(v >> 40) & 0xff] ^
		      crc_tab[1][(v >> 48) & 0xff] ^ crc_tab[0][v >> 56];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = (crc >> 8) ^ crc_tab[0][(crc ^ *p++) & 0xff];
	return ~crc;
}

static int64_t ns(clockid_t id)
{
	struct timespec t;

	clock_gettime(id, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

struct sample {
	double mbps;		/* MB/s */
	double cpu_ns_kb;	/* caller CPU ns per KiB */
};

static volatile uint32_t sink;

static struct sample direct(struct sacc_queue *q, int op, uint32_t size)
{
	int64_t t0 = ns(CLOCK_MONOTONIC), c0 = ns(CLOCK_PROCESS_CPUTIME_ID), t;
	uint64_t bytes = 0;

	do {
		if (op == SOFTACC_OP_CRC32C)
			sink = crc_sw(0, q->data, size);
		else
			memcpy(q->data + size, q->data, size);
		bytes += size;
		t = ns(CLOCK_MONOTONIC);
	} while (t - t0 < SAMPLE_NS);
	return (struct sample){ bytes * 1e3 / (t - t0),
		(ns(CLOCK_PROCESS_CPUTIME_ID) - c0) * 1024.0 / bytes };
}

static struct sample queued(struct sacc_queue *q, int op, uint32_t size)
{
	struct softacc_sqe e = { .opcode = op, .src_len = size,
				 .dst_off = size, .dst_len = size };
	int64_t t0 = ns(CLOCK_MONOTONIC), c0 = ns(CLOCK_PROCESS_CPUTIME_ID), t = t0;
	struct softacc_cqe c[64];
	uint64_t bytes = 0;
	uint32_t inflight = 0;
	int n, i;

	do {
		while (!sacc_submit(q, &e))
			inflight++;
		n = sacc_reap(q, c, 64);
		if (!n && sacc_wait(q, 1000) < 0)
			break;
		for (i = 0; i < n; i++)
			if (!c[i].status)
				bytes += size;
		inflight -= n;
		t = ns(CLOCK_MONOTONIC);
	} while (t - t0 < SAMPLE_NS);
	while (inflight)	/* drain, uncounted */
		if ((n = sacc_reap(q, c, 64)))
			inflight -= n;
		else if (sacc_wait(q, 1000) <= 0)
			break;
	return (struct sample){ bytes * 1e3 / (t - t0),
		(ns(CLOCK_PROCESS_CPUTIME_ID) - c0) * 1024.0 / (bytes ? bytes : 1) };
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	static const uint32_t sizes[] = { 64, 256, 1024, 4096, 16384, 65536 };
	enum { NS = sizeof(sizes) / sizeof(sizes[0]), MAXR = 15 };
	static const int ops[] = { SOFTACC_OP_CRC32C, SOFTACC_OP_MEMCPY };
	static struct sample s[2][NS][2][MAXR];	/* op, size, queued?, round */
	int rounds, r, o, z, p, ret;
	struct sacc_queue q;
	double v[4][MAXR];

	if (argc < 3)
		return 2;
	rounds = atoi(argv[2]);
	if (rounds < 1 || rounds > MAXR)
		rounds = 5;
	crc_init();
	ret = sacc_open(&q, argv[1]);
	if (ret) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(-ret));
		return 1;
	}
	if (q.hdr.data_size < 2 * sizes[NS - 1]) {
		fprintf(stderr, "data area %u too small (dus_pages=64)\n", q.hdr.data_size);
		return 1;
	}
	for (z = 0; z < 2 * (int)sizes[NS - 1]; z++)
		q.data[z] = z * 7;
	for (r = 0; r < rounds; r++)
		for (z = 0; z < NS; z++)
			for (o = 0; o < 2; o++)
				for (p = 0; p < 2; p++)
					s[o][z][p][r] = p ? queued(&q, ops[o], sizes[z]) :
						direct(&q, ops[o], sizes[z]);
	sacc_close(&q);

	printf("%d rounds x %.1f s per sample, medians; queue = softacc (kernel thread), "
	       "direct = this process\n", rounds, SAMPLE_NS / 1e9);
	printf("op      size   queue MB/s  direct MB/s  queue/direct  caller CPU ns/KiB q/d\n");
	for (o = 0; o < 2; o++)
		for (z = 0; z < NS; z++) {
			for (r = 0; r < rounds; r++) {
				v[0][r] = s[o][z][1][r].mbps;
				v[1][r] = s[o][z][0][r].mbps;
				v[2][r] = s[o][z][1][r].cpu_ns_kb;
				v[3][r] = s[o][z][0][r].cpu_ns_kb;
			}
			double qm = median(v[0], rounds), dm = median(v[1], rounds);
			double qc = median(v[2], rounds), dc = median(v[3], rounds);

			printf("%-6s %6u %11.1f %12.1f %13.2f %10.0f / %-8.0f %5.2f\n",
			       o ? "memcpy" : "crc32c", sizes[z], qm, dm, qm / dm, qc, dc,
			       qc / dc);
		}
	printf("queue/direct > 1: the queue is faster; CPU q/d < 1: the caller spends less CPU\n");
	return 0;
}
