/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lab-stall.h - watching for vCPU stalls. Under QEMU TCG the host may not
 * run a virtual CPU for tens of ms; a test whose property depends on timing
 * (a claim line seen in time, an ACK back before a PTO) tells such a stall
 * from a failure of the kernel by watching for it while it runs: one
 * SCHED_FIFO thread per CPU sleeps 1 ms at a time and reports every gap in
 * the monotonic clock beyond that.
 *
 * CPU affinity needs _GNU_SOURCE defined before the first system header.
 */
#ifndef LAB_STALL_H
#define LAB_STALL_H

#ifndef _GNU_SOURCE
#error "lab-stall.h needs _GNU_SOURCE defined before the first #include"
#endif

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include "lab.h"

#define LAB_STALL_CPUS	8

struct lab_stall;

struct lab_stall_cpu {
	struct lab_stall *set;
	long cpu;
	pthread_t thread;
};

/*
 * The watchers of one test, one per CPU of the guest (at most
 * LAB_STALL_CPUS), from lab_stall_start() to lab_stall_stop(). Every gap
 * goes to @note when there is one; the longest since the start or the
 * last lab_stall_take() is kept under @lock.
 */
struct lab_stall {
	void (*note)(double now, double gap_ms);
	volatile int on;
	int started;
	double longest_ms;
	pthread_mutex_t lock;
	struct lab_stall_cpu cpus[LAB_STALL_CPUS];
};

/*
 * One watcher: on its CPU, at SCHED_FIFO priority 50, until the set is
 * stopped, sleep 1 ms and take the gap as how much longer than that it
 * took.
 */
static inline void *lab_stall_thread(void *arg)
{
	struct lab_stall_cpu *c = arg;
	struct lab_stall *s = c->set;
	struct sched_param sp = { .sched_priority = 50 };
	struct timespec ms1 = { 0, 1000000 };
	double last, now, gap;
	cpu_set_t cpus;

	CPU_ZERO(&cpus);
	CPU_SET(c->cpu, &cpus);
	sched_setaffinity(0, sizeof(cpus), &cpus);
	sched_setscheduler(0, SCHED_FIFO, &sp);
	for (last = lab_now(); s->on; last = now) {
		nanosleep(&ms1, NULL);
		now = lab_now();
		gap = (now - last) * 1e3 - 1;
		pthread_mutex_lock(&s->lock);
		if (gap > s->longest_ms)
			s->longest_ms = gap;
		pthread_mutex_unlock(&s->lock);
		if (s->note)
			s->note(now, gap);
	}
	return NULL;
}

/* Start a watcher on every CPU; @note may be NULL. */
static inline void lab_stall_start(struct lab_stall *s,
				   void (*note)(double now, double gap_ms))
{
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct lab_stall_cpu *c;

	s->note = note;
	s->on = 1;
	s->longest_ms = 0;
	pthread_mutex_init(&s->lock, NULL);
	for (s->started = 0; s->started < ncpus && s->started < LAB_STALL_CPUS; s->started++) {
		c = &s->cpus[s->started];
		c->set = s;
		c->cpu = s->started;
		if (pthread_create(&c->thread, NULL, lab_stall_thread, c))
			break;
	}
}

/* The longest gap since the start or the last call, and start again. */
static inline double lab_stall_take(struct lab_stall *s)
{
	double ms;

	pthread_mutex_lock(&s->lock);
	ms = s->longest_ms;
	s->longest_ms = 0;
	pthread_mutex_unlock(&s->lock);
	return ms;
}

/* Stop and join the watchers lab_stall_start() started. */
static inline void lab_stall_stop(struct lab_stall *s)
{
	s->on = 0;
	while (s->started)
		pthread_join(s->cpus[--s->started].thread, NULL);
	pthread_mutex_destroy(&s->lock);
}

#endif /* LAB_STALL_H */
