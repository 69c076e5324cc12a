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
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/gpio.h>
#include <linux/i2c-dev.h>
#include <linux/i2c.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ktap.h"

#define ARB_MAX		3
#define EEPROM_ADDR	0x50
#define WIRE_SIM_DBG	"/sys/kernel/debug/i2c-wire-sim"
#define OVERLAY_DBG	"/sys/kernel/debug/lab-overlay"
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
	char sim_dir[PATH_MAX];		/* its debugfs folder */
	int handle[ARB_MAX];		/* line viewing master X's claim wire */
	int overlay_id;			/* -1 when from software nodes */
};

static inline double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline int read_text(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	return 0;
}

/* Write @text to @path opened with O_WRONLY | @flags; 0 or -errno. */
static inline int write_text_flags(const char *path, const char *text, int flags)
{
	int fd = open(path, O_WRONLY | flags);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	close(fd);
	return n < 0 ? -errno : 0;
}

static inline int write_text(const char *path, const char *text)
{
	return write_text_flags(path, text, 0);
}

static inline long long read_num(const char *path)
{
	char buf[64];

	if (read_text(path, buf, sizeof(buf)))
		return -1;
	return strtoll(buf, NULL, 10);
}

/* A "key value" line of an arbitrator's debugfs "arbitration" file. */
static inline long long stat_of(const char *text, const char *key)
{
	const char *p = text;
	size_t kl = strlen(key);

	while (p && *p) {
		if (!strncmp(p, key, kl) && p[kl] == ' ')
			return strtoll(p + kl + 1, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

static inline long long sim_monitor(const struct arb_topo *t, const char *file)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/monitor/%s", t->sim_dir, file);
	return read_num(path);
}

static inline void sim_reset(const struct arb_topo *t)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/reset", t->sim_dir);
	write_text(path, "1");
	snprintf(path, sizeof(path), "%s/monitor/reset", t->sim_dir);
	write_text(path, "1");
}

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
	double end = now_s() + timeout_s;
	int m, ok;

	do {
		for (ok = 0, m = 0; m < t->masters; m++)
			ok += child_bus(t->arb_dev[m]) >= 0;
		if (ok == t->masters)
			return true;
		usleep(20000);
	} while (now_s() < end);
	return false;
}

static inline int overlay_apply(const char *dtbo)
{
	char buf[4096], *line;
	int id = -1, n;
	char path[256];

	if (access(OVERLAY_DBG, F_OK) && system("modprobe lab_overlay"))
		return -1;
	if (write_text(OVERLAY_DBG "/apply", dtbo))
		return -1;
	if (read_text(OVERLAY_DBG "/apply", buf, sizeof(buf)))
		return -1;
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
		if (sscanf(line, "%d %255s", &n, path) == 2 && !strcmp(path, dtbo))
			id = n;
	return id;
}

static inline int overlay_remove(int id)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%d", id);
	return write_text(OVERLAY_DBG "/remove", buf);
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
	snprintf(t->sim_dir, sizeof(t->sim_dir), WIRE_SIM_DBG "/i2c-arb-%s-wires", n);
	t->overlay_id = -1;
}

static inline bool topo_overlay_up(struct arb_topo *t, int masters)
{
	char dtbo[128];

	topo_overlay(t, masters);
	if (access("/sys/bus/platform/drivers/i2c-wire-sim", F_OK) &&
	    system("modprobe i2c-wire-sim"))
		return false;
	snprintf(dtbo, sizeof(dtbo), "/lab/overlays/i2c-arb-%s.dtbo",
		 masters == 2 ? "two" : "three");
	t->overlay_id = overlay_apply(dtbo);
	return t->overlay_id >= 0 && topo_wait_bound(t, 10);
}

static inline void topo_down(struct arb_topo *t)
{
	if (t->overlay_id >= 0)
		overlay_remove(t->overlay_id);
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
	snprintf(t->sim_dir, sizeof(t->sim_dir), WIRE_SIM_DBG "/i2c-wire-sim.40");
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
#define ARB_STALLS_MAX		512

struct arb_stall {
	double at;	/* end of the gap, now_s() */
	double ms;
};

static struct arb_stall arb_stalls[ARB_STALLS_MAX];
static int arb_nstalls;
static double arb_stall_max_ms;
static volatile int arb_detecting;
static bool arb_stall_watch = true;	/* the benchmark turns it off */
static pthread_mutex_t arb_stall_lock = PTHREAD_MUTEX_INITIALIZER;

static inline void *arb_detector(void *arg)
{
	struct sched_param sp = { .sched_priority = 50 };
	struct timespec ms1 = { 0, 1000000 };
	double last, now, gap;
	cpu_set_t cpus;

	CPU_ZERO(&cpus);
	CPU_SET((long)arg, &cpus);
	sched_setaffinity(0, sizeof(cpus), &cpus);
	sched_setscheduler(0, SCHED_FIFO, &sp);
	for (last = now_s(); arb_detecting; last = now) {
		nanosleep(&ms1, NULL);
		now = now_s();
		gap = (now - last) * 1e3 - 1;
		if (gap <= ARB_STALL_MS)
			continue;
		pthread_mutex_lock(&arb_stall_lock);
		if (gap > arb_stall_max_ms)
			arb_stall_max_ms = gap;
		if (arb_nstalls < ARB_STALLS_MAX)
			arb_stalls[arb_nstalls++] = (struct arb_stall){ now, gap };
		pthread_mutex_unlock(&arb_stall_lock);
	}
	return NULL;
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
	double busy_at[16];	/* when the first -EBUSYs came back (now_s()) */
	int first_errno;
	bool wrote;		/* the last write went through */
};

static inline int i2c_xfer(int fd, struct i2c_msg *msgs, int n)
{
	struct i2c_rdwr_ioctl_data d = { .msgs = msgs, .nmsgs = n };

	return ioctl(fd, I2C_RDWR, &d) < 0 ? -errno : 0;
}

/* Write one byte at @addr, then read it back: two transfers. */
static inline void hammer_step(struct hammer *h, int fd, long i)
{
	int span = 256 / h->masters;
	uint8_t addr = h->master * span + (i / 2) % span;
	uint8_t val = (uint8_t)(i * 7 + h->master * 101);
	uint8_t wr[2] = { addr, val }, got = 0;
	struct i2c_msg w = { .addr = EEPROM_ADDR, .len = 2, .buf = wr };
	struct i2c_msg r[2] = {
		{ .addr = EEPROM_ADDR, .len = 1, .buf = &addr },
		{ .addr = EEPROM_ADDR, .flags = I2C_M_RD, .len = 1, .buf = &got },
	};
	int ret;

	ret = (i & 1) ? i2c_xfer(fd, r, 2) : i2c_xfer(fd, &w, 1);
	if (!(i & 1))
		h->wrote = !ret;
	if (ret) {
		h->failed++;
		if (ret == -EBUSY && h->busy < 16)
			h->busy_at[h->busy] = now_s();
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
	char path[32];
	int fd;

	snprintf(path, sizeof(path), "/dev/i2c-%d", bus);
	fd = open(path, O_RDWR);
	if (fd < 0)
		return -errno;
	hammer_step(&h, fd, 0);
	close(fd);
	return h.failed ? -h.first_errno : 0;
}

static inline void *hammer_thread(void *arg)
{
	struct hammer *h = arg;
	char path[32];
	cpu_set_t cpus;
	double t0;
	long i;
	int fd;

	CPU_ZERO(&cpus);
	CPU_SET(h->master % 2, &cpus);
	sched_setaffinity(0, sizeof(cpus), &cpus);
	snprintf(path, sizeof(path), "/dev/i2c-%d", h->bus);
	fd = open(path, O_RDWR);
	if (fd < 0) {
		h->first_errno = errno;
		h->failed = h->transfers;
		return NULL;
	}
	t0 = now_s();
	for (i = 0; i < h->transfers; i++)
		hammer_step(h, fd, i);
	h->seconds = now_s() - t0;
	close(fd);
	return NULL;
}

/* Every master at once, each on bus[m]; returns the summed shares in *sum. */
static inline void hammer_all(struct hammer *h, int masters, const int *bus,
			      long transfers, struct hammer *sum)
{
	pthread_t th[ARB_MAX];
	int m;

	pthread_t det[2];
	long c;

	memset(sum, 0, sizeof(*sum));
	arb_nstalls = 0;
	arb_stall_max_ms = 0;
	arb_detecting = arb_stall_watch;
	for (c = 0; arb_detecting && c < 2; c++)
		pthread_create(&det[c], NULL, arb_detector, (void *)c);
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
	if (arb_detecting) {
		arb_detecting = 0;
		for (c = 0; c < 2; c++)
			pthread_join(det[c], NULL);
	}
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

/* The counters of an arbitrator's child bus, as text. */
static inline int arb_stats(int child, char *buf, size_t len)
{
	char path[96];

	snprintf(path, sizeof(path), "/sys/kernel/debug/i2c/i2c-%d/arbitration", child);
	return read_text(path, buf, len);
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
		if (arb_stats(bus[m], s, sizeof(s)))
			return -1;
		v = stat_of(s, key);
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
	const char *variant = getenv("LAB_VARIANT");
	long unexplained = 0;
	int m, i;

	if (!sum->failed)
		return true;
	if (variant && !strcmp(variant, "upstream")) {
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
	int count = 0, fd;
	ssize_t len = 0, r;

	if (access("/sys/kernel/debug/kmemleak", F_OK))
		return -1;
	/* Objects younger than about 5 s are never reported. */
	sleep(6);
	write_text("/sys/kernel/debug/kmemleak", "scan");
	fd = open("/sys/kernel/debug/kmemleak", O_RDONLY);
	if (fd < 0)
		return -1;
	while (len < (ssize_t)sizeof(buf) - 1 &&
	       (r = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += r;
	close(fd);
	buf[len] = 0;
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
