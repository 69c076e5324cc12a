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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../guest/wiresim.h"

#define REPS 31
#define SIM SIM_DEBUGFS "i2c-wire-sim-bench/"
#define PORT "/sys/kernel/debug/i2c-wire-sim-recport/i2c-wire-sim-recport/recover"

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

static int run_once(int k, long long *ns, long long *pulses, long long *stops)
{
	char bit[4], line[80];
	int result = -1;
	FILE *f;

	snprintf(bit, sizeof(bit), "%d", k);
	put_str(SIM "reset", "1");
	put_str(SIM "monitor/reset", "1");
	if (put_str(SIM "fault_stuck_sda", bit) || put_str(PORT, "1"))
		return -1;
	f = fopen(PORT, "r");
	if (!f || !fgets(line, sizeof(line), f) ||
	    sscanf(line, "result %d ns %lld", &result, ns) != 2)
		result = -1;
	if (f)
		fclose(f);
	*pulses = get_num(SIM "monitor/pulses");
	*stops = get_num(SIM "monitor/stops");
	return result;
}

int main(void)
{
	char id[32] = "", cmd[64];
	FILE *p;
	int k, i;

	if (system("modprobe i2c-wire-sim") || system("modprobe i2c-wire-sim-recport"))
		return 1;
	p = popen("lab-overlay apply /lab/overlays/i2c-wire-sim-bench.dtbo", "r");
	if (!p || !fgets(id, sizeof(id), p))
		return 1;
	pclose(p);
	id[strcspn(id, "\n")] = 0;
	usleep(200000);

	printf("# i2c recovery: %d runs per stuck bit, time inside i2c_recover_bus()\n", REPS);
	for (k = 0; k <= 8; k++) {
		long long ns[REPS], pulses = 0, stops = 0;
		int fails = 0;

		for (i = 0; i < REPS; i++)
			if (run_once(k, &ns[i], &pulses, &stops))
				fails++;
		qsort(ns, REPS, sizeof(ns[0]), cmp_ll);
		printf("k %d pulses %lld stops %lld median_ns %lld max_ns %lld failures %d\n",
		       k, pulses, stops, ns[REPS / 2], ns[REPS - 1], fails);
	}
	put_str(SIM "reset", "1");
	snprintf(cmd, sizeof(cmd), "lab-overlay remove %s", id);
	return system(cmd) ? 1 : 0;
}
