/* SPDX-License-Identifier: GPL-2.0 */
/*
 * recport.h - the recovery-only adapter of the wire simulator
 * (fixtures/i2c-wire-sim/i2c-wire-sim-recport.c, overlay
 * i2c-wire-sim-bench): the kernel's generic SCL recovery through the same
 * line accessors on every kernel, so a test or benchmark on it means the
 * same on ours and on upstream.
 */
#ifndef RECPORT_H
#define RECPORT_H

#include "wiresim.h"

#define RECPORT_SIM	SIM_DEBUGFS "i2c-wire-sim-bench/"
#define RECPORT_PORT	"/sys/kernel/debug/i2c-wire-sim-recport/i2c-wire-sim-recport/recover"

/* What one recovery did: i2c_recover_bus()'s result, its time, the wires. */
struct recport_run {
	int result;
	long long ns, pulses, stops;
};

/* Load the fixture and apply its overlay; the overlay id, or -1. */
static inline int recport_up(char *id, size_t len)
{
	FILE *p;
	int i;

	if (system("modprobe i2c-wire-sim") || system("modprobe i2c-wire-sim-recport"))
		return -1;
	p = popen("lab-overlay apply /lab/overlays/i2c-wire-sim-bench.dtbo", "r");
	if (!p)
		return -1;
	if (!fgets(id, len, p))
		id[0] = 0;
	if (pclose(p) || !id[0])
		return -1;
	id[strcspn(id, "\n")] = 0;
	for (i = 0; i < 100 && access(RECPORT_PORT, W_OK); i++)
		usleep(20000);
	return access(RECPORT_PORT, W_OK) ? -1 : 0;
}

static inline void recport_down(const char *id)
{
	char cmd[64];

	put_str(RECPORT_SIM "reset", "1");
	snprintf(cmd, sizeof(cmd), "lab-overlay remove %s", id);
	if (system(cmd))
		fprintf(stderr, "recport: cannot remove overlay %s\n", id);
}

/*
 * Put the simulator @sim (its debugfs directory, with a trailing slash) in
 * a fault state (@file = a debugfs file, @value what to write; NULL for a
 * free bus), run one recovery through the adapter's debugfs file @port,
 * and return what it did; the simulator is reset afterwards. result is
 * -1000 when the run failed.
 */
static inline struct recport_run port_recover(const char *sim, const char *port,
					      const char *file, const char *value)
{
	struct recport_run r = { .result = -1000 };
	char path[200], line[120];
	FILE *f;

	snprintf(path, sizeof(path), "%sreset", sim);
	put_str(path, "1");
	snprintf(path, sizeof(path), "%smonitor/reset", sim);
	put_str(path, "1");
	snprintf(path, sizeof(path), "%s%s", sim, file ? file : "");
	if ((file && put_str(path, value)) || put_str(port, "1"))
		return r;
	f = fopen(port, "r");
	if (!f || !fgets(line, sizeof(line), f) ||
	    sscanf(line, "result %d ns %lld", &r.result, &r.ns) != 2)
		r.result = -1000;
	if (f)
		fclose(f);
	snprintf(path, sizeof(path), "%smonitor/pulses", sim);
	r.pulses = get_num(path);
	snprintf(path, sizeof(path), "%smonitor/stops", sim);
	r.stops = get_num(path);
	snprintf(path, sizeof(path), "%sreset", sim);
	put_str(path, "1");
	return r;
}

static inline struct recport_run recport_recover(const char *file, const char *value)
{
	return port_recover(RECPORT_SIM, RECPORT_PORT, file, value);
}

#endif /* RECPORT_H */
