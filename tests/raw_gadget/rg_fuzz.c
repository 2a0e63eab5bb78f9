// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The mw57 authors. */
/*
 * rg_fuzz: a bounded random ioctl fuzzer for /dev/raw-gadget.  THREADS
 * workers share a few fds and issue random ioctls (the 16 upstream ones,
 * ours, random numbers) with random arguments: handles, lengths, flags,
 * descriptors, UDC names, bad pointers, mapped requests at random offsets
 * of a transfer area that half of the fresh fds get (mmap).  Fds are
 * closed and reopened under the other threads' feet; a signaller
 * interrupts blocked calls every
 * 20 ms.  The kernel must survive; the summary is TAP.
 *
 *   rg_fuzz [SECONDS [THREADS [SEED]]]     default 30 4 time
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <mw57/rawgadget.h>
#include "../lib/ktap.h"

#define SLOTS		4
#define MAX_THREADS	16
#define BUF_SIZE	65536

static volatile int fds[SLOTS];
/* each slot's transfer area, unmapped when the slot gets a new fd */
static void *maps[SLOTS];
static size_t map_len[SLOTS];
static pid_t tids[MAX_THREADS];
static volatile int done;
static time_t deadline;
/* index: errno, 0 = success, 133 = any errno from 133 on */
static unsigned long calls, results[134], fetched;
static pthread_mutex_t stat_lock = PTHREAD_MUTEX_INITIALIZER;

static const unsigned long cmds[] = {
	USB_RAW_IOCTL_INIT, USB_RAW_IOCTL_RUN, USB_RAW_IOCTL_EVENT_FETCH,
	USB_RAW_IOCTL_EP0_WRITE, USB_RAW_IOCTL_EP0_READ,
	USB_RAW_IOCTL_EP_ENABLE, USB_RAW_IOCTL_EP_DISABLE,
	USB_RAW_IOCTL_EP_WRITE, USB_RAW_IOCTL_EP_READ,
	USB_RAW_IOCTL_CONFIGURE, USB_RAW_IOCTL_VBUS_DRAW,
	USB_RAW_IOCTL_EPS_INFO, USB_RAW_IOCTL_EP0_STALL,
	USB_RAW_IOCTL_EP_SET_HALT, USB_RAW_IOCTL_EP_CLEAR_HALT,
	USB_RAW_IOCTL_EP_SET_WEDGE, USB_RAW_MW57_IOCTL_INFO,
	USB_RAW_MW57_IOCTL_SUBMIT, USB_RAW_MW57_IOCTL_REAP,
	USB_RAW_MW57_IOCTL_CANCEL,
};
#define N_CMDS (sizeof(cmds) / sizeof(cmds[0]))

/*
 * Where SUBMIT points reads: REAP writes their data there, from whichever
 * thread reaps, so it is shared and never freed.
 */
static unsigned char landing[BUF_SIZE];

static unsigned int rnd(unsigned int *seed, unsigned int n)
{
	return rand_r(seed) % n;
}

static uint32_t rnd_length(unsigned int *seed)
{
	switch (rnd(seed, 10)) {
	case 0:
		return 0;
	case 1:
		return (4u << 20) + rnd(seed, 3) - 1;	/* around the cap */
	case 2:
		return 0xffffffffu - rnd(seed, 4);
	case 3:
		return BUF_SIZE - 8;
	default:
		return rnd(seed, 4096);
	}
}

/* Fill buf with a random argument for cmd; returns the ioctl argument. */
static unsigned long fuzz_arg(unsigned int *seed, unsigned long cmd,
			      unsigned char *buf)
{
	static const char *const udcs[] = {
		"dummy_udc.0", "dummy_udc.1", "dummy_udc.7", "",
	};
	struct usb_raw_init *init = (void *)buf;
	struct usb_endpoint_descriptor *d = (void *)buf;
	struct usb_raw_ep_io *io = (void *)buf;
	struct usb_raw_mw57_urb *urb = (void *)buf;
	struct usb_raw_mw57_cancel *cancel = (void *)buf;
	unsigned int i;

	if (rnd(seed, 50) == 0)
		return rnd(seed, 2) ? 0 : 0x1000;	/* bad pointers */
	switch (cmd) {
	case USB_RAW_IOCTL_INIT:
		memset(init, 0, sizeof(*init));
		strcpy((char *)init->driver_name, rnd(seed, 8) ? "dummy_udc" : "x");
		strcpy((char *)init->device_name, udcs[rnd(seed, 4)]);
		init->speed = rnd(seed, 8);
		return (unsigned long)buf;
	case USB_RAW_IOCTL_EP_ENABLE:
		d->bLength = USB_DT_ENDPOINT_SIZE;
		d->bDescriptorType = USB_DT_ENDPOINT;
		d->bEndpointAddress = (rnd(seed, 2) ? USB_DIR_IN : 0) | rnd(seed, 16);
		d->bmAttributes = rnd(seed, 4);
		d->wMaxPacketSize = rnd(seed, 8) ? 8 << rnd(seed, 8) : rand_r(seed);
		d->bInterval = rnd(seed, 16);
		return (unsigned long)buf;
	case USB_RAW_IOCTL_EP0_WRITE:
	case USB_RAW_IOCTL_EP0_READ:
	case USB_RAW_IOCTL_EP_WRITE:
	case USB_RAW_IOCTL_EP_READ:
	case USB_RAW_IOCTL_EVENT_FETCH:
		io->ep = rnd(seed, 8) ? rnd(seed, 32) : (unsigned int)rand_r(seed);
		io->flags = rnd(seed, 8) ? rnd(seed, 2) : (unsigned int)rand_r(seed);
		io->length = rnd_length(seed);
		/* reads never get more room than the buffer has */
		if (io->length > BUF_SIZE - 8 && io->length <= (4u << 20) &&
		    cmd != USB_RAW_IOCTL_EP0_WRITE && cmd != USB_RAW_IOCTL_EP_WRITE)
			io->length = BUF_SIZE - 8;
		for (i = 0; i < 16; i++)
			io->data[i] = rand_r(seed);
		return (unsigned long)buf;
	case USB_RAW_MW57_IOCTL_SUBMIT:
		memset(urb, 0, sizeof(*urb));
		urb->tag = rnd(seed, 8);
		urb->length = rnd_length(seed);
		/* the landing area, or a pointer nothing may be written to */
		if (rnd(seed, 8) && urb->length <= BUF_SIZE)
			urb->buffer = (uintptr_t)landing;
		else
			urb->buffer = rnd(seed, 2) ? 0x1000 : (uintptr_t)fuzz_arg;
		urb->ep = rnd(seed, 8) ? rnd(seed, 32) : (unsigned int)rand_r(seed);
		urb->flags = rnd(seed, 8) ? rnd(seed, 2) : (unsigned int)rand_r(seed);
		/* in the transfer area: an offset, in it or anywhere */
		if (!rnd(seed, 4)) {
			urb->flags |= USB_RAW_MW57_URB_MAPPED;
			urb->buffer = rnd(seed, 2) ? rnd(seed, 65 * 4096) :
				      (uint64_t)rand_r(seed) << rnd(seed, 40);
		}
		urb->stream_id = rnd(seed, 4) ? 0 : rnd(seed, 20);
		urb->reserved = rnd(seed, 30) == 0;
		return (unsigned long)buf;
	case USB_RAW_MW57_IOCTL_CANCEL:
		memset(cancel, 0, sizeof(*cancel));
		cancel->tag = rnd(seed, 8);
		cancel->ep = rnd(seed, 32);
		cancel->reserved0 = rnd(seed, 30) == 0;
		return (unsigned long)buf;
	case USB_RAW_IOCTL_EPS_INFO:
	case USB_RAW_MW57_IOCTL_INFO:
	case USB_RAW_MW57_IOCTL_REAP:
		return (unsigned long)buf;
	default:	/* by-value arguments: handles, mA, "must be 0" */
		return rnd(seed, 4) ? rnd(seed, 32) : (unsigned int)rand_r(seed);
	}
}

static void *worker(void *arg)
{
	unsigned int seed = (unsigned long)arg;
	unsigned char *buf = malloc(BUF_SIZE);

	tids[seed % MAX_THREADS] = gettid();
	unsigned long cmd, a;
	int slot, fd, ret;
	size_t len, old_len;
	void *m, *old;

	while (buf && !done && time(NULL) < deadline) {
		slot = rnd(&seed, SLOTS);
		if (rnd(&seed, 50) == 0) {
			/* a fresh instance, usually started on a real UDC */
			fd = rg_open();
			if (fd >= 0 && rnd(&seed, 4)) {
				rg_init(fd, "dummy_udc", rnd(&seed, 2) ?
					"dummy_udc.0" : "dummy_udc.1", USB_SPEED_HIGH);
				rg_run(fd);
			}
			m = NULL;
			len = (1 + rnd(&seed, 64)) * 4096;
			if (fd >= 0 && rnd(&seed, 2)) {
				m = mmap(NULL, len, PROT_READ | PROT_WRITE,
					 MAP_SHARED, fd, 0);
				if (m == MAP_FAILED)
					m = NULL;
			}
			pthread_mutex_lock(&stat_lock);
			a = fds[slot];
			fds[slot] = fd;
			old = maps[slot];
			old_len = map_len[slot];
			maps[slot] = m;
			map_len[slot] = len;
			pthread_mutex_unlock(&stat_lock);
			if (old)
				munmap(old, old_len);
			if ((int)a >= 0)
				close(a);
			continue;
		}
		cmd = rnd(&seed, 20) ? cmds[rnd(&seed, N_CMDS)] :
			_IOC(rnd(&seed, 4), rnd(&seed, 2) ? 'U' : 0xb9,
			     rnd(&seed, 256), rnd(&seed, 1024));
		a = fuzz_arg(&seed, cmd, buf);
		ret = ioctl(fds[slot], cmd, a);
		pthread_mutex_lock(&stat_lock);
		calls++;
		results[ret >= 0 ? 0 : errno < 133 ? errno : 133]++;
		if (ret >= 0 && cmd == USB_RAW_IOCTL_EVENT_FETCH)
			fetched++;
		pthread_mutex_unlock(&stat_lock);
	}
	free(buf);
	return NULL;
}

/* The kernel stack of a worker that does not return, for the log. */
static void show_stack(pid_t tid)
{
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stack", tid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		ktap_msg("  tid %d: %s", tid, strtok(line, "\n"));
	if (f)
		fclose(f);
}

static void nop(int sig)
{
	(void)sig;
}

int main(int argc, char **argv)
{
	int seconds = argc > 1 ? atoi(argv[1]) : 30;
	int threads = argc > 2 ? atoi(argv[2]) : 4;
	unsigned int seed = argc > 3 ? strtoul(argv[3], NULL, 0) :
			    (unsigned long)time(NULL);
	pthread_t t[MAX_THREADS];
	struct sigaction sa = { .sa_handler = nop };
	int joined[MAX_THREADS] = { 0 };
	int i, alive, e;

	if (threads < 1 || threads > MAX_THREADS || seconds < 1)
		ktap_bail("usage: rg_fuzz [SECONDS [THREADS(1-16) [SEED]]]");
	sigaction(SIGUSR1, &sa, NULL);	/* no SA_RESTART */
	ktap_header(3);
	ktap_msg("seed %u, %d threads, %d s", seed, threads, seconds);
	for (i = 0; i < SLOTS; i++)
		fds[i] = rg_open();
	deadline = time(NULL) + seconds;
	for (i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, worker, (void *)(unsigned long)(seed + i));
	/* interrupt blocked calls until every worker has returned */
	do {
		usleep(20000);
		alive = 0;
		for (i = 0; i < threads; i++) {
			if (joined[i])
				continue;
			if (pthread_tryjoin_np(t[i], NULL) == 0) {
				joined[i] = 1;
				continue;
			}
			pthread_kill(t[i], SIGUSR1);
			alive++;
		}
	} while (alive && time(NULL) < deadline + 30);
	for (i = 0; i < threads; i++)
		if (!joined[i])
			show_stack(tids[(seed + i) % MAX_THREADS]);
	ktap_result(!alive, "fuzzer: %lu ioctls, every worker returned", calls);
	for (e = 0; e < 134; e++)
		if (results[e])
			ktap_msg("%-10s %lu", !e ? "success" : e < 133 ?
				 strerrorname_np(e) : "errno>=133", results[e]);
	for (i = 0, e = 0; i < SLOTS; i++) {
		if (maps[i])
			munmap(maps[i], map_len[i]);
		if (fds[i] >= 0)
			e |= close(fds[i]);
	}
	ktap_result(!e, "fds closed");
	/* INIT succeeds on any fresh fd: only a fetch shows running instances */
	ktap_result(fetched > 0,
		    "instances ran on a UDC: EVENT_FETCH succeeded %lu times",
		    fetched);
	return ktap_finish();
}
