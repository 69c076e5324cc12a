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

#include "lab.h"

/*
 * The body of one watcher thread: on CPU @cpu, at SCHED_FIFO priority 50,
 * until *@on is 0, call @note(now, gap_ms) after every 1 ms sleep, gap_ms
 * being how much longer than 1 ms it took. Returns nothing.
 */
static inline void lab_stall_watch(long cpu, volatile int *on,
				   void (*note)(double now, double gap_ms))
{
	struct sched_param sp = { .sched_priority = 50 };
	struct timespec ms1 = { 0, 1000000 };
	double last, now;
	cpu_set_t cpus;

	CPU_ZERO(&cpus);
	CPU_SET(cpu, &cpus);
	sched_setaffinity(0, sizeof(cpus), &cpus);
	sched_setscheduler(0, SCHED_FIFO, &sp);
	for (last = lab_now(); *on; last = now) {
		nanosleep(&ms1, NULL);
		now = lab_now();
		note(now, (now - last) * 1e3 - 1);
	}
}

#endif /* LAB_STALL_H */
