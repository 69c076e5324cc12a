// SPDX-License-Identifier: GPL-2.0
/*
 * recovery-bench.c - time from a stuck bus to a free one, per stuck bit
 *
 * The simulator cuts its slave at bit k (it needs 9 - k clocks); the
 * recovery-only adapter of the fixture runs the kernel's generic SCL
 * recovery through the same line accessors on every kernel, timed in the
 * kernel around i2c_recover_bus(). Prints one line per k:
 *   k <k> pulses <n> stops <n> median_ns <t> max_ns <t> failures <n>
 */
#include "../guest/recport.h"

#define REPS 31

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

int main(void)
{
	int id, k, i;

	if (recport_up(&id))
		return 1;
	printf("# i2c recovery: %d runs per stuck bit, time inside i2c_recover_bus()\n", REPS);
	for (k = 0; k <= 8; k++) {
		long long ns[REPS], pulses = 0, stops = 0;
		char bit[4];
		int fails = 0;

		snprintf(bit, sizeof(bit), "%d", k);
		for (i = 0; i < REPS; i++) {
			struct recport_run r = recport_recover("fault_stuck_sda", bit);

			fails += r.result != 0;
			ns[i] = r.ns;
			pulses = r.pulses;
			stops = r.stops;
		}
		qsort(ns, REPS, sizeof(ns[0]), cmp_ll);
		printf("k %d pulses %lld stops %lld median_ns %lld max_ns %lld failures %d\n",
		       k, pulses, stops, ns[REPS / 2], ns[REPS - 1], fails);
	}
	recport_down(id);
	return 0;
}
