/* SPDX-License-Identifier: GPL-2.0 */
/* Copyright (C) 2026 The mw57 authors. */
/*
 * Helpers of the raw gadget test programs in tests/raw_gadget: bounded
 * waits, alarms that end blocked ioctls, whether a thread sleeps, the
 * host side's usbfs node, a bounded wait for a kernel log line, writing a
 * sysfs file, waiting for an instance to bind (CONNECT).
 */
#ifndef MW57_RG_TEST_H
#define MW57_RG_TEST_H

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <mw57/rawgadget.h>

static inline void rg_test_on_alarm(int sig)
{
	(void)sig;
}

/* SIGALRM without SA_RESTART: an alarm() ends a blocked ioctl (EINTR). */
static inline void rg_test_alarm_setup(void)
{
	sigaction(SIGALRM, &(struct sigaction){ .sa_handler = rg_test_on_alarm },
		  NULL);
}

/*
 * What every test program does first: line-buffered stdout (its TAP),
 * SIGUSR1 for rg_thread_stop() and SIGALRM for alarms, both ending
 * blocked ioctls with EINTR.
 */
static inline void rg_test_setup(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	rg_thread_setup();
	rg_test_alarm_setup();
}

/* Poll @flag every 0.1 s for up to @seconds; its final value. */
static inline int rg_test_wait_until(volatile int *flag, int seconds)
{
	int i;

	for (i = 0; i < seconds * 10 && !*flag; i++)
		usleep(100000);
	return *flag;
}

/* Whether thread @tid of this process sleeps (state S in its stat). */
static inline int rg_test_thread_sleeps(pid_t tid)
{
	char path[64], buf[256], *p;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n > 0 ? n : 0] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] == 'S';
}

/* /dev/bus/usb/BBB/DDD of the host-side @vid:@pid device; 1 if found. */
static inline int rg_test_host_node(unsigned int vid, unsigned int pid,
				    char *path, size_t len)
{
	char p[300];
	struct dirent *de;
	unsigned int v, pr, bus, devn;
	DIR *dir = opendir("/sys/bus/usb/devices");
	FILE *f;
	int found = 0;

	while (dir && !found && (de = readdir(dir))) {
		snprintf(p, sizeof(p), "/sys/bus/usb/devices/%s/uevent",
			 de->d_name);
		f = fopen(p, "r");
		if (!f)
			continue;
		v = pr = bus = devn = 0;
		while (fgets(p, sizeof(p), f)) {
			sscanf(p, "PRODUCT=%x/%x", &v, &pr);
			sscanf(p, "BUSNUM=%u", &bus);
			sscanf(p, "DEVNUM=%u", &devn);
		}
		fclose(f);
		if (v == vid && pr == pid && bus) {
			snprintf(path, len, "/dev/bus/usb/%03u/%03u", bus, devn);
			found = 1;
		}
	}
	if (dir)
		closedir(dir);
	return found;
}

/*
 * Wait up to @seconds for a kernel log record containing @text, read from
 * @kfd (/dev/kmsg opened O_NONBLOCK and positioned at its end before).
 */
static inline int rg_test_kmsg_wait(int kfd, const char *text, int seconds)
{
	struct pollfd p = { .fd = kfd, .events = POLLIN };
	struct timespec end, now;
	char rec[1024];
	ssize_t n;
	long left;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += seconds;
	for (;;) {
		n = read(kfd, rec, sizeof(rec) - 1);
		if (n > 0) {
			rec[n] = '\0';
			if (strstr(rec, text))
				return 1;
			continue;
		}
		if (n < 0 && errno == EPIPE)	/* records overwritten */
			continue;
		if (n < 0 && errno != EAGAIN)
			return 0;
		clock_gettime(CLOCK_MONOTONIC, &now);
		left = (end.tv_sec - now.tv_sec) * 1000 +
		       (end.tv_nsec - now.tv_nsec) / 1000000;
		if (left <= 0 || poll(&p, 1, left) < 0)
			return 0;
	}
}

/* Write @text to @path (a sysfs file); 1 if it took it. */
static inline int rg_test_write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	int ok = f && fputs(text, f) >= 0;

	return f && !fclose(f) && ok;
}

/*
 * Fetch events until CONNECT (the instance bound to a UDC); 0, or the
 * fetch's -errno (EINTR when nothing comes for 10 s: SIGALRM must be set
 * up with rg_test_alarm_setup()).
 */
static inline int rg_test_wait_connect(int fd)
{
	struct {
		struct usb_raw_event ev;
		struct usb_ctrlrequest ctrl;
	} e;
	int ret;

	do {
		alarm(10);
		e.ev.length = sizeof(e.ctrl);
		ret = rg_event_fetch(fd, &e.ev, sizeof(e.ctrl));
		alarm(0);
	} while (!ret && e.ev.type != USB_RAW_EVENT_CONNECT);
	return ret;
}

#endif /* MW57_RG_TEST_H */
