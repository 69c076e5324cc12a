/* SPDX-License-Identifier: GPL-2.0 */
/*
 * recport.h - the recovery-only adapters of the wire simulator: recport
 * (fixtures/i2c-wire-sim/i2c-wire-sim-recport.c, overlay
 * i2c-wire-sim-bench), the kernel's generic SCL recovery through the same
 * line accessors on every kernel, so a test or benchmark on it means the
 * same on ours and on upstream; and coreport (fixture coreport.c,
 * overlay i2c-wire-sim-core), whose recovery GPIOs the I2C core finds.
 * Each runs i2c_recover_bus() when "1" is written to its debugfs file
 * "recover", which then reads "result <errno> ns <duration>", and for
 * coreport " recovery <0|1> own <calls>" and its hook counters
 * (fixtures/i2c-wire-sim/README.md).
 */
#ifndef RECPORT_H
#define RECPORT_H

#include "wiresim.h"

#define RECPORT_SIM	WSIM_DEBUGFS "/i2c-wire-sim-bench"
#define RECPORT_PORT	"/sys/kernel/debug/i2c-wire-sim-recport/i2c-wire-sim-recport/recover"

/* What one recovery did: i2c_recover_bus()'s result, its time, the wires. */
struct recport_run {
	int result;			/* -1000 when the run failed */
	long long ns, pulses, stops;
	int recovery, own;		/* coreport only, else -1 */
};

/* Wait up to 2 s for the port @port (its adapter may bind late): true if there. */
static inline bool port_wait(const char *port)
{
	int i;

	for (i = 0; i < 100 && access(port, W_OK); i++)
		usleep(20000);
	return !access(port, W_OK);
}

/*
 * Load the simulator and @module, apply @overlay, wait for its port @port:
 * 0 or -1. *@id is the overlay's id (-1: none applied), to remove also
 * after a failure.
 */
static inline int port_up(const char *module, const char *overlay, const char *port, int *id)
{
	*id = -1;
	if (lab_sh(NULL, 0, "modprobe i2c-wire-sim && modprobe %s", module))
		return -1;
	*id = lab_overlay_apply(overlay);
	if (*id < 0)
		return -1;
	return port_wait(port) ? 0 : -1;
}

/* The recovery-only adapter: port_up() of the recport module. */
static inline int recport_up(int *id)
{
	return port_up("i2c-wire-sim-recport", "i2c-wire-sim-bench", RECPORT_PORT, id);
}

/* Reset the simulator and remove the overlay @id; returns nothing. */
static inline void recport_down(int id)
{
	wsim_write(RECPORT_SIM, "reset", "1");
	if (lab_overlay_remove(id))
		fprintf(stderr, "recport: cannot remove overlay %d\n", id);
}

/* One recovery through @port as the bus stands, its report in @r: 0 or -1. */
static inline int port_run(const char *port, struct recport_run *r)
{
	char line[120];

	r->recovery = r->own = -1;
	if (lab_write(port, "1") || lab_read_line(port, line, sizeof(line)) < 0 ||
	    sscanf(line, "result %d ns %lld recovery %d own %d", &r->result, &r->ns,
		   &r->recovery, &r->own) < 2) {
		r->result = -1000;
		return -1;
	}
	return 0;
}

/*
 * Put the simulator @sim (its debugfs directory) in a fault state (@file =
 * a debugfs file, @value what to write; NULL for a free bus), run one
 * recovery through the adapter's debugfs file @port, and return what it
 * did; the simulator is reset afterwards. result is -1000 when the run
 * failed.
 */
static inline struct recport_run port_recover(const char *sim, const char *port,
					      const char *file, const char *value)
{
	struct recport_run r = { .result = -1000, .recovery = -1, .own = -1 };

	wsim_reset(sim);
	if (file && wsim_write(sim, file, value))
		return r;
	port_run(port, &r);
	r.pulses = wsim_read_num(sim, "monitor/pulses");
	r.stops = wsim_read_num(sim, "monitor/stops");
	wsim_write(sim, "reset", "1");
	return r;
}

static inline struct recport_run recport_recover(const char *file, const char *value)
{
	return port_recover(RECPORT_SIM, RECPORT_PORT, file, value);
}

#endif /* RECPORT_H */
