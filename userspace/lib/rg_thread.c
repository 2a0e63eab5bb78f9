// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The mw57 authors. */
/* librawgadget: endpoint worker threads that can be interrupted. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include <mw57/rawgadget.h>

static void rg_sigusr1(int sig)
{
	(void)sig;
}

void rg_thread_setup(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = rg_sigusr1;	/* no SA_RESTART: ioctls get EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
}

int rg_thread_start(struct rg_thread *t, void *(*fn)(void *), void *arg)
{
	pthread_t tid;
	int ret;

	t->stop = 0;
	ret = pthread_create(&tid, NULL, fn, arg);
	if (ret)
		return -ret;
	t->tid = tid;
	t->running = 1;
	return 0;
}

void rg_thread_stop(struct rg_thread *t)
{
	struct timespec ts;

	if (!t->running)
		return;
	t->stop = 1;
	/* Keep signalling: the signal may land before the ioctl starts. */
	for (;;) {
		pthread_kill((pthread_t)t->tid, SIGUSR1);
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 20 * 1000 * 1000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		if (pthread_timedjoin_np((pthread_t)t->tid, NULL, &ts) != ETIMEDOUT)
			break;
	}
	t->running = 0;
}
