// SPDX-License-Identifier: GPL-2.0
/*
 * recovery.c - bus recovery on a real i2c-gpio bus (extensions of ours)
 *
 * Upstream i2c-gpio has no bus recovery; ours, when the board opts in with
 * i2c-gpio,bus-recovery (overlay i2c-wire-sim-rec), recovers through the
 * bus's own lines when a transfer finds SDA or SCL low, and every adapter
 * with recovery has counters and a recover-on-demand file in debugfs. The
 * simulator's monitor says what happened on the wires. All cases are our
 * extensions.
 */
#include <pthread.h>

#include "wiresim.h"

#define NCASES 14
#define MM_ADAP "i2c-wire-sim-mm-master"
#define RACE_READS 100
#define RACE_RECOVERIES 40

static struct wiresim w;
static unsigned char before[WSIM_EE_SIZE];
static char stats_path[256];

static long long rstat(const char *key)
{
	return lab_read_key(stats_path, key);
}

static int recover_now(void)
{
	return adap_put(&w, "recover_bus", "1");
}

static bool slave_idle(void)
{
	char state[32];

	wsim_slave_state(w.sim, state, sizeof(state));
	return !strcmp(state, "idle") || !strcmp(state, "wait-stop");
}

/* The injector cuts a read at the address ACK; the byte after is 0x00. */
static void case_transfer_after_aborted_read(const char *name)
{
	unsigned char zero[2] = { 0, 0 }, got[4], tmp;
	long long rec0 = rstat("recovered");
	int inj, rd;
	bool ok;

	wsim_eeprom_poke(w.sim, 0x40, zero, 2);
	wsim_eeprom_peek(w.sim, 0, before, WSIM_EE_SIZE);
	wsim_bus_read(w.fd, 0x40, &tmp, 1);	/* pointer now at 0x41 */
	inj = adap_put(&w, "incomplete_address_phase", "0x50");
	rd = wsim_bus_read(w.fd, 0x10, got, 4);
	ok = !inj && wsim_wire_level(w.sim, 1) == 1 && !rd && !memcmp(got, before + 0x10, 4) &&
	     rstat("recovered") == rec0 + 1 && rstat("last_pulses") == 9;
	if (!ok)
		ktap_diag("injector %d, read %d, recovered %lld -> %lld, last_pulses %lld",
			  inj, rd, rec0, rstat("recovered"), rstat("last_pulses"));
	ktap_result(ok, name);
}

/* Cut at bit k: exactly 9 - k clocks, one STOP, no START, slave idle. */
static void case_each_stuck_bit_on_the_wire(const char *name)
{
	bool ok = true;
	int k;

	for (k = 0; k <= 8; k++) {
		char bit[4];
		long long pulses, stops, starts;
		int ret;

		snprintf(bit, sizeof(bit), "%d", k);
		wsim_write(w.sim, "monitor/reset", "1");
		if (wsim_write(w.sim, "fault_stuck_sda", bit) || wsim_wire_level(w.sim, 1) != 0) {
			ktap_diag("k=%d: fault not injected", k);
			ok = false;
			continue;
		}
		ret = recover_now();
		pulses = wsim_read_num(w.sim, "monitor/pulses");
		stops = wsim_read_num(w.sim, "monitor/stops");
		starts = wsim_read_num(w.sim, "monitor/starts");
		ktap_diag("k=%d: recover %d, pulses %lld, stops %lld, starts %lld", k, ret,
			  pulses, stops, starts);
		if (ret || pulses != 9 - k || stops != 1 || starts || !slave_idle() ||
		    wsim_wire_level(w.sim, 1) != 1)
			ok = false;
	}
	ktap_result(ok, name);
}

static void case_each_stuck_bit_transfer(const char *name)
{
	unsigned char got[4];
	bool ok = true;
	int k, rd;

	wsim_eeprom_peek(w.sim, 0, before, WSIM_EE_SIZE);
	for (k = 0; k <= 8; k++) {
		char bit[4];

		snprintf(bit, sizeof(bit), "%d", k);
		wsim_write(w.sim, "fault_stuck_sda", bit);
		rd = wsim_bus_read(w.fd, 0x30, got, 4);
		if (rd || memcmp(got, before + 0x30, 4)) {
			ktap_diag("k=%d: read %d, got %02x %02x %02x %02x", k, rd,
				  got[0], got[1], got[2], got[3]);
			ok = false;
		}
	}
	ktap_result(ok, name);
}

static void case_eeprom_intact(const char *name, const unsigned char *start)
{
	unsigned char now[WSIM_EE_SIZE], got[1];
	int inj = adap_put(&w, "incomplete_write_byte", "0x50");
	int rd = wsim_bus_read(w.fd, 0x00, got, 1);
	bool ok = !inj && !rd && !wsim_eeprom_peek(w.sim, 0, now, WSIM_EE_SIZE) &&
		  !memcmp(now, start, WSIM_EE_SIZE);

	if (!ok)
		ktap_diag("write injector %d, read %d, EEPROM %s", inj, rd,
			  memcmp(now, start, WSIM_EE_SIZE) ? "changed" : "same");
	ktap_result(ok, name);
}

static void case_stuck_scl(const char *name)
{
	unsigned char got[1];
	double t0, ms;
	int rd, rec;

	wsim_write(w.sim, "fault_hold_scl", "1");
	t0 = lab_now();
	rd = wsim_bus_read(w.fd, 0, got, 1);
	ms = (lab_now() - t0) * 1e3;
	rec = recover_now();
	wsim_write(w.sim, "fault_hold_scl", "0");
	wsim_write(w.sim, "reset", "1");
	ktap_diag("transfer %d after %.2f ms, recover_bus %d", rd, ms, rec);
	ktap_result(rd == -EBUSY && rec == -EBUSY && ms >= 25 && ms < 50 &&
		    lab_kmsg_count("SCL is stuck low") > 0, name);
}

static void case_sda_held_for_good(const char *name)
{
	long long pulses;
	int rec;

	wsim_write(w.sim, "fault_hold_sda", "1");
	wsim_write(w.sim, "monitor/reset", "1");
	rec = recover_now();
	pulses = wsim_read_num(w.sim, "monitor/pulses");
	wsim_write(w.sim, "reset", "1");
	ktap_diag("recover_bus %d after %lld pulses", rec, pulses);
	ktap_result(rec == -EBUSY && pulses == 9 &&
		    lab_kmsg_count("SDA is still held low after 9 pulses") > 0, name);
}

/* Three recoveries with known outcomes; the counters must follow. */
static void case_counters(const char *name)
{
	long long a0 = rstat("attempts"), r0 = rstat("recovered");
	long long f0 = rstat("failed"), p0 = rstat("pulses");
	bool ok;

	wsim_write(w.sim, "fault_stuck_sda", "2");	/* 7 pulses, recovered */
	recover_now();
	wsim_write(w.sim, "fault_hold_sda", "1");	/* 9 pulses, failed */
	recover_now();
	wsim_write(w.sim, "reset", "1");
	wsim_write(w.sim, "fault_stuck_sda", "8");	/* 1 pulse, recovered */
	recover_now();
	ok = rstat("attempts") == a0 + 3 && rstat("recovered") == r0 + 2 &&
	     rstat("failed") == f0 + 1 && rstat("pulses") == p0 + 17 &&
	     rstat("last_pulses") == 1 && rstat("last_result") == 0;
	if (!ok)
		ktap_diag("attempts +%lld recovered +%lld failed +%lld pulses +%lld last %lld/%lld",
			  rstat("attempts") - a0, rstat("recovered") - r0, rstat("failed") - f0,
			  rstat("pulses") - p0, rstat("last_pulses"), rstat("last_result"));
	ktap_result(ok, name);
}

/*
 * On a slow (1 us rise) bus: the recovery in front of a transfer, then the
 * transfer's START; our margins: tSU;STO and tBUF of 4.7 us at the wire.
 */
static void case_timing(const char *name)
{
	long long tlow, thigh, tsu, tbuf;
	unsigned char got[2];
	int rd;

	wsim_write(w.sim, "rise_ns", "1000");
	wsim_write(w.sim, "monitor/reset", "1");
	wsim_write(w.sim, "fault_stuck_sda", "0");
	rd = wsim_bus_read(w.fd, 0x30, got, 2);
	wsim_write(w.sim, "rise_ns", "0");
	tlow = wsim_read_num(w.sim, "monitor/tlow_min_ns");
	thigh = wsim_read_num(w.sim, "monitor/thigh_min_ns");
	tsu = wsim_read_num(w.sim, "monitor/tsu_sto_min_ns");
	tbuf = wsim_read_num(w.sim, "monitor/tbuf_min_ns");
	ktap_diag("read %d; tLOW >= %lld ns, tHIGH >= %lld ns, tSU;STO >= %lld ns, tBUF >= %lld ns",
		  rd, tlow, thigh, tsu, tbuf);
	ktap_result(!rd && tlow >= 4700 && thigh >= 4000 && tsu >= 4700 && tbuf >= 4700 &&
		    !memcmp(got, before + 0x30, 2), name);
}

/* A held bus must not flood the log: an i2cdetect is ~100 attempts. */
static void case_rate_limited(const char *name)
{
	int n0 = lab_kmsg_count("SDA is still held low"), i, grew;

	wsim_write(w.sim, "fault_hold_sda", "1");
	for (i = 0; i < 40; i++)
		recover_now();
	wsim_write(w.sim, "reset", "1");
	grew = lab_kmsg_count("SDA is still held low") - n0;
	ktap_diag("40 failed recoveries, %d messages", grew);
	ktap_result(grew >= 1 && grew <= 10, name);
}

/* The bus marked multi-master keeps no recovery, even when asked. */
static void case_multi_master(const char *name)
{
	int nr = find_adapter(MM_ADAP);
	char path[200];

	snprintf(path, sizeof(path), "/sys/kernel/debug/i2c/i2c-%d/recovery_stats", nr);
	ktap_diag("multi-master adapter i2c-%d", nr);
	ktap_result(nr >= 0 && access(path, F_OK) &&
		    lab_kmsg_count("no bus recovery on a multi-master bus") > 0, name);
}

/* Without the opt-in (the plain overlay, as every board has it): none. */
static void case_not_opted(const char *name)
{
	int nr = find_adapter("i2c-wire-sim-master");
	char path[200];

	snprintf(path, sizeof(path), "/sys/kernel/debug/i2c/i2c-%d/recovery_stats", nr);
	ktap_result(nr >= 0 && access(path, F_OK), name);
}

static void case_bad_input(const char *name)
{
	long long a0 = rstat("attempts");
	int e1 = adap_put(&w, "recover_bus", "2");
	int e2 = adap_put(&w, "recover_bus", "now");
	int e3 = adap_put(&w, "recover_bus", "-1");

	ktap_diag("errors %d %d %d", e1, e2, e3);
	ktap_result(e1 == -EINVAL && e2 == -EINVAL && e3 == -EINVAL &&
		    rstat("attempts") == a0, name);
}

static void case_stretching(const char *name)
{
	long long pulses;
	int rec;

	wsim_write(w.sim, "monitor/reset", "1");
	wsim_write(w.sim, "fault_stuck_sda", "4");
	wsim_write(w.sim, "fault_stretch_us", "20");
	rec = recover_now();
	pulses = wsim_read_num(w.sim, "monitor/pulses");
	wsim_write(w.sim, "reset", "1");
	ktap_diag("recover_bus %d, pulses %lld", rec, pulses);
	ktap_result(!rec && pulses == 5, name);
}

static int race_bad_reads;

static void *race_reader(void *arg)
{
	unsigned char got[4];
	int i;

	for (i = 0; i < RACE_READS; i++)
		if (wsim_bus_read(w.fd, 0x30, got, 4) || memcmp(got, before + 0x30, 4))
			race_bad_reads++;
	return arg;
}

/* recover_bus takes the bus lock: it can never cut into a transfer. */
static void case_race(const char *name)
{
	int i, bad_recoveries = 0;
	pthread_t t;

	wsim_eeprom_peek(w.sim, 0, before, WSIM_EE_SIZE);
	race_bad_reads = 0;
	if (pthread_create(&t, NULL, race_reader, NULL)) {
		ktap_result(false, name);
		return;
	}
	for (i = 0; i < RACE_RECOVERIES; i++)
		if (recover_now())
			bad_recoveries++;
	pthread_join(t, NULL);
	ktap_diag("%d of %d reads wrong, %d of %d recoveries failed", race_bad_reads,
		  RACE_READS, bad_recoveries, RACE_RECOVERIES);
	ktap_result(!race_bad_reads && !bad_recoveries, name);
}

static const char *const names[NCASES] = {
	"ours: the transfer after an aborted read recovers the bus and reads the right data",
	"ours: recovery frees a slave cut at bit k = 0..8 with 9 - k clocks and one STOP",
	"ours: a transfer after a slave was cut at any bit 0..8 succeeds",
	"ours: the EEPROM is intact after recovering cut reads and a cut write",
	"ours: SCL held low makes a transfer fail with EBUSY after the SMBus tTIMEOUT (25..50 ms), logged",
	"ours: SDA held low for good makes recovery give up with EBUSY after nine clocks",
	"ours: the debugfs recovery counters match the recoveries that ran",
	"ours: on a 1 us-rise bus recovery meets standard mode, tSU;STO and tBUF >= 4.7 us before the START",
	"ours: recover_bus rejects anything but 1 with EINVAL and runs nothing",
	"ours: a slave stretching the clock by 20 us is waited for",
	"ours: recover_bus racing transfers never breaks one",
	"ours: recovery errors are rate-limited (40 failures, at most 10 lines)",
	"ours: i2c-gpio,bus-recovery is refused on a multi-master bus",
	"ours: an i2c-gpio bus without i2c-gpio,bus-recovery has no recovery",
};

int main(void)
{
	unsigned char start[WSIM_EE_SIZE];
	int i;

	ktap_begin("i2c-recovery-gpio", NCASES);
	if (ktap_upstream()) {
		for (i = 0; i < NCASES; i++)
			ktap_extension(names[i]);
		return ktap_end();
	}
	if (wiresim_up_with(&w, "i2c-wire-sim-rec", "i2c-wire-sim-rec",
			    "i2c-wire-sim-rec-master")) {
		ktap_result(false, "the simulated bus comes up");
		wiresim_down(&w);
		return ktap_end();
	}
	snprintf(stats_path, sizeof(stats_path), "%s/recovery_stats", w.adap);
	case_transfer_after_aborted_read(names[0]);
	wsim_eeprom_peek(w.sim, 0, start, WSIM_EE_SIZE);
	case_each_stuck_bit_on_the_wire(names[1]);
	case_each_stuck_bit_transfer(names[2]);
	case_eeprom_intact(names[3], start);
	case_stuck_scl(names[4]);
	case_sda_held_for_good(names[5]);
	case_counters(names[6]);
	case_timing(names[7]);
	case_bad_input(names[8]);
	case_stretching(names[9]);
	case_race(names[10]);
	case_rate_limited(names[11]);
	case_multi_master(names[12]);
	wiresim_down(&w);
	if (wiresim_up(&w))
		ktap_result(false, names[13]);
	else
		case_not_opted(names[13]);
	wiresim_down(&w);
	return ktap_end();
}
