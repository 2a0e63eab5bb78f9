// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The mw57 authors. */
/*
 * softacc-crc32c [-d /dev/softacc-N] [FILE...]: print the CRC32C of each
 * FILE (or stdin) computed by a softacc queue, the way an accelerator user
 * would: copy a chunk into the queue's data area, submit a CRC32C job
 * seeded with the CRC so far, wait for the completion, repeat.  With -v
 * the result is checked against a software CRC32C.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mw57/libsoftacc.h>

static int crc_fd(struct sacc_queue *q, int fd, uint32_t *crc, int verify)
{
	uint32_t chunk = q->hdr.data_size, sw = 0;
	struct softacc_sqe sqe;
	struct softacc_cqe cqe;
	ssize_t n;
	int ret;

	*crc = 0;
	while ((n = read(fd, q->data, chunk)) > 0) {
		memset(&sqe, 0, sizeof(sqe));
		sqe.opcode = SOFTACC_OP_CRC32C;
		sqe.src_len = n;
		sqe.seed = *crc;
		if (verify)
			sw = sacc_crc32c(sw, q->data, n);
		ret = sacc_submit(q, &sqe);
		if (ret)
			return ret;
		while ((ret = sacc_reap(q, &cqe, 1)) == 0) {
			ret = sacc_wait(q, 5000);
			if (ret <= 0)
				return ret ? ret : -ETIMEDOUT;
		}
		if (cqe.status)
			return cqe.status;
		*crc = cqe.result;
	}
	if (n < 0)
		return -errno;
	return verify && sw != *crc ? -EBADMSG : 0;
}

int main(int argc, char **argv)
{
	const char *dev = "/dev/softacc-0";
	struct sacc_queue q;
	int i, fd, ret, verify = 0, rc = 0;
	uint32_t crc;

	while ((i = getopt(argc, argv, "d:vh")) != -1) {
		switch (i) {
		case 'd':
			dev = optarg;
			break;
		case 'v':
			verify = 1;
			break;
		default:
			fprintf(stderr, "usage: %s [-d DEVICE] [-v] [FILE...]\n", argv[0]);
			return 2;
		}
	}
	ret = sacc_open(&q, dev);
	if (ret) {
		fprintf(stderr, "%s: %s\n", dev, strerror(-ret));
		return 1;
	}
	for (i = optind; i < argc || i == optind; i++) {
		const char *name = i < argc ? argv[i] : "-";

		fd = strcmp(name, "-") ? open(name, O_RDONLY) : 0;
		if (fd < 0) {
			perror(name);
			rc = 1;
			continue;
		}
		ret = crc_fd(&q, fd, &crc, verify);
		if (ret) {
			fprintf(stderr, "%s: %s\n", name, strerror(-ret));
			rc = 1;
		} else {
			printf("%08x  %s\n", crc, name);
		}
		if (fd)
			close(fd);
	}
	sacc_close(&q);
	return rc;
}
