// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The mw57 authors. */
/*
 * usbtest_case: run one case of the kernel's usbtest host driver on a
 * device, through USBDEVFS_IOCTL on interface 0 (what testusb does).
 *
 *   usbtest_case /dev/bus/usb/BBB/DDD CASE ITERATIONS LENGTH VARY SGLEN
 *
 * Prints "CASE RESULT" where RESULT is 0 or the errno name, exits 0 when
 * the ioctl itself could be issued.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/types.h>
#include <linux/usbdevice_fs.h>

struct usbtest_param_64 {
	__u32 test_num;
	__u32 iterations;
	__u32 length;
	__u32 vary;
	__u32 sglen;
	__s64 duration_sec;
	__s64 duration_usec;
};

#define USBTEST_REQUEST_64 _IOWR('U', 100, struct usbtest_param_64)

int main(int argc, char **argv)
{
	struct usbtest_param_64 p = { 0 };
	struct usbdevfs_ioctl io = { 0 };
	int fd, ret;

	if (argc != 7) {
		fprintf(stderr, "usage: usbtest_case NODE CASE ITER LEN VARY SGLEN\n");
		return 2;
	}
	p.test_num = strtoul(argv[2], NULL, 0);
	p.iterations = strtoul(argv[3], NULL, 0);
	p.length = strtoul(argv[4], NULL, 0);
	p.vary = strtoul(argv[5], NULL, 0);
	p.sglen = strtoul(argv[6], NULL, 0);
	fd = open(argv[1], O_RDWR);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	io.ifno = 0;
	io.ioctl_code = USBTEST_REQUEST_64;
	io.data = &p;
	ret = ioctl(fd, USBDEVFS_IOCTL, &io);
	printf("%u %s\n", p.test_num, ret < 0 ? strerrorname_np(errno) : "0");
	close(fd);
	return 0;
}
