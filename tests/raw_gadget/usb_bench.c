// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The mw57 authors. */
/*
 * usb_bench: host-side bulk throughput through libusb, one synchronous
 * reader or writer, for the raw_gadget benchmark.
 *
 *   usb_bench VID:PID in|out|loop SIZE MILLISECONDS
 *
 * Claims interface 0, uses its first bulk IN or OUT endpoint, moves SIZE
 * bytes per transfer for MILLISECONDS, prints "BYTES_PER_SECOND".  loop
 * (for rg-loopback) writes SIZE bytes of changing data, reads them back
 * and compares; SIZE must not be a multiple of maxpacket, so the short
 * packet ends each transfer.  It prints the number of good round trips and
 * fails on the first mismatch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <libusb-1.0/libusb.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int round_trips(libusb_device_handle *h, unsigned char ep_in,
		       unsigned char ep_out, unsigned char *buf,
		       unsigned char *back, unsigned int size, unsigned int ms)
{
	double start = now();
	unsigned long n = 0;
	unsigned int i;
	int got, ret;

	do {
		for (i = 0; i < size; i++)
			buf[i] = n + i * 7;
		ret = libusb_bulk_transfer(h, ep_out, buf, size, &got, 5000);
		if (!ret && (unsigned int)got == size)
			ret = libusb_bulk_transfer(h, ep_in, back, size, &got, 5000);
		if (ret || (unsigned int)got != size || memcmp(buf, back, size)) {
			fprintf(stderr, "usb_bench: round trip %lu: %s, %d bytes\n",
				n, ret ? libusb_error_name(ret) : "mismatch", got);
			return 1;
		}
		n++;
	} while ((now() - start) * 1000 < ms);
	printf("%lu\n", n);
	return 0;
}

int main(int argc, char **argv)
{
	const struct libusb_interface_descriptor *alt;
	struct libusb_config_descriptor *cfg;
	libusb_device_handle *h;
	unsigned int vid, pid, size, ms, i;
	unsigned char ep = 0, *buf;
	long long total = 0;
	double start, t;
	unsigned char ep_out = 0, *back;
	int in, loop, got, ret;

	if (argc != 5 || sscanf(argv[1], "%x:%x", &vid, &pid) != 2) {
		fprintf(stderr, "usage: usb_bench VID:PID in|out SIZE MILLISECONDS\n");
		return 2;
	}
	in = !strcmp(argv[2], "in");
	loop = !strcmp(argv[2], "loop");
	in |= loop;
	size = strtoul(argv[3], NULL, 0);
	ms = strtoul(argv[4], NULL, 0);
	buf = calloc(1, size);
	back = calloc(1, size);
	if (!buf || !back || libusb_init(NULL))
		return 1;
	h = libusb_open_device_with_vid_pid(NULL, vid, pid);
	if (!h) {
		fprintf(stderr, "usb_bench: %04x:%04x not found\n", vid, pid);
		return 1;
	}
	libusb_set_auto_detach_kernel_driver(h, 1);
	if (libusb_get_active_config_descriptor(libusb_get_device(h), &cfg) ||
	    libusb_claim_interface(h, 0)) {
		fprintf(stderr, "usb_bench: cannot claim interface 0\n");
		return 1;
	}
	alt = &cfg->interface[0].altsetting[0];
	for (i = 0; i < alt->bNumEndpoints; i++) {
		const struct libusb_endpoint_descriptor *e = &alt->endpoint[i];

		if ((e->bmAttributes & 3) != LIBUSB_TRANSFER_TYPE_BULK)
			continue;
		if (!!(e->bEndpointAddress & LIBUSB_ENDPOINT_IN) == in && !ep)
			ep = e->bEndpointAddress;
		if (!(e->bEndpointAddress & LIBUSB_ENDPOINT_IN) && !ep_out)
			ep_out = e->bEndpointAddress;
	}
	if (loop)
		return round_trips(h, ep, ep_out, buf, back, size, ms);
	if (!ep) {
		fprintf(stderr, "usb_bench: no bulk %s endpoint\n", argv[2]);
		return 1;
	}
	start = now();
	do {
		ret = libusb_bulk_transfer(h, ep, buf, size, &got, 5000);
		if (ret) {
			fprintf(stderr, "usb_bench: %s\n", libusb_error_name(ret));
			return 1;
		}
		total += got;
		t = now() - start;
	} while (t * 1000 < ms);
	printf("%.0f\n", total / t);
	libusb_release_interface(h, 0);
	libusb_close(h);
	libusb_exit(NULL);
	return 0;
}
