// SPDX-License-Identifier: GPL-2.0
/*
 * arb-bench - what arbitration costs, on the non-debug kernel:
 *  - the uncontended claim and release, as the time one transfer takes
 *    through the arbitrator minus the same transfer on the parent bus,
 *    against its floor of twice slew-delay-us (claim, then release);
 *  - transfers per second and each master's share (Jain's fairness index)
 *    with two and three masters saturating the bus for a fixed time.
 * Each measurement runs REPS times; the medians are printed (collisions
 * are summed over the runs), as "key value" lines between the lab's bench
 * markers.
 */
#include "../guest/arb-lib.h"

#define SOLO_TRANSFERS	2000
#define SATURATE_S	10.0
#define SLEW_US		10
#define REPS		3

struct runner {
	int bus, master, masters;
	volatile int *stop;
	long done, failed;
};

static void *run_until_stop(void *arg)
{
	struct runner *r = arg;
	struct hammer h = { .bus = r->bus, .master = r->master, .masters = r->masters };
	int fd = hammer_open(&h);
	long i;

	if (fd < 0)
		return NULL;
	for (i = 0; !*r->stop; i++)
		hammer_step(&h, fd, i);
	r->done = h.done;
	r->failed = h.failed;
	close(fd);
	return NULL;
}

static double solo_us(int bus)
{
	struct hammer h;
	int b[1] = { bus };
	struct hammer sum;

	hammer_all(&h, 1, b, SOLO_TRANSFERS, &sum);
	return sum.failed ? -1 : sum.seconds * 1e6 / SOLO_TRANSFERS;
}

static double median(double *v, int n)
{
	int i, j;
	double x;

	for (i = 1; i < n; i++)	/* insertion sort: n is REPS */
		for (j = i; j > 0 && v[j - 1] > v[j]; j--) {
			x = v[j];
			v[j] = v[j - 1];
			v[j - 1] = x;
		}
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct saturation {
	double done[ARB_MAX], per_s, jain;
	long long collisions;
};

/* @masters threads hammer their arbitrated buses for SATURATE_S. */
static int saturate_once(int masters, struct saturation *out)
{
	struct runner r[ARB_MAX];
	pthread_t th[ARB_MAX];
	volatile int stop = 0;
	struct arb_topo t;
	int bus[ARB_MAX], m;
	double sum = 0, sq = 0, t0;

	if (!topo_overlay_up(&t, masters) || !topo_children(&t, bus)) {
		topo_down(&t);
		return -1;
	}
	t0 = lab_now();
	for (m = 0; m < masters; m++) {
		r[m] = (struct runner){ .bus = bus[m], .master = m,
					.masters = masters, .stop = &stop };
		pthread_create(&th[m], NULL, run_until_stop, &r[m]);
	}
	usleep(SATURATE_S * 1e6);
	stop = 1;
	for (m = 0; m < masters; m++)
		pthread_join(th[m], NULL);
	for (m = 0; m < masters; m++) {
		out->done[m] = r[m].done;
		sum += r[m].done;
		sq += (double)r[m].done * r[m].done;
	}
	out->per_s = sum / (lab_now() - t0);
	out->jain = sq ? sum * sum / (masters * sq) : 0;
	out->collisions = wsim_read_num(t.sim_dir, "monitor/collisions");
	topo_down(&t);
	return 0;
}

static void saturate(int masters)
{
	struct saturation runs[REPS];
	double v[REPS];
	long long collisions = 0;
	int i, m;

	for (i = 0; i < REPS; i++) {
		if (saturate_once(masters, &runs[i])) {
			printf("masters%d_error setup\n", masters);
			return;
		}
		collisions += runs[i].collisions;
	}
	for (m = 0; m < masters; m++) {
		for (i = 0; i < REPS; i++)
			v[i] = runs[i].done[m];
		printf("masters%d_share_%c %.0f\n", masters, 'a' + m, median(v, REPS));
	}
	for (i = 0; i < REPS; i++)
		v[i] = runs[i].per_s;
	printf("masters%d_transfers_per_s %.0f\n", masters, median(v, REPS));
	for (i = 0; i < REPS; i++)
		v[i] = runs[i].jain;
	printf("masters%d_jain %.3f\n", masters, median(v, REPS));
	printf("masters%d_collisions %lld\n", masters, collisions);
}

/* Median transfer time on the parent and through the arbitrator. */
static void uncontended(void)
{
	double raw[REPS], arb[REPS], diff[REPS];
	int child[ARB_MAX], parent[ARB_MAX], i;
	struct arb_topo t;

	if (topo_overlay_up(&t, 2) && topo_children(&t, child) && topo_parents(&t, parent)) {
		for (i = 0; i < REPS; i++) {
			raw[i] = solo_us(parent[0]);
			arb[i] = solo_us(child[0]);
			diff[i] = arb[i] - raw[i];
		}
		printf("transfer_parent_us %.1f\n", median(raw, REPS));
		printf("transfer_arbitrated_us %.1f\n", median(arb, REPS));
		printf("claim_release_overhead_us %.1f\n", median(diff, REPS));
		printf("claim_release_floor_us %d\n", 2 * SLEW_US);
	}
	topo_down(&t);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	arb_stall_watch = false;	/* no detector threads in the timings */
	if (lab_sh(NULL, 0, "modprobe i2c-wire-sim"))
		return 1;
	printf("runs %d\n", REPS);
	uncontended();
	saturate(2);
	if (!ktap_upstream())
		saturate(3);
	return 0;
}
