/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wiresim.h - the i2c-recovery tests' bus on the i2c-wire-sim fixture
 *
 * Brings up a simulated bus (module + DT overlay, or software nodes), finds
 * its i2c-gpio adapter and opens it, and drives the adapter's debugfs files
 * (recovery, and i2c-gpio's fault injector). The simulator's own files and
 * the transfers to its EEPROM are the fixture's: wire-sim-guest.h.
 */
#ifndef WIRESIM_H
#define WIRESIM_H

#include <dirent.h>

#include "i2c-wire-sim/wire-sim-guest.h"

struct wiresim {
	char sim[128];		/* the simulator's debugfs directory */
	char adap[128];		/* the adapter's debugfs directory */
	int nr;			/* i2c-N */
	int fd;			/* /dev/i2c-N */
	int overlay_id;		/* -1 for the software-node bus */
};

/* Write @val to the adapter's debugfs file @file; 0 or -errno. */
static inline int adap_put(struct wiresim *w, const char *file, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", w->adap, file);
	return lab_write(path, val);
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
		lab_read_line(path, got, sizeof(got));
		if (!strcmp(got, name))
			nr = atoi(de->d_name + 4);
	}
	closedir(d);
	return nr;
}

static inline int wiresim_open(struct wiresim *w, const char *simdev, const char *adapname)
{
	int i;

	for (i = 0; i < 50 && (w->nr = find_adapter(adapname)) < 0; i++)
		usleep(20000);
	if (w->nr < 0) {
		printf("# no adapter named %s\n", adapname);
		return -1;
	}
	snprintf(w->sim, sizeof(w->sim), WSIM_DEBUGFS "/%s", simdev);
	snprintf(w->adap, sizeof(w->adap), "/sys/kernel/debug/i2c/i2c-%d", w->nr);
	w->fd = wsim_bus_open(w->nr);
	if (w->fd < 0 || access(w->sim, F_OK)) {
		printf("# cannot open /dev/i2c-%d or %s\n", w->nr, w->sim);
		return -1;
	}
	return 0;
}

/* A DT overlay bus: module, overlay @overlay, the simulator @simdev, adapter @adapname. */
static inline int wiresim_up_with(struct wiresim *w, const char *overlay,
				  const char *simdev, const char *adapname)
{
	memset(w, 0, sizeof(*w));
	w->fd = -1;
	w->overlay_id = -1;
	if (lab_sh(NULL, 0, "modprobe i2c-wire-sim"))
		return -1;
	w->overlay_id = lab_overlay_apply(overlay);
	if (w->overlay_id < 0) {
		printf("# overlay %s: %s\n", overlay, strerror(-w->overlay_id));
		return -1;
	}
	return wiresim_open(w, simdev, adapname);
}

/* The plain bus: i2c-gpio without recovery, as every board has it. */
static inline int wiresim_up(struct wiresim *w)
{
	return wiresim_up_with(w, "i2c-wire-sim", "i2c-wire-sim", "i2c-wire-sim-master");
}

/* Undo wiresim_up(), also a half-done one, so the next suite starts clean. */
static inline void wiresim_down(struct wiresim *w)
{
	int ret;

	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	ret = lab_overlay_remove(w->overlay_id);
	if (ret)
		printf("# cannot remove overlay %d: %s\n", w->overlay_id, strerror(-ret));
	w->overlay_id = -1;
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
