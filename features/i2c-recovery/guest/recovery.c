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

/*
 * A bus slowed down with i2c-gpio,delay-us has slaves or wiring that need
 * it: recovery on it clocks no faster than its transfers, both phases of
 * every clock at least delay-us (50 us on this bus).
 */
static void case_delay_us(const char *name)
{
	long long tlow = -1, thigh = -1, pulses = -1;
	struct wiresim slow = { .fd = -1, .overlay_id = -1 };
	int inj = -1, ret = -1;

	if (!wiresim_open(&slow, "i2c-wire-sim-slow", "i2c-wire-sim-slow-master")) {
		wsim_write(slow.sim, "monitor/reset", "1");
		inj = wsim_write(slow.sim, "fault_stuck_sda", "0");
		ret = adap_put(&slow, "recover_bus", "1");
		tlow = wsim_read_num(slow.sim, "monitor/tlow_min_ns");
		thigh = wsim_read_num(slow.sim, "monitor/thigh_min_ns");
		pulses = wsim_read_num(slow.sim, "monitor/pulses");
	}
	if (slow.fd >= 0)
		close(slow.fd);
	ktap_diag("delay-us 50: fault %d, recover %d, %lld pulses, tLOW >= %lld ns, tHIGH >= %lld ns",
		  inj, ret, pulses, tlow, thigh);
	ktap_result(!inj && !ret && pulses == 9 && tlow >= 50000 && thigh >= 50000, name);
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

/*
 * EEPROM snapshots a later case compares with: start[] taken after the
 * first case (eeprom-intact: intact since before the cut reads), before[]
 * as the last case that read it all found it (timing). A case run alone
 * (LAB_CASE) takes the snapshot it needs itself.
 */
static unsigned char start[WSIM_EE_SIZE];
static bool start_taken, before_taken;

/* The table's case @fn: run with its sentence @name, skipped upstream. */
#define OURS(fn, name)							\
static void fn##_ours(void)						\
{									\
	if (ktap_extension(name))					\
		fn(name);						\
}

static void case_transfer_after_aborted_read_ours(void)
{
	const char *name = "ours: the transfer after an aborted read recovers the bus and reads the right data";

	if (!ktap_extension(name))
		return;
	case_transfer_after_aborted_read(name);
	before_taken = true;
	wsim_eeprom_peek(w.sim, 0, start, WSIM_EE_SIZE);
	start_taken = true;
}

OURS(case_each_stuck_bit_on_the_wire,
     "ours: recovery frees a slave cut at bit k = 0..8 with 9 - k clocks and one STOP")

static void case_each_stuck_bit_transfer_ours(void)
{
	const char *name = "ours: a transfer after a slave was cut at any bit 0..8 succeeds";

	if (!ktap_extension(name))
		return;
	case_each_stuck_bit_transfer(name);
	before_taken = true;
}

static void case_eeprom_intact_ours(void)
{
	const char *name = "ours: the EEPROM is intact after recovering cut reads and a cut write";

	if (!ktap_extension(name))
		return;
	if (!start_taken)
		wsim_eeprom_peek(w.sim, 0, start, WSIM_EE_SIZE);
	case_eeprom_intact(name, start);
}

OURS(case_stuck_scl,
     "ours: SCL held low makes a transfer fail with EBUSY after the SMBus tTIMEOUT (25..50 ms), logged")
OURS(case_sda_held_for_good,
     "ours: SDA held low for good makes recovery give up with EBUSY after nine clocks")
OURS(case_counters, "ours: the debugfs recovery counters match the recoveries that ran")

static void case_timing_ours(void)
{
	const char *name = "ours: on a 1 us-rise bus recovery meets standard mode, tSU;STO and tBUF >= 4.7 us before the START";

	if (!ktap_extension(name))
		return;
	if (!before_taken)
		wsim_eeprom_peek(w.sim, 0, before, WSIM_EE_SIZE);
	case_timing(name);
}

OURS(case_bad_input, "ours: recover_bus rejects anything but 1 with EINVAL and runs nothing")
OURS(case_stretching, "ours: a slave stretching the clock by 20 us is waited for")
OURS(case_race, "ours: recover_bus racing transfers never breaks one")
OURS(case_rate_limited, "ours: recovery errors are rate-limited (40 failures, at most 10 lines)")
OURS(case_multi_master, "ours: i2c-gpio,bus-recovery is refused on a multi-master bus")
OURS(case_delay_us, "ours: on a bus with i2c-gpio,delay-us 50 recovery clocks no faster, tLOW and tHIGH >= 50 us")

/* The last case: the plain bus in place of the opted-in one. */
static void case_not_opted_ours(void)
{
	const char *name = "ours: an i2c-gpio bus without i2c-gpio,bus-recovery has no recovery";

	if (!ktap_extension(name))
		return;
	wiresim_down(&w);
	if (wiresim_up(&w))
		ktap_result(false, name);
	else
		case_not_opted(name);
	wiresim_down(&w);
}

static const struct ktap_case cases[] = {
	KTAP_CASE("aborted-read", case_transfer_after_aborted_read_ours),
	KTAP_CASE("stuck-bit-wire", case_each_stuck_bit_on_the_wire_ours),
	KTAP_CASE("stuck-bit-transfer", case_each_stuck_bit_transfer_ours),
	KTAP_CASE("eeprom-intact", case_eeprom_intact_ours),
	KTAP_CASE("scl-held", case_stuck_scl_ours),
	KTAP_CASE("sda-held", case_sda_held_for_good_ours),
	KTAP_CASE("counters", case_counters_ours),
	KTAP_CASE("timing", case_timing_ours),
	KTAP_CASE("bad-input", case_bad_input_ours),
	KTAP_CASE("stretching", case_stretching_ours),
	KTAP_CASE("race", case_race_ours),
	KTAP_CASE("rate-limited", case_rate_limited_ours),
	KTAP_CASE("multi-master", case_multi_master_ours),
	KTAP_CASE("delay-us", case_delay_us_ours),
	KTAP_CASE("not-opted", case_not_opted_ours),
};

int main(void)
{
	int ret;

	ktap_begin("i2c-recovery-gpio", ktap_plan(KTAP_CASES(cases)));
	/* Every case is ours: upstream reports them skipped, with no bus. */
	if (ktap_upstream())
		return ktap_run_cases(KTAP_CASES(cases));
	if (wiresim_up_with(&w, "i2c-wire-sim-rec", "i2c-wire-sim-rec",
			    "i2c-wire-sim-rec-master")) {
		wiresim_down(&w);
		return ktap_fail_cases(KTAP_CASES(cases), "the simulated bus does not come up");
	}
	snprintf(stats_path, sizeof(stats_path), "%s/recovery_stats", w.adap);
	ret = ktap_run_cases(KTAP_CASES(cases));
	/* not-opted takes the bus down; when it is not selected (LAB_CASE), here. */
	wiresim_down(&w);
	return ret;
}
