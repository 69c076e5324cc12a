/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wiresim.h - guest-side helpers for the i2c-wire-sim fixture
 *
 * Brings up the simulated bus (module + DT overlay, or software nodes),
 * finds its i2c-gpio adapter, and wraps the simulator's debugfs files and
 * /dev/i2c-N transfers to its EEPROM at 0x50.
 */
#ifndef WIRESIM_H
#define WIRESIM_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/i2c-dev.h>
#include <linux/i2c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define EE_ADDR		0x50
#define EE_SIZE		256
#define SIM_DEBUGFS	"/sys/kernel/debug/i2c-wire-sim/"
#define OVERLAY		"/lab/overlays/i2c-wire-sim.dtbo"

struct wiresim {
	char sim[128];		/* the simulator's debugfs directory */
	char adap[128];		/* the adapter's debugfs directory */
	int nr;			/* i2c-N */
	int fd;			/* /dev/i2c-N */
	char overlay_id[32];	/* "" for the software-node bus */
};

static inline double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Write @val to @path; 0 or the negative errno of the write. */
static inline int put_str(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

static inline long long get_num(const char *path)
{
	char buf[64] = "";
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1000000 - errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? strtoll(buf, NULL, 0) : -1000000;
}

static inline int sim_put(struct wiresim *w, const char *file, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", w->sim, file);
	return put_str(path, val);
}

static inline long long sim_get(struct wiresim *w, const char *file)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", w->sim, file);
	return get_num(path);
}

static inline int adap_put(struct wiresim *w, const char *file, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", w->adap, file);
	return put_str(path, val);
}

/* Read a "key: value" line of a file; -1 if absent. */
static inline long long get_key(const char *path, const char *key)
{
	char line[128];
	long long val = -1;
	size_t len = strlen(key);
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ':')
			val = strtoll(line + len + 1, NULL, 0);
	fclose(f);
	return val;
}

/* First line of @path into @buf (newline dropped). */
static inline void get_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");

	buf[0] = 0;
	if (!f)
		return;
	if (fgets(buf, size, f))
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}

static inline int sim_sda_level(struct wiresim *w)
{
	char path[256], line[64] = "";
	FILE *f;
	int wire, level = -1;

	snprintf(path, sizeof(path), "%s/wires", w->sim);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%d %d", &wire, &level) == 2 && wire == 1)
			break;
	fclose(f);
	return level;
}

static inline int ee_dump(struct wiresim *w, unsigned char *buf)
{
	char path[256];
	int fd, n;

	snprintf(path, sizeof(path), "%s/eeprom", w->sim);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, EE_SIZE);
	close(fd);
	return n == EE_SIZE ? 0 : -EIO;
}

static inline int ee_poke(struct wiresim *w, int off, const void *data, int len)
{
	char path[256];
	int fd, n;

	snprintf(path, sizeof(path), "%s/eeprom", w->sim);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = pwrite(fd, data, len, off);
	close(fd);
	return n == len ? 0 : -EIO;
}

/* Bus transfers to the EEPROM; 0 or -errno. */
static inline int ee_read(struct wiresim *w, unsigned char off, void *buf, int len)
{
	struct i2c_msg msgs[2] = {
		{ .addr = EE_ADDR, .flags = 0, .len = 1, .buf = &off },
		{ .addr = EE_ADDR, .flags = I2C_M_RD, .len = len, .buf = buf },
	};
	struct i2c_rdwr_ioctl_data xfer = { .msgs = msgs, .nmsgs = 2 };

	return ioctl(w->fd, I2C_RDWR, &xfer) < 0 ? -errno : 0;
}

static inline int ee_write(struct wiresim *w, unsigned char off, const void *data, int len)
{
	unsigned char buf[1 + 8];
	struct i2c_msg msg = { .addr = EE_ADDR, .flags = 0, .len = 1 + len, .buf = buf };
	struct i2c_rdwr_ioctl_data xfer = { .msgs = &msg, .nmsgs = 1 };

	if (len > 8)
		return -EINVAL;
	buf[0] = off;
	memcpy(buf + 1, data, len);
	return ioctl(w->fd, I2C_RDWR, &xfer) < 0 ? -errno : 0;
}

/*
 * The i2c-N whose name is @name; -1 if none. Adapters are listed on the
 * i2c bus (6.12 has no /sys/class/i2c-adapter any more).
 */
static inline int find_adapter(const char *name)
{
	char path[300], got[64];
	struct dirent *de;
	DIR *d = opendir("/sys/bus/i2c/devices");
	int nr = -1;

	if (!d)
		return -1;
	while ((de = readdir(d)) && nr < 0) {
		if (strncmp(de->d_name, "i2c-", 4))
			continue;
		snprintf(path, sizeof(path), "/sys/bus/i2c/devices/%s/name", de->d_name);
		get_line(path, got, sizeof(got));
		if (!strcmp(got, name))
			nr = atoi(de->d_name + 4);
	}
	closedir(d);
	return nr;
}

static inline int wiresim_open(struct wiresim *w, const char *simdev, const char *adapname)
{
	char dev[32];
	int i;

	for (i = 0; i < 50 && (w->nr = find_adapter(adapname)) < 0; i++)
		usleep(20000);
	if (w->nr < 0) {
		printf("# no adapter named %s\n", adapname);
		return -1;
	}
	snprintf(w->sim, sizeof(w->sim), SIM_DEBUGFS "%s", simdev);
	snprintf(w->adap, sizeof(w->adap), "/sys/kernel/debug/i2c/i2c-%d", w->nr);
	snprintf(dev, sizeof(dev), "/dev/i2c-%d", w->nr);
	w->fd = open(dev, O_RDWR);
	if (w->fd < 0 || access(w->sim, F_OK)) {
		printf("# cannot open %s or %s\n", dev, w->sim);
		return -1;
	}
	return 0;
}

/* A DT overlay bus: module, @overlay, the simulator @simdev, adapter @adapname. */
static inline int wiresim_up_with(struct wiresim *w, const char *overlay,
				  const char *simdev, const char *adapname)
{
	char cmd[128];
	FILE *p;

	memset(w, 0, sizeof(*w));
	w->fd = -1;
	if (system("modprobe i2c-wire-sim")) {
		printf("# modprobe i2c-wire-sim failed\n");
		return -1;
	}
	snprintf(cmd, sizeof(cmd), "lab-overlay apply %s", overlay);
	p = popen(cmd, "r");
	if (!p || !fgets(w->overlay_id, sizeof(w->overlay_id), p)) {
		printf("# %s failed\n", cmd);
		if (p)
			pclose(p);
		return -1;
	}
	pclose(p);
	w->overlay_id[strcspn(w->overlay_id, "\n")] = 0;
	return wiresim_open(w, simdev, adapname);
}

/* The plain bus: i2c-gpio without recovery, as every board has it. */
static inline int wiresim_up(struct wiresim *w)
{
	return wiresim_up_with(w, OVERLAY, "i2c-wire-sim", "i2c-wire-sim-master");
}

/* Undo wiresim_up(), also a half-done one, so the next suite starts clean. */
static inline void wiresim_down(struct wiresim *w)
{
	char cmd[64];

	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	if (w->overlay_id[0]) {
		snprintf(cmd, sizeof(cmd), "lab-overlay remove %s", w->overlay_id);
		if (system(cmd))
			printf("# %s failed\n", cmd);
	}
	w->overlay_id[0] = 0;
}

/* Bit-bang through the i2c-gpio fault injector's scl/sda files. */
static inline int bb(struct wiresim *w, const char *line, int val)
{
	return adap_put(w, line, val ? "1" : "0");
}

static inline void bb_start(struct wiresim *w)
{
	bb(w, "sda", 0);
	bb(w, "scl", 0);
}

static inline void bb_bit(struct wiresim *w, int bit)
{
	bb(w, "sda", bit);
	bb(w, "scl", 1);
	bb(w, "scl", 0);
}

/* Eight bits and the ACK clock; ends with SCL low, SDA released. */
static inline void bb_byte(struct wiresim *w, int byte)
{
	int i;

	for (i = 7; i >= 0; i--)
		bb_bit(w, (byte >> i) & 1);
	bb_bit(w, 1);
}

#endif /* WIRESIM_H */
