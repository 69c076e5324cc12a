/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arb-lib.h - shared by the i2c-arb guest tests: set up a multi-master bus
 * on the wire simulator (DT overlay or software nodes), find its buses,
 * hammer the EEPROM from one thread per master, and read the simulator's
 * monitor and the arbitrators' counters.
 *
 * The topology, per master X of A, B, C: an i2c-gpio adapter on the
 * simulator's shared SCL/SDA (the "parent"), an arbitrator whose child bus
 * is the arbitrated one, and a test handle: one more simulator line viewing
 * X's claim wire, which a test can drive low to make X's claim look stuck.
 */
#ifndef ARB_LIB_H
#define ARB_LIB_H

#define _GNU_SOURCE
#include <dirent.h>
#include <linux/gpio.h>
#include <pthread.h>
#include <sched.h>
#include <sys/stat.h>

#include "i2c-wire-sim/wire-sim-guest.h"
#include "lab-stall.h"

#define ARB_MAX		3
/*
 * wait-free-us of the overlays: the binding's default, 50 ms (the
 * software-node topology of fixtures/i2c-arb-swnode still sets 1 s and a
 * wait-retry-us of 1 ms; no timing test runs on it).
 */
#define ARB_WAIT_FREE_S	0.05
/*
 * How late a timed-out claim may come back: the last look comes at the
 * deadline; then the release's slew, the system call, and timer slack and
 * scheduling under TCG and KASAN.
 */
#define ARB_WAIT_LATE_S	1.0

struct arb_topo {
	const char *what;		/* "overlay" or "software nodes" */
	int masters;
	char arb_dev[ARB_MAX][64];	/* arbitrator platform devices */
	char bus_dev[ARB_MAX][64];	/* i2c-gpio platform devices */
	char chip_label[64];		/* the simulator's gpio chip */
	char sim_dir[128];		/* its debugfs folder */
	int handle[ARB_MAX];		/* line viewing master X's claim wire */
	int overlay_id;			/* -1 when from software nodes */
};

/* The i2c-N of a link or folder entry below @dir, or -1. */
static inline int bus_below(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int nr = -1;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (sscanf(e->d_name, "i2c-%d", &nr) == 1)
			break;
	closedir(d);
	return e ? nr : -1;
}

/* The child bus of an arbitrator: the mux core links it as channel-0. */
static inline int child_bus(const char *arb_dev)
{
	char path[PATH_MAX], target[PATH_MAX];
	ssize_t n;
	const char *base;

	snprintf(path, sizeof(path), "/sys/bus/platform/devices/%s/channel-0", arb_dev);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return -1;
	target[n] = 0;
	base = strrchr(target, '/');
	return base ? atoi(base + 5) : -1;
}

static inline int parent_bus(const char *bus_dev)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/sys/bus/platform/devices/%s", bus_dev);
	return bus_below(path);
}

/* Wait (deferred probing) until every arbitrator has its child bus. */
static inline bool topo_wait_bound(const struct arb_topo *t, double timeout_s)
{
	double end = lab_now() + timeout_s;
	int m, ok;

	do {
		for (ok = 0, m = 0; m < t->masters; m++)
			ok += child_bus(t->arb_dev[m]) >= 0;
		if (ok == t->masters)
			return true;
		usleep(20000);
	} while (lab_now() < end);
	return false;
}

/*
 * The topology of features/i2c-arb/i2c-arb-{two,three}.dtso: nodes
 * i2c-arb-<n>-{wires,gpio-X,X}; the handles are the last lines.
 */
static inline void topo_overlay(struct arb_topo *t, int masters)
{
	const char *n = masters == 2 ? "two" : "three";
	int m;

	memset(t, 0, sizeof(*t));
	t->what = "overlay";
	t->masters = masters;
	for (m = 0; m < masters; m++) {
		snprintf(t->arb_dev[m], sizeof(t->arb_dev[m]), "i2c-arb-%s-%c", n, 'a' + m);
		snprintf(t->bus_dev[m], sizeof(t->bus_dev[m]), "i2c-arb-%s-gpio-%c", n, 'a' + m);
		/* SCL+SDA per master, then our and the others' claims per master */
		t->handle[m] = 2 * masters + masters * masters + m;
	}
	snprintf(t->chip_label, sizeof(t->chip_label), "i2c-arb-%s-wires", n);
	snprintf(t->sim_dir, sizeof(t->sim_dir), WSIM_DEBUGFS "/i2c-arb-%s-wires", n);
	t->overlay_id = -1;
}

static inline bool topo_overlay_up(struct arb_topo *t, int masters)
{
	topo_overlay(t, masters);
	/* The overlay cycles come here 100 times: no modprobe (an exec) each. */
	if (access("/sys/bus/platform/drivers/i2c-wire-sim", F_OK) &&
	    lab_sh(NULL, 0, "modprobe i2c-wire-sim"))
		return false;
	t->overlay_id = lab_overlay_apply(masters == 2 ? "i2c-arb-two" : "i2c-arb-three");
	return t->overlay_id >= 0 && topo_wait_bound(t, 10);
}

static inline void topo_down(struct arb_topo *t)
{
	lab_overlay_remove(t->overlay_id);
	t->overlay_id = -1;
}

/*
 * The software-node topology of fixtures/i2c-arb-swnode (module parameter
 * masters=): platform devices i2c-wire-sim.40, i2c-gpio.4X and
 * i2c-arb-gpio-challenge.4X, the same line layout as the overlays.
 */
static inline void topo_swnode(struct arb_topo *t, int masters)
{
	int m;

	memset(t, 0, sizeof(*t));
	t->what = "software nodes";
	t->masters = masters;
	for (m = 0; m < masters; m++) {
		snprintf(t->arb_dev[m], sizeof(t->arb_dev[m]), "i2c-arb-gpio-challenge.%d", 41 + m);
		snprintf(t->bus_dev[m], sizeof(t->bus_dev[m]), "i2c-gpio.%d", 41 + m);
		t->handle[m] = 2 * masters + masters * masters + m;
	}
	snprintf(t->chip_label, sizeof(t->chip_label), "i2c-arb-swnode-wires");
	snprintf(t->sim_dir, sizeof(t->sim_dir), WSIM_DEBUGFS "/i2c-wire-sim.40");
	t->overlay_id = -1;
}

/* Drive a simulator line low (stuck claim) until arb_handle_release(). */
static inline int arb_handle_hold(const struct arb_topo *t, int line)
{
	struct gpio_v2_line_request req;
	struct gpiochip_info info;
	char path[64];
	int i, fd;

	for (i = 0; i < 64; i++) {
		snprintf(path, sizeof(path), "/dev/gpiochip%d", i);
		fd = open(path, O_RDWR);
		if (fd < 0)
			continue;
		if (!ioctl(fd, GPIO_GET_CHIPINFO_IOCTL, &info) &&
		    !strcmp(info.label, t->chip_label))
			break;
		close(fd);
	}
	if (i == 64)
		return -ENODEV;

	memset(&req, 0, sizeof(req));
	req.offsets[0] = line;
	req.num_lines = 1;
	strcpy(req.consumer, "i2c-arb-test");
	req.config.flags = GPIO_V2_LINE_FLAG_OUTPUT;
	req.config.num_attrs = 1;
	req.config.attrs[0].attr.id = GPIO_V2_LINE_ATTR_ID_OUTPUT_VALUES;
	req.config.attrs[0].attr.values = 0;
	req.config.attrs[0].mask = 1;
	i = ioctl(fd, GPIO_V2_GET_LINE_IOCTL, &req);
	close(fd);
	return i ? -errno : req.fd;
}

/* Let the line go: back to input first, so it stops driving the wire. */
static inline void arb_handle_release(int fd)
{
	struct gpio_v2_line_config cfg = { .flags = GPIO_V2_LINE_FLAG_INPUT };

	ioctl(fd, GPIO_V2_LINE_SET_CONFIG_IOCTL, &cfg);
	close(fd);
}

/*
 * The stall detector: one SCHED_FIFO thread per CPU that sleeps 1 ms and
 * notes every gap of more than ARB_STALL_MS in the monotonic clock, while
 * hammer_all() runs. Under QEMU TCG the host may not run a vCPU for tens
 * of ms: a holder stalled mid-transfer keeps the bus, a waiter stalled at
 * a release misses it, and a claim may time out at wait-free-us.
 */
#define ARB_STALL_MS		5
#define ARB_STALL_EXPLAINS_MS	10
#define ARB_STALLS_MAX		4096

struct arb_stall {
	double at;	/* end of the gap, lab_now() */
	double ms;
};

static struct arb_stall arb_stalls[ARB_STALLS_MAX];
static int arb_nstalls;
static double arb_stall_max_ms;
static bool arb_stall_watch = true;	/* the benchmark turns it off */
static pthread_mutex_t arb_stall_lock = PTHREAD_MUTEX_INITIALIZER;

/* lab_stall_start()'s note: gaps over ARB_STALL_MS are kept. */
static inline void arb_note_stall(double now, double gap)
{
	if (gap <= ARB_STALL_MS)
		return;
	pthread_mutex_lock(&arb_stall_lock);
	if (gap > arb_stall_max_ms)
		arb_stall_max_ms = gap;
	if (arb_nstalls < ARB_STALLS_MAX)
		arb_stalls[arb_nstalls++] = (struct arb_stall){ now, gap };
	pthread_mutex_unlock(&arb_stall_lock);
}

/* The longest stall that ended in the wait-free window before @t. */
static inline double stall_before(double t)
{
	double worst = 0;
	int i;

	for (i = 0; i < arb_nstalls; i++)
		if (arb_stalls[i].at <= t + 0.001 &&
		    arb_stalls[i].at >= t - ARB_WAIT_FREE_S - 0.01 &&
		    arb_stalls[i].ms > worst)
			worst = arb_stalls[i].ms;
	return worst;
}

/* One master's share of a hammer run. */
struct hammer {
	int bus;		/* i2c-N to hammer */
	int master;		/* 0.. : its own EEPROM region */
	int masters;
	long transfers;		/* to do: writes + read-backs */
	long done;		/* transfers that succeeded */
	long failed;		/* transfers that returned an error */
	long busy;		/* ... of which -EBUSY */
	long corrupted;		/* bytes read back different from written */
	double seconds;
	double busy_at[16];	/* when the first -EBUSYs came back (lab_now()) */
	int first_errno;
	bool wrote;		/* the last write went through */
};

/* Write one byte at @addr, then read it back: two transfers. */
static inline void hammer_step(struct hammer *h, int fd, long i)
{
	int span = WSIM_EE_SIZE / h->masters;
	uint8_t addr = h->master * span + (i / 2) % span;
	uint8_t val = (uint8_t)(i * 7 + h->master * 101), got = 0;
	int ret;

	ret = (i & 1) ? wsim_bus_read(fd, addr, &got, 1) : wsim_bus_write(fd, addr, &val, 1);
	if (!(i & 1))
		h->wrote = !ret;
	if (ret) {
		h->failed++;
		if (ret == -EBUSY && h->busy < 16)
			h->busy_at[h->busy] = lab_now();
		h->busy += ret == -EBUSY;
		if (!h->first_errno)
			h->first_errno = -ret;
		return;
	}
	h->done++;
	/* A read-back is only meaningful after our own write went through. */
	if ((i & 1) && h->wrote && got != (uint8_t)((i - 1) * 7 + h->master * 101))
		h->corrupted++;
}

/*
 * One write and read-back on i2c-@bus as master @master of @masters (its
 * own EEPROM region): 0, or the -errno of the first transfer that failed.
 */
static inline int arb_one_transfer(int bus, int masters, int master)
{
	struct hammer h = { .bus = bus, .masters = masters, .master = master };
	int fd = wsim_bus_open(bus);

	if (fd < 0)
		return fd;
	hammer_step(&h, fd, 0);
	close(fd);
	return h.failed ? -h.first_errno : 0;
}

/*
 * Pin the calling thread to CPU @h->master % 2 (masters on both CPUs) and
 * open @h's bus; the descriptor or -errno.
 */
static inline int hammer_open(const struct hammer *h)
{
	cpu_set_t cpus;

	CPU_ZERO(&cpus);
	CPU_SET(h->master % 2, &cpus);
	sched_setaffinity(0, sizeof(cpus), &cpus);
	return wsim_bus_open(h->bus);
}

static inline void *hammer_thread(void *arg)
{
	struct hammer *h = arg;
	int fd = hammer_open(h);
	double t0;
	long i;

	if (fd < 0) {
		h->first_errno = -fd;
		h->failed = h->transfers;
		return NULL;
	}
	t0 = lab_now();
	for (i = 0; i < h->transfers; i++)
		hammer_step(h, fd, i);
	h->seconds = lab_now() - t0;
	close(fd);
	return NULL;
}

/* Every master at once, each on bus[m]; returns the summed shares in *sum. */
static inline void hammer_all(struct hammer *h, int masters, const int *bus,
			      long transfers, struct hammer *sum)
{
	pthread_t th[ARB_MAX];
	struct lab_stall stall;
	bool watching = arb_stall_watch;
	int m;

	memset(sum, 0, sizeof(*sum));
	arb_nstalls = 0;
	arb_stall_max_ms = 0;
	if (watching)
		lab_stall_start(&stall, arb_note_stall);
	for (m = 0; m < masters; m++) {
		memset(&h[m], 0, sizeof(h[m]));
		h[m].bus = bus[m];
		h[m].master = m;
		h[m].masters = masters;
		h[m].transfers = transfers;
		pthread_create(&th[m], NULL, hammer_thread, &h[m]);
	}
	for (m = 0; m < masters; m++) {
		pthread_join(th[m], NULL);
		sum->done += h[m].done;
		sum->failed += h[m].failed;
		sum->busy += h[m].busy;
		sum->corrupted += h[m].corrupted;
		if (h[m].seconds > sum->seconds)
			sum->seconds = h[m].seconds;
		if (!sum->first_errno)
			sum->first_errno = h[m].first_errno;
	}
	if (watching)
		lab_stall_stop(&stall);
}

static inline void hammer_diag(const struct hammer *h, int masters)
{
	int m;

	for (m = 0; m < masters; m++)
		ktap_diag("master %c on i2c-%d: %ld ok, %ld failed (%ld EBUSY, first errno %d), %ld corrupted, %.2f s",
			  'A' + m, h[m].bus, h[m].done, h[m].failed, h[m].busy,
			  h[m].first_errno, h[m].corrupted, h[m].seconds);
}

/* Arbitrated buses of the topology; false if one is missing. */
static inline bool topo_children(const struct arb_topo *t, int *bus)
{
	int m;

	for (m = 0; m < t->masters; m++)
		if ((bus[m] = child_bus(t->arb_dev[m])) < 0)
			return false;
	return true;
}

static inline bool topo_parents(const struct arb_topo *t, int *bus)
{
	int m;

	for (m = 0; m < t->masters; m++)
		if ((bus[m] = parent_bus(t->bus_dev[m])) < 0)
			return false;
	return true;
}

/* Our arbitrator on child bus @bus claims by the seed's rounds (@on) or ours; 0 or -errno. */
static inline int arb_seed_rounds(int bus, bool on)
{
	char path[96];

	snprintf(path, sizeof(path), "/sys/kernel/debug/i2c/i2c-%d/seed_rounds", bus);
	return lab_write(path, on ? "1" : "0");
}

/* The counters of an arbitrator's child bus, "key value" lines; bytes or -errno. */
static inline int arb_stats(int child, char *buf, size_t len)
{
	char path[96];

	snprintf(path, sizeof(path), "/sys/kernel/debug/i2c/i2c-%d/arbitration", child);
	return lab_read(path, buf, len);
}

/*
 * A percentile (us) of the claim waits in an arbitrator's "arbitration"
 * file, from its power-of-two histogram: the waits were below the value.
 */
static inline long long arb_wait_pct(const char *stats, double pct)
{
	const char *p = strstr(stats, "wait_log2_us ");
	long long b[32], total = 0, run = 0;
	int n = 0, i;

	if (!p)
		return -1;
	p += strlen("wait_log2_us ");
	while (n < 32 && sscanf(p, "%lld", &b[n]) == 1) {
		total += b[n++];
		p = strchr(p, ' ');
		if (!p)
			break;
		p++;
	}
	for (i = 0; i < n; i++) {
		run += b[i];
		if (run * 100.0 >= pct * total)
			return 1LL << i;	/* waits below this */
	}
	return -1;
}

/*
 * The sum of one counter over the arbitrators of @bus, or -1 when there
 * are none (the upstream driver has no counters).
 */
static inline long long arb_counter_sum(const int *bus, int masters, const char *key)
{
	long long sum = 0, v;
	char s[1024];
	int m;

	for (m = 0; m < masters; m++) {
		if (arb_stats(bus[m], s, sizeof(s)) < 0)
			return -1;
		v = lab_key_num(s, key);
		if (v < 0)
			return -1;
		sum += v;
	}
	return sum;
}

/*
 * Whether the failures of a hammer run are ones the driver allows at the
 * binding's defaults. Ours: none, or only -EBUSY, each explained by a stall:
 * a vCPU stalled for ARB_STALL_EXPLAINS_MS or more in the wait-free window
 * before it (the detector), or the claiming arbitrator was not running for
 * more than wait-retry-us between two looks at the claim lines (@stalled:
 * the growth of "timeouts_stalled" over the run). Upstream 6.12 promises
 * exclusion, not fairness: a master that loses the freed bus for
 * wait-free-us fails with -EBUSY, so there only -EBUSY is allowed, and
 * counted. Anything else fails.
 */
static inline bool hammer_failures_explained(const struct hammer *h, int masters,
					     const struct hammer *sum, long long stalled)
{
	long unexplained = 0;
	int m, i;

	if (!sum->failed)
		return true;
	if (ktap_upstream()) {
		ktap_diag("upstream: %ld transfers failed, %ld with EBUSY (no fairness in 6.12)",
			  sum->failed, sum->busy);
		return sum->failed == sum->busy;
	}
	for (m = 0; m < masters; m++) {
		unexplained += h[m].busy > 16 ? h[m].busy - 16 : 0;
		for (i = 0; i < h[m].busy && i < 16; i++)
			if (!arb_stall_watch ||
			    stall_before(h[m].busy_at[i]) < ARB_STALL_EXPLAINS_MS)
				unexplained++;
	}
	ktap_diag("%ld transfers failed, %ld with EBUSY; without a vCPU stall of %d ms before them: %ld; claims timed out while not running: %lld; vCPU stalls over %d ms: %d, longest %.1f ms",
		  sum->failed, sum->busy, ARB_STALL_EXPLAINS_MS, unexplained, stalled,
		  ARB_STALL_MS, arb_nstalls, arb_stall_max_ms);
	return sum->failed == sum->busy && unexplained <= stalled;
}

/*
 * Count kmemleak's suspects whose trace names one of @needles (NULL
 * terminated); -1 when this kernel has no kmemleak.
 */
static inline int kmemleak_suspects(const char *const *needles)
{
	static char buf[1 << 20];
	const char *const *n;
	char *p, *next;
	int count = 0;

	if (access("/sys/kernel/debug/kmemleak", F_OK))
		return -1;
	/* Objects younger than about 5 s are never reported. */
	sleep(6);
	lab_write("/sys/kernel/debug/kmemleak", "scan");
	if (lab_read("/sys/kernel/debug/kmemleak", buf, sizeof(buf)) < 0)
		return -1;
	for (p = strstr(buf, "unreferenced object"); p; p = next) {
		next = strstr(p + 1, "unreferenced object");
		if (next)
			next[-1] = 0;
		for (n = needles; *n; n++)
			if (strstr(p, *n)) {
				count++;
				ktap_diag("kmemleak: %.300s", p);
				break;
			}
		if (next)
			next[-1] = '\n';
	}
	return count;
}

#endif /* ARB_LIB_H */
