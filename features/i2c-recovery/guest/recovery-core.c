// SPDX-License-Identifier: GPL-2.0
/*
 * recovery-core: the generic SCL recovery and the core's set-up of it, as
 * 6.12 defines them, on the simulated wires. These are the parity cases of
 * i2c-recovery: each must pass on ours and on upstream (features/
 * i2c-recovery/USERS.md says which in-tree users each one stands for).
 * Cases marked [extension] test what only ours does and skip upstream.
 *
 * Adapters: the recovery-only adapter with driver callbacks (recport.h),
 * the coreport adapters of overlay i2c-wire-sim-core (recovery GPIOs the
 * core finds in DT: scl-gpios only, scl and sda, scl over the driver's own
 * get/set_scl; the same behind pin states; GPIO descriptors the driver
 * hands over), and a plain i2c-gpio bus.
 *
 * Every write to a simulator file is checked: a fixture module older than
 * this suite (a stale fixture build) lacks rise_ns, drive_scl/drive_sda and
 * lines, and must show as that, not as a behaviour of the kernel under test
 * nor as a case that passed without doing what it says.
 */
#include "recport.h"

#define CORE_SIM(x)	WSIM_DEBUGFS "/i2c-wire-sim-core-" x
#define CORE_PORT(x)	"/sys/kernel/debug/i2c-wire-sim-coreport/i2c-wire-sim-coreport-" x "/recover"

/* Write a file of the simulator @sim the case relies on; a diagnostic when it cannot. */
static bool sim_set(const char *sim, const char *file, const char *val)
{
	int ret = wsim_write(sim, file, val);

	if (ret)
		ktap_diag("cannot write %s to %s/%s: %s (fixture module older than this suite?)",
			  val, sim, file, strerror(-ret));
	return !ret;
}

/* A 1 us rise time on the recovery-only adapter's bus, read back. */
static bool slow_bus(bool on)
{
	const char *val = on ? "1000" : "0";

	return sim_set(RECPORT_SIM, "rise_ns", val) &&
	       wsim_read_num(RECPORT_SIM, "rise_ns") == atoll(val);
}

static bool each_stuck_bit_recovers(const char *sim, const char *port)
{
	struct recport_run r;
	char bit[4];
	bool ok = true;
	int k;

	for (k = 0; k <= 8; k++) {
		snprintf(bit, sizeof(bit), "%d", k);
		r = port_recover(sim, port, "fault_stuck_sda", bit);
		if (r.result || r.pulses < 1 || r.pulses > 9 || r.stops < 1) {
			ktap_diag("slave cut at bit %d: result %d, %lld pulses, %lld STOPs",
				  k, r.result, r.pulses, r.stops);
			ok = false;
		}
	}
	return ok;
}

static void case_each_stuck_bit(void)
{
	ktap_result(each_stuck_bit_recovers(RECPORT_SIM, RECPORT_PORT),
		    "generic SCL recovery frees a slave cut at any bit 0..8 with at most nine clocks and a STOP");
}

/* 6.12 clocks at least once with a STOP: recovery as a forced bus reset. */
static void case_free_bus(void)
{
	struct recport_run r = recport_recover(NULL, NULL);

	ktap_diag("free bus: result %d, %lld pulses, %lld STOPs", r.result, r.pulses, r.stops);
	ktap_result(!r.result && r.pulses >= 1 && r.stops >= 1,
		    "recovery of a bus that already reads free still sends a clock and a STOP");
}

static void case_sda_held(void)
{
	struct recport_run r = recport_recover("fault_hold_sda", "1");

	ktap_diag("SDA held: result %d, %lld pulses", r.result, r.pulses);
	ktap_result(r.result == -EBUSY && r.pulses >= 1 && r.pulses <= 9,
		    "a slave holding SDA for good makes recovery give up with EBUSY after at most nine clocks");
}

static void case_scl_held(void)
{
	struct recport_run r = recport_recover("fault_hold_scl", "1");

	ktap_diag("SCL held: result %d, %lld pulses in %lld ns", r.result, r.pulses, r.ns);
	ktap_result(r.result == -EBUSY && r.pulses == 0,
		    "SCL held low makes recovery fail with EBUSY, without a clock");
}

/* Ours: a slave may stretch up to the SMBus tTIMEOUT, so that is waited. */
static void case_scl_held_ttimeout(void)
{
	const char *name = "[extension] SCL held low is given up after the SMBus tTIMEOUT (25..35 ms), logged";
	int before = lab_kmsg_count("SCL is stuck low");
	struct recport_run r;

	if (!ktap_extension(name))
		return;
	r = recport_recover("fault_hold_scl", "1");
	ktap_diag("SCL held: result %d after %lld us", r.result, r.ns / 1000);
	ktap_result(r.result == -EBUSY && r.ns >= 25000000 && r.ns <= 35000000 &&
		    lab_kmsg_count("SCL is stuck low") > before, name);
}

/* Standard mode allows a 1 us rise time: recovery must not misread it. */
static void case_slow_bus(void)
{
	struct recport_run r = { .result = -1000 };
	bool ok = slow_bus(true);

	if (ok) {
		ok = each_stuck_bit_recovers(RECPORT_SIM, RECPORT_PORT);
		r = recport_recover(NULL, NULL);
		if (r.result)
			ktap_diag("free slow bus: result %d", r.result);
	}
	ok = slow_bus(false) && ok;
	ktap_result(ok && !r.result,
		    "on a bus with a 1 us rise time every stuck bit 0..8 recovers, no false EBUSY");
}

static void case_timing(void)
{
	struct recport_run r = { .result = -1000 };
	long long tlow, thigh, tsu;
	bool slow = slow_bus(true);

	if (slow)
		r = recport_recover("fault_stuck_sda", "0");
	slow = slow_bus(false) && slow;
	tlow = wsim_read_num(RECPORT_SIM, "monitor/tlow_min_ns");
	thigh = wsim_read_num(RECPORT_SIM, "monitor/thigh_min_ns");
	tsu = wsim_read_num(RECPORT_SIM, "monitor/tsu_sto_min_ns");
	ktap_diag("1 us rise: result %d, tLOW >= %lld ns, tHIGH >= %lld ns, tSU;STO >= %lld ns",
		  r.result, tlow, thigh, tsu);
	ktap_result(slow && !r.result && tlow >= 4700 && thigh >= 4000 && tsu >= 4000,
		    "recovery clocks meet standard mode at the wire with a 1 us rise time");
}

/*
 * The simulator's probe: bit-bang the bus from user space. probe_failed
 * counts writes that did not reach the wires (the first one is named), so
 * a sequence that never happened cannot pass for one the recovery undid.
 */
static int probe_failed;

static void probe(const char *line, int val)
{
	char file[16];

	snprintf(file, sizeof(file), "drive_%s", line);
	if (wsim_write(RECPORT_SIM, file, val ? "1" : "0") && !probe_failed++)
		ktap_diag("cannot write %s/%s (fixture module older than this suite?)",
			  RECPORT_SIM, file);
}

static void probe_clock(int sda)
{
	probe("sda", sda);
	probe("scl", 1);
	probe("scl", 0);
}

/* Eight bits, MSB first, and the ACK clock (SDA let go for the slave). */
static void probe_byte(int byte)
{
	int i;

	for (i = 7; i >= 0; i--)
		probe_clock((byte >> i) & 1);
	probe_clock(1);
}

/* The EEPROM's state is "receive": it took the cut byte's bits so far. */
static bool slave_receiving(void)
{
	char state[32];

	wsim_slave_state(RECPORT_SIM, state, sizeof(state));
	return !strcmp(state, "receive");
}

/*
 * A page write to word 0x60 cut after @bits bits of its first data byte:
 * the master lets both lines go, so the slave has bits + 1 bits and is
 * still receiving. Nothing may be written: only a STOP right after a data
 * byte's ACK commits one. False if the cut did not happen on the wires.
 */
static bool cut_write(int bits)
{
	int i;

	probe("sda", 0);			/* START */
	probe("scl", 0);
	probe_byte(0xa0);
	probe_byte(0x60);
	for (i = 0; i < bits; i++)
		probe_clock(0);
	probe("sda", 1);
	probe("scl", 1);
	if (probe_failed)
		return false;
	if (!slave_receiving()) {
		ktap_diag("cut after %d bits: the slave is not receiving", bits);
		return false;
	}
	return true;
}

/*
 * What a wrong recovery does: @bare clocks without a STOP, then one with.
 * After a cut at @bits bits the slave has bits + 1 of the data byte, so
 * 7 - bits clocks end the byte, the next is its ACK, and a STOP in the
 * one after (8 - bits bare clocks) commits the byte: the slot a recovery
 * must never leave its first STOP for.
 */
static void late_stop(int bare)
{
	int i;

	for (i = 0; i < bare; i++) {
		probe("scl", 0);
		probe("scl", 1);
	}
	probe("scl", 0);
	probe("sda", 0);
	probe("scl", 1);
	probe("sda", 1);
}

/* Recover the bus as it stands (no reset first); the result, or -1000. */
static int recport_now(void)
{
	struct recport_run r;

	port_run(RECPORT_PORT, &r);
	return r.result;
}

/* Cell 0x60 zeroed, the simulator reset, a write cut at @bits: false if not. */
static bool fresh_cut(int bits)
{
	unsigned char zero = 0;

	if (wsim_eeprom_poke(RECPORT_SIM, 0x60, &zero, 1))
		return false;
	wsim_write(RECPORT_SIM, "reset", "1");
	return cut_write(bits);
}

/*
 * Cut writes at every bit of the first data byte that a correct recovery
 * leaves unwritten, each with its control: the same cut, followed by the
 * clocks that end the byte and its ACK and a STOP in the next clock,
 * does write (the cell changes), so each position can fail.
 */
static void case_cut_write(void)
{
	unsigned char cell = 0xee;
	bool ok = true;
	int ret;
	int bits;

	probe_failed = 0;
	for (bits = 0; bits <= 6; bits++) {
		if (!fresh_cut(bits)) {
			ok = false;
			continue;
		}
		ret = recport_now();
		if (ret || wsim_eeprom_peek(RECPORT_SIM, 0x60, &cell, 1) || cell) {
			ktap_diag("cut after %d bits: result %d, cell 0x%02x", bits, ret, cell);
			ok = false;
		}
		if (!fresh_cut(bits)) {
			ok = false;
			continue;
		}
		late_stop(8 - bits);
		if (probe_failed || wsim_eeprom_peek(RECPORT_SIM, 0x60, &cell, 1) || cell == 0) {
			ktap_diag("control, cut after %d bits: a STOP after the ACK left the cell 0x%02x",
				  bits, cell);
			ok = false;
		}
	}
	wsim_write(RECPORT_SIM, "reset", "1");
	ktap_result(ok, "a write cut at bit 0..6 of its data byte is not committed by recovery (a STOP after its ACK would)");
}

/* fsl-ls1043a & co: scl-gpios alone; 6.12 clocks nine times blind, 0. */
static void case_core_scl_only(void)
{
	struct recport_run r = port_recover(CORE_SIM("scl"), CORE_PORT("scl"),
					    "fault_stuck_sda", "3");

	ktap_diag("scl-gpios only: recovery %d, result %d, %lld pulses, %lld STOPs",
		  r.recovery, r.result, r.pulses, r.stops);
	ktap_result(r.recovery == 1 && !r.result && r.pulses == 9 && !r.stops,
		    "scl-gpios without sda-gpios: the core keeps recovery, nine clocks, 0");
}

/* SDA found by the core is read back only: no STOP, never driven. */
static void case_core_scl_sda(void)
{
	struct recport_run r, f;
	char dir[8], fdir[8];
	int lows, flows;

	r = port_recover(CORE_SIM("both"), CORE_PORT("both"), "fault_stuck_sda", "2");
	wsim_line_use(CORE_SIM("both"), 1, dir, &lows);
	f = port_recover(CORE_SIM("both"), CORE_PORT("both"), NULL, NULL);
	wsim_line_use(CORE_SIM("both"), 1, fdir, &flows);
	ktap_diag("scl+sda-gpios: cut at bit 2: result %d, %lld pulses, %lld STOPs, SDA line %s driven low %d times; free: %d, %lld pulses, SDA line %s driven low %d times",
		  r.result, r.pulses, r.stops, dir, lows, f.result, f.pulses, fdir, flows);
	ktap_result(!r.result && r.pulses == 7 && !r.stops && !f.result && f.pulses == 1 &&
		    !strcmp(dir, "in") && lows == 0 && !strcmp(fdir, "in") && flows == 0,
		    "scl-gpios and sda-gpios: SDA is an input the core never drives, clocks until SDA reads high");
}

/* 6.12 looks scl-gpios up also when the driver has its own get/set_scl. */
static void case_core_over_own_scl(void)
{
	struct recport_run r = port_recover(CORE_SIM("own"), CORE_PORT("own"),
					    "fault_stuck_sda", "3");

	ktap_diag("scl-gpios over own get/set_scl: recovery %d, result %d, %lld pulses, own calls %d",
		  r.recovery, r.result, r.pulses, r.own);
	ktap_result(r.recovery == 1 && !r.result && r.pulses == 9 && r.own == 0,
		    "scl-gpios in DT are clocked even when the driver supplies get/set_scl");
}

#define CORE_EVENTS	"/sys/kernel/debug/i2c-wire-sim-coreport/events"

/* "Not using recovery" lines in the log before the core overlay was applied. */
static int core_refusals_before = -1;

/* port_wait() for a coreport whose probe may be deferred, saying if it failed. */
static bool port_ready(const char *port)
{
	bool up = port_wait(port);

	if (!up)
		ktap_diag("%s did not appear", port);
	return up;
}

/* The simulator and the port of coreport @x ("pins", "drvin"...). */
struct core_names {
	char sim[96], port[128];
};

static struct core_names core_names(const char *x)
{
	struct core_names n;

	snprintf(n.sim, sizeof(n.sim), CORE_SIM("%s"), x);
	snprintf(n.port, sizeof(n.port), CORE_PORT("%s"), x);
	return n;
}

/*
 * The words of the coreport event log tagged "@tag:", without the tag, in
 * order ("i2c gpio prepare ..."), into @out; "?" if the log is unreadable.
 */
static void pin_events(const char *tag, char *out, size_t size)
{
	size_t tl = strlen(tag), used = 0;
	char buf[4096], *w, *save;

	strcpy(out, "?");
	if (lab_read(CORE_EVENTS, buf, sizeof(buf)) < 0)
		return;
	out[0] = 0;
	for (w = strtok_r(buf, " \n", &save); w && used < size; w = strtok_r(NULL, " \n", &save))
		if (!strncmp(w, tag, tl) && w[tl] == ':')
			used += snprintf(out + used, size - used, "%s%s", used ? " " : "", w + tl + 1);
}

/* Clear the event log: 0, or -1 with a diagnostic. */
static int pin_events_clear(void)
{
	int ret = lab_write(CORE_EVENTS, "0");

	if (ret)
		ktap_diag("cannot clear %s: %s", CORE_EVENTS, strerror(-ret));
	return ret ? -1 : 0;
}

/*
 * USERS.md row 9 at registration: with a "default" and a "gpio" or
 * "recovery" state, the core switches to the gpio state for its GPIO
 * lookup and gives the pins back to the controller ("i2c"); with no such
 * state (bus2: "default" and "sleep") it leaves pinctrl alone. The first
 * "i2c" is the driver core's, before probe. The log shows the switches,
 * not the lookup between them: the simulator's lines map no pins.
 * bus0 and bus2 hand the core their own pinctrl handle (imx, cadence...),
 * bus1 leaves it to the core.
 */
static void case_pins_init(void)
{
	char b0[256], b1[256], b2[256];
	bool up = port_ready(CORE_PORT("pins")) && port_ready(CORE_PORT("pinsrec")) &&
		  port_ready(CORE_PORT("pinsdef"));

	pin_events("bus0", b0, sizeof(b0));
	pin_events("bus1", b1, sizeof(b1));
	pin_events("bus2", b2, sizeof(b2));
	ktap_diag("registration: default+gpio \"%s\", default+recovery \"%s\", default+sleep \"%s\"",
		  b0, b1, b2);
	ktap_result(up && !strcmp(b0, "i2c gpio i2c") && !strcmp(b1, "i2c gpio i2c") &&
		    !strcmp(b2, "i2c"),
		    "at registration the core switches the pins to the gpio state once, then gives them back");
}

/*
 * One recovery of a slave cut at bit 2 on coreport @x: the bus freed after
 * seven clocks and, in the event log, the hooks and pin switches of @tag
 * exactly as @want lists them.
 */
static void pins_case(const char *x, const char *tag, const char *want, const char *name)
{
	struct recport_run r = { .result = -1000 };
	struct core_names n = core_names(x);
	char ev[256] = "?";

	if (port_ready(n.port) && !pin_events_clear()) {
		r = port_recover(n.sim, n.port, "fault_stuck_sda", "2");
		pin_events(tag, ev, sizeof(ev));
	}
	ktap_diag("%s: result %d, %lld pulses, events \"%s\"", x, r.result, r.pulses, ev);
	ktap_result(!r.result && r.pulses == 7 && !strcmp(ev, want), name);
}

/* Row 9: clocks on the gpio state, entered after prepare, left after unprepare. */
static void case_pins_recovery(void)
{
	pins_case("pins", "bus0", "prepare gpio unprepare i2c",
		  "recovery switches the pins to the gpio state after prepare_recovery and back after unprepare_recovery");
}

static void case_pins_recovery_name(void)
{
	pins_case("pinsrec", "bus1", "prepare gpio unprepare i2c",
		  "a pin state named recovery serves as the gpio state");
}

static void case_pins_no_gpio_state(void)
{
	pins_case("pinsdef", "bus2", "prepare unprepare",
		  "without a gpio or recovery pin state, recovery leaves the pins alone");
}

/*
 * USERS.md row 8: GPIO descriptors the driver hands over. SDA handed over
 * as an input (designware, davinci) is only read back; as an open-drain
 * output (pxa) the core drives STOPs on it.
 */
static struct recport_run driver_gpios(const char *x, char *dir, int *lows)
{
	struct core_names n = core_names(x);
	struct recport_run r = port_recover(n.sim, n.port, "fault_stuck_sda", "2");

	wsim_line_use(n.sim, 1, dir, lows);
	return r;
}

static void case_driver_sda_in(void)
{
	char dir[8];
	int lows;
	struct recport_run r = driver_gpios("drvin", dir, &lows);

	ktap_diag("driver's SDA input: result %d, %lld pulses, %lld STOPs, SDA line %s driven low %d times",
		  r.result, r.pulses, r.stops, dir, lows);
	ktap_result(!r.result && r.pulses == 7 && !r.stops && !strcmp(dir, "in") && !lows,
		    "an SDA GPIO the driver hands over as an input is read back only, never driven");
}

static void case_driver_sda_out(void)
{
	char dir[8];
	int lows;
	struct recport_run r = driver_gpios("drvout", dir, &lows);

	/* An open-drain line reads "in" once released (gpiolib's emulation). */
	ktap_diag("driver's SDA output: result %d, %lld pulses, %lld STOPs, SDA line driven low %d times",
		  r.result, r.pulses, r.stops, lows);
	ktap_result(!r.result && r.pulses >= 1 && r.pulses <= 9 && r.stops >= 1 && lows > 0,
		    "an SDA GPIO the driver hands over as an output carries a STOP with the clocks");
}

/* i2c-gpio without the opt-in keeps 6.12's bus and its error codes. */
static void case_plain_i2c_gpio(void)
{
	int before = lab_kmsg_count("SCL is stuck low");
	struct wiresim w;
	unsigned char got;
	int rd = -1000;
	char stats[200] = "";

	if (!wiresim_up(&w)) {
		wsim_write(w.sim, "fault_hold_scl", "1");
		rd = wsim_bus_read(w.fd, 0, &got, 1);
		wsim_write(w.sim, "fault_hold_scl", "0");
		wsim_write(w.sim, "reset", "1");
		snprintf(stats, sizeof(stats), "%s/recovery_stats", w.adap);
	}
	wiresim_down(&w);
	ktap_diag("plain i2c-gpio, SCL held: transfer %d", rd);
	ktap_result(rd == -ENXIO && lab_kmsg_count("SCL is stuck low") == before &&
		    access(stats, F_OK),
		    "i2c-gpio without i2c-gpio,bus-recovery: no recovery, SCL held gives ENXIO as in 6.12");
}

/* coreport's power counters: prepares, prepares while suspended, resumes. */
struct pm_counts {
	int prepared, prepared_suspended, resumes;
};

static bool pm_counts(const char *port, struct pm_counts *c)
{
	char line[160], *p = NULL;

	if (lab_read_line(port, line, sizeof(line)) >= 0)
		p = strstr(line, " prepared ");
	return p && sscanf(p, " prepared %d prepared_suspended %d resumes %d",
			   &c->prepared, &c->prepared_suspended, &c->resumes) == 3;
}

/* coreport's get_bus_free calls so far, or -1. */
static int bus_free_calls(const char *port)
{
	char line[160], *p = NULL;
	int n;

	if (lab_read_line(port, line, sizeof(line)) >= 0)
		p = strstr(line, " bus_free ");
	return p && sscanf(p, " bus_free %d", &n) == 1 ? n : -1;
}

#define CORE_DEV(x)	"/sys/bus/platform/devices/i2c-wire-sim-coreport-" x
#define BOTH_DEV	CORE_DEV("both")

/* The runtime PM status of coreport "both" within 1 s, into @buf. */
static void both_settles(const char *want, char *buf, size_t size)
{
	int i;

	for (i = 0; i < 50; i++) {
		if (lab_read_line(BOTH_DEV "/power/runtime_status", buf, size) < 0)
			strcpy(buf, "?");
		if (!strcmp(buf, want))
			return;
		usleep(20000);
	}
}

/* The bus number of the adapter under the platform device @dev, or -1. */
static int core_adapter(const char *dev)
{
	char path[160];
	int nr;

	for (nr = 0; nr < 64; nr++) {
		snprintf(path, sizeof(path), "%s/i2c-%d", dev, nr);
		if (!access(path, F_OK))
			return nr;
	}
	return -1;
}

/*
 * USERS.md row 18: recovery asked for from debugfs while the controller
 * is runtime-suspended, as an idle designware or omap block is. Like a
 * transfer, the trigger must power the controller first (its prepare hook
 * then finds it resumed) and let it suspend again afterwards. The
 * fixture's own trigger, which does not resume, is the control: it must
 * count a prepare on a suspended controller, or this case could not fail.
 */
static void case_trigger_resumes(void)
{
	const char *name = "[extension] recovery from debugfs resumes a runtime-suspended controller, then lets it suspend again";
	struct pm_counts c0 = { -1, -1, -1 }, c1 = c0, c2 = c0;
	char before[32] = "?", after[32] = "?", path[96];
	int nr, wr = -1, ctl = -1;

	if (!ktap_extension(name))
		return;
	nr = core_adapter(BOTH_DEV);
	snprintf(path, sizeof(path), "/sys/kernel/debug/i2c/i2c-%d/recover_bus", nr);
	both_settles("suspended", before, sizeof(before));
	if (nr >= 0 && pm_counts(CORE_PORT("both"), &c0)) {
		wr = lab_write(path, "1");
		pm_counts(CORE_PORT("both"), &c1);
		both_settles("suspended", after, sizeof(after));
		ctl = lab_write(CORE_PORT("both"), "1");
		pm_counts(CORE_PORT("both"), &c2);
	}
	ktap_diag("i2c-%d: %s before; trigger %d: prepared +%d, of them suspended +%d, resumes +%d; %s after; control (no resume) %d: suspended prepares +%d",
		  nr, before, wr, c1.prepared - c0.prepared,
		  c1.prepared_suspended - c0.prepared_suspended, c1.resumes - c0.resumes,
		  after, ctl, c2.prepared_suspended - c1.prepared_suspended);
	ktap_result(!strcmp(before, "suspended") && !wr && c1.prepared == c0.prepared + 1 &&
		    c1.prepared_suspended == c0.prepared_suspended &&
		    c1.resumes == c0.resumes + 1 && !strcmp(after, "suspended") && !ctl &&
		    c2.prepared_suspended == c1.prepared_suspended + 1, name);
}

/*
 * Lines of the simulator @chip (its device name) that someone requested,
 * from gpiolib's debugfs listing, where a requested line reads
 * " gpio-N (name|consumer) ..."; -1 if the chip is not listed.
 */
static int gpio_lines_taken(const char *chip)
{
	FILE *f = fopen("/sys/kernel/debug/gpio", "r");
	char line[256], key[96];
	int taken = -1;

	if (!f)
		return -1;
	snprintf(key, sizeof(key), "/%s,", chip);
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, " gpio-", 6)) {	/* a chip's header, or a blank */
			if (taken >= 0)
				break;
			if (strstr(line, key))
				taken = 0;
		} else if (taken >= 0 && strchr(line, '|')) {
			taken++;
		}
	}
	fclose(f);
	return taken;
}

/*
 * USERS.md row 1: a driver's own recover_bus (at91, mpc, npcm7xx, st,
 * tegra) is run once and its result returned; the generic sequence and
 * its hooks stay out, and the core requests none of the scl-gpios and
 * sda-gpios of the node. The control: on "both" the core took both lines,
 * so the listing that reads 0 here can count.
 */
static void case_own_recover_bus(void)
{
	struct pm_counts c0 = { -1, -1, -1 }, c1 = c0;
	struct recport_run r = { .result = -1000 };
	int taken, both;

	if (port_ready(CORE_PORT("ownrec")) && pm_counts(CORE_PORT("ownrec"), &c0))
		r = port_recover(CORE_SIM("ownrec"), CORE_PORT("ownrec"), NULL, NULL);
	pm_counts(CORE_PORT("ownrec"), &c1);
	taken = gpio_lines_taken("i2c-wire-sim-core-ownrec");
	both = gpio_lines_taken("i2c-wire-sim-core-both");
	ktap_diag("own recover_bus: recovery %d, result %d, own calls %d, prepares +%d, %lld pulses; GPIO lines taken %d (control, scl+sda-gpios: %d)",
		  r.recovery, r.result, r.own, c1.prepared - c0.prepared, r.pulses, taken, both);
	ktap_result(r.recovery == 1 && r.result == -ETIMEDOUT && r.own == 1 &&
		    c1.prepared == c0.prepared && c0.prepared >= 0 && r.pulses == 0 &&
		    taken == 0 && both == 2,
		    "a driver's own recover_bus runs once, its result is returned, and the core takes none of the node's GPIOs");
}

/*
 * USERS.md row 2: the generic sequence through the driver's get/set_scl
 * and get_sda without set_sda (omap, axxia, uniphier, octeon, davinci):
 * clocks until SDA reads high, at least one, and never a STOP; a slave
 * that holds SDA for good gets nine and EBUSY, and the failing run still
 * calls prepare_recovery once (row 10).
 */
static void case_driver_callbacks(void)
{
	struct pm_counts c0 = { -1, -1, -1 }, c1 = c0;
	struct recport_run r = { .result = -1000 }, f = r, h = r;
	char dir[8] = "?", fdir[8] = "?";
	int lows = -1, flows = -1;

	if (port_ready(CORE_PORT("cb"))) {
		r = port_recover(CORE_SIM("cb"), CORE_PORT("cb"), "fault_stuck_sda", "3");
		wsim_line_use(CORE_SIM("cb"), 1, dir, &lows);
		f = port_recover(CORE_SIM("cb"), CORE_PORT("cb"), NULL, NULL);
		wsim_line_use(CORE_SIM("cb"), 1, fdir, &flows);
		pm_counts(CORE_PORT("cb"), &c0);
		h = port_recover(CORE_SIM("cb"), CORE_PORT("cb"), "fault_hold_sda", "1");
		pm_counts(CORE_PORT("cb"), &c1);
	}
	ktap_diag("driver get/set_scl + get_sda: cut at bit 3: recovery %d, result %d, %lld pulses, %lld STOPs, SDA line %s driven low %d times; free: %d, %lld pulses, %lld STOPs, SDA %s, %d lows; SDA held: %d, %lld pulses, prepares +%d",
		  r.recovery, r.result, r.pulses, r.stops, dir, lows, f.result, f.pulses, f.stops,
		  fdir, flows, h.result, h.pulses, c1.prepared - c0.prepared);
	ktap_result(r.recovery == 1 && !r.result && r.pulses == 6 && !r.stops &&
		    !strcmp(dir, "in") && !lows && !f.result && f.pulses == 1 && !f.stops &&
		    !strcmp(fdir, "in") && !flows &&
		    h.result == -EBUSY && h.pulses == 9 && c0.prepared >= 0 &&
		    c1.prepared == c0.prepared + 1,
		    "driver get/set_scl and get_sda without set_sda: clocks until SDA reads high, at least one, no STOP");
}

#define CORE_BUSY(x)	"/sys/kernel/debug/i2c-wire-sim-coreport/i2c-wire-sim-coreport-" x "/busy"

/*
 * USERS.md row 4: with get_bus_free (rcar) the controller says when the
 * bus is free, not SDA: a free bus it calls busy three times gets four
 * clocks; a slave holding SDA for good, on a bus it calls free at once,
 * gets one, and recovery returns 0.
 */
static void case_get_bus_free(void)
{
	struct recport_run busy = { .result = -1000 }, held = busy;
	int wr = -1, n0 = -1, n1 = -1, n2 = -1;

	if (port_ready(CORE_PORT("busfree"))) {
		n0 = bus_free_calls(CORE_PORT("busfree"));
		wr = lab_write(CORE_BUSY("busfree"), "3");
	}
	if (!wr) {
		busy = port_recover(CORE_SIM("busfree"), CORE_PORT("busfree"), NULL, NULL);
		n1 = bus_free_calls(CORE_PORT("busfree"));
		/* Answers a failed run left must not bend the next one. */
		wr = lab_write(CORE_BUSY("busfree"), "0");
	}
	if (!wr) {
		held = port_recover(CORE_SIM("busfree"), CORE_PORT("busfree"), "fault_hold_sda", "1");
		n2 = bus_free_calls(CORE_PORT("busfree"));
	}
	ktap_diag("get_bus_free: free bus, 3 busy answers: result %d, %lld pulses, %d calls; SDA held, free answers: result %d, %lld pulses, %d calls (writes %d)",
		  busy.result, busy.pulses, n1 - n0, held.result, held.pulses, n2 - n1, wr);
	ktap_result(!wr && busy.recovery == 1 && !busy.result && busy.pulses == 4 &&
		    n0 >= 0 && n1 - n0 == 4 && !held.result && held.pulses == 1 && n2 - n1 == 1,
		    "get_bus_free, not SDA, decides when recovery ends");
}

/* USERS.md row 14: hisi calls i2c_recover_bus() without recovery info. */
static void case_no_recovery_info(void)
{
	struct recport_run r = { .result = -1000, .recovery = -1 };

	if (port_ready(CORE_PORT("norec")))
		port_run(CORE_PORT("norec"), &r);	/* it has no wires */
	ktap_diag("no recovery info: recovery %d, result %d", r.recovery, r.result);
	ktap_result(r.recovery == 0 && r.result == -EBUSY,
		    "i2c_recover_bus() on an adapter without recovery info returns EBUSY");
}

/* The log level of the line "i2c-<nr of @dev>: <msg>", -1 if none; *@n: how many. */
static int adapter_msg(const char *dev, const char *msg, int *n)
{
	char text[160];
	int level;

	snprintf(text, sizeof(text), "i2c-%d: %s", core_adapter(dev), msg);
	*n = lab_kmsg_find(text, &level);
	return level;
}

/*
 * USERS.md row 14: generic recovery with get/set_scl but neither SDA
 * callback nor GPIO is refused at registration with an error (6.12's
 * words); without any method it is dropped quietly (dev_dbg). Either
 * way the adapter registers, and recovery returns EBUSY. Of the overlay's
 * adapters only the first may log a refusal: one line since it was applied.
 */
static void case_incomplete_info(void)
{
	const char *err = "Not using recovery: either get_sda() or set_sda() needed";
	struct recport_run r = { .result = -1000, .recovery = -1 }, m = r;
	int n = -1, level = -1, quiet = -1, since = -1;

	if (port_ready(CORE_PORT("nosda")) && port_ready(CORE_PORT("nomethod"))) {
		level = adapter_msg(CORE_DEV("nosda"), err, &n);
		adapter_msg(CORE_DEV("nomethod"), "Not using recovery", &quiet);
		since = lab_kmsg_count("Not using recovery") - core_refusals_before;
		port_run(CORE_PORT("nosda"), &r);	/* neither has wires */
		port_run(CORE_PORT("nomethod"), &m);
	}
	ktap_diag("get/set_scl only: \"%s\" %d times, level %d; recovery %d, result %d, own calls %d; no method: %d messages, recovery %d, result %d; refusals since the overlay: %d",
		  err, n, level, r.recovery, r.result, r.own, quiet, m.recovery, m.result, since);
	ktap_result(n >= 1 && level == 3 && r.recovery == 0 && r.result == -EBUSY && r.own == 0 &&
		    quiet == 0 && m.recovery == 0 && m.result == -EBUSY &&
		    core_refusals_before >= 0 && since == 1,
		    "incomplete recovery info is refused at registration with an error, no method without one; recovery then returns EBUSY");
}

#define DEFER_DEV	"i2c-wire-sim-coreport.50"
#define DEFER_PORT	"/sys/kernel/debug/i2c-wire-sim-coreport/" DEFER_DEV "/recover"
#define DEFER_SIM	WSIM_DEBUGFS "/i2c-wire-sim.50"

/* Whether @dev is on the driver core's list of deferred probes. */
static bool probe_deferred(const char *dev)
{
	char buf[8192], *p;
	size_t len = strlen(dev);

	if (lab_read("/sys/kernel/debug/devices_deferred", buf, sizeof(buf)) < 0)
		return false;
	for (p = buf; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, dev, len) && (p[len] == '\t' || p[len] == '\n'))
			return true;
	return false;
}

/*
 * The GPIO controller behind scl-gpios and sda-gpios probes after the I2C
 * controller: the core must defer the controller, not register it without
 * recovery (fixtures/i2c-wire-sim/i2c-wire-sim-defer.c).
 */
static void case_deferred_gpio(void)
{
	struct recport_run r = { .result = -1000, .recovery = -1 };
	bool deferred = false, absent = false;
	int i, wr = -1;

	if (!lab_sh(NULL, 0, "modprobe i2c-wire-sim && modprobe i2c-wire-sim-coreport && modprobe i2c-wire-sim-defer")) {
		deferred = probe_deferred(DEFER_DEV);
		absent = access(DEFER_PORT, F_OK) != 0;
		wr = lab_write("/sys/kernel/debug/i2c-wire-sim-defer/provide", "1");
		for (i = 0; i < 250 && access(DEFER_PORT, W_OK); i++)
			usleep(20000);
		r = port_recover(DEFER_SIM, DEFER_PORT, "fault_stuck_sda", "2");
		lab_sh(NULL, 0, "modprobe -r i2c-wire-sim-defer");
	}
	ktap_diag("before the provider: deferred %d, no adapter %d; provide %d; then recovery %d, result %d, %lld pulses",
		  deferred, absent, wr, r.recovery, r.result, r.pulses);
	ktap_result(deferred && absent && !wr && r.recovery == 1 && !r.result && r.pulses == 7,
		    "a controller whose recovery GPIOs are not there yet defers, then has recovery once they are");
}

/*
 * The cases run on two adapters in turn, each brought up by a case that
 * reports it ("recport-up", "core-up") and taken down before what follows
 * (the recovery-only one before the core's, the core's before the
 * deferred-probe case). A case run alone (LAB_CASE) brings up its adapter
 * itself, after taking down the other; main() takes down what is left.
 * state: 0 not tried yet, 1 up, -1 did not come up.
 */
static int rec_state, rec_id = -1;
static int core_state, core_id = -1;

static void rec_down(void)
{
	if (rec_state)
		recport_down(rec_id);
	rec_state = 0;
	rec_id = -1;
}

static void core_down(void)
{
	if (core_state && lab_overlay_remove(core_id))
		ktap_diag("cannot remove overlay %d", core_id);
	core_state = 0;
	core_id = -1;
}

static bool rec_up(void)
{
	if (!rec_state) {
		core_down();
		rec_state = recport_up(&rec_id) ? -1 : 1;
	}
	return rec_state > 0;
}

static bool core_up(void)
{
	if (!core_state) {
		rec_down();
		/* Pin events from here on are this overlay's (no log yet: fine). */
		lab_write(CORE_EVENTS, "0");
		core_refusals_before = lab_kmsg_count("Not using recovery");
		core_state = port_up("i2c-wire-sim-coreport", "i2c-wire-sim-core",
				     CORE_PORT("own"), &core_id) ? -1 : 1;
	}
	return core_state > 0;
}

/* A case whose adapter is not up fails, saying which adapter it needs. */
static bool need_rec(void)
{
	return rec_up() || ktap_result(false, "the recovery-only adapter is needed");
}

static bool need_core(void)
{
	return core_up() || ktap_result(false, "the core-GPIO adapters are needed");
}

/* The table's case @fn, on the adapter that @need() brings up. */
#define ON_ADAPTER(need, fn)						\
static void fn##_on(void)						\
{									\
	if (need())							\
		fn();							\
}

static void case_recport_up(void)
{
	ktap_result(rec_up(), "the recovery-only adapter comes up on the simulated wires");
}

ON_ADAPTER(need_rec, case_each_stuck_bit)
ON_ADAPTER(need_rec, case_free_bus)
ON_ADAPTER(need_rec, case_sda_held)
ON_ADAPTER(need_rec, case_scl_held)
ON_ADAPTER(need_rec, case_scl_held_ttimeout)
ON_ADAPTER(need_rec, case_slow_bus)
ON_ADAPTER(need_rec, case_timing)
ON_ADAPTER(need_rec, case_cut_write)

static void case_core_up(void)
{
	ktap_result(core_up(), "adapters with core-found recovery GPIOs come up");
}

ON_ADAPTER(need_core, case_core_scl_only)
ON_ADAPTER(need_core, case_core_scl_sda)
ON_ADAPTER(need_core, case_core_over_own_scl)
ON_ADAPTER(need_core, case_trigger_resumes)
ON_ADAPTER(need_core, case_pins_init)
ON_ADAPTER(need_core, case_pins_recovery)
ON_ADAPTER(need_core, case_pins_recovery_name)
ON_ADAPTER(need_core, case_pins_no_gpio_state)
ON_ADAPTER(need_core, case_driver_sda_in)
ON_ADAPTER(need_core, case_driver_sda_out)
ON_ADAPTER(need_core, case_own_recover_bus)
ON_ADAPTER(need_core, case_driver_callbacks)
ON_ADAPTER(need_core, case_get_bus_free)
ON_ADAPTER(need_core, case_no_recovery_info)
ON_ADAPTER(need_core, case_incomplete_info)

/* The last two cases run with neither adapter's overlay applied. */
static void case_deferred_gpio_no_overlay(void)
{
	rec_down();
	core_down();
	case_deferred_gpio();
}

static void case_plain_i2c_gpio_no_overlay(void)
{
	rec_down();
	core_down();
	case_plain_i2c_gpio();
}

static const struct ktap_case cases[] = {
	KTAP_CASE("recport-up", case_recport_up),
	KTAP_CASE("each-stuck-bit", case_each_stuck_bit_on),
	KTAP_CASE("free-bus", case_free_bus_on),
	KTAP_CASE("sda-held", case_sda_held_on),
	KTAP_CASE("scl-held", case_scl_held_on),
	KTAP_CASE("scl-held-ttimeout", case_scl_held_ttimeout_on),
	KTAP_CASE("slow-bus", case_slow_bus_on),
	KTAP_CASE("timing", case_timing_on),
	KTAP_CASE("cut-write", case_cut_write_on),
	KTAP_CASE("core-up", case_core_up),
	KTAP_CASE("scl-only", case_core_scl_only_on),
	KTAP_CASE("scl-sda", case_core_scl_sda_on),
	KTAP_CASE("own-scl", case_core_over_own_scl_on),
	KTAP_CASE("trigger-resumes", case_trigger_resumes_on),
	KTAP_CASE("pins-init", case_pins_init_on),
	KTAP_CASE("pins-recovery", case_pins_recovery_on),
	KTAP_CASE("pins-recovery-name", case_pins_recovery_name_on),
	KTAP_CASE("pins-no-gpio-state", case_pins_no_gpio_state_on),
	KTAP_CASE("driver-sda-in", case_driver_sda_in_on),
	KTAP_CASE("driver-sda-out", case_driver_sda_out_on),
	KTAP_CASE("own-recover-bus", case_own_recover_bus_on),
	KTAP_CASE("driver-callbacks", case_driver_callbacks_on),
	KTAP_CASE("get-bus-free", case_get_bus_free_on),
	KTAP_CASE("no-recovery-info", case_no_recovery_info_on),
	KTAP_CASE("incomplete-info", case_incomplete_info_on),
	KTAP_CASE("deferred-gpio", case_deferred_gpio_no_overlay),
	KTAP_CASE("plain-i2c-gpio", case_plain_i2c_gpio_no_overlay),
};

int main(void)
{
	int ret = ktap_run("i2c-recovery-core", KTAP_CASES(cases));

	rec_down();
	core_down();
	return ret;
}
