// SPDX-License-Identifier: GPL-2.0
/*
 * wire-bus.c - a real i2c-gpio master on the simulated wires (parity)
 *
 * What holds on any 6.12 kernel, ours or upstream: the bus carries EEPROM
 * transfers, an aborted read leaves the slave holding SDA, a write cut in
 * the middle of a byte changes nothing, a transfer on a bus with SCL held
 * low fails instead of hanging, and the simulator refuses bad input. The
 * software-node description of the bus works as the DT overlay does.
 */
#include "wiresim.h"

static struct wiresim w;
static unsigned char before[WSIM_EE_SIZE];

static void case_eeprom_round_trip(void)
{
	unsigned char page[8] = { 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88 };
	unsigned char got[8] = { 0 }, mem[WSIM_EE_SIZE];
	int wr = wsim_bus_write(w.fd, 0x10, page, 8), rd = wsim_bus_read(w.fd, 0x10, got, 8);
	bool ok = !wr && !rd && !memcmp(got, page, 8) &&
		  !wsim_eeprom_peek(w.sim, 0, mem, WSIM_EE_SIZE) && !memcmp(mem + 0x10, page, 8);

	if (!ok)
		ktap_diag("write %d read %d, got %02x %02x .. %02x", wr, rd, got[0], got[1], got[7]);
	ktap_result(ok, "a page written through i2c-gpio is in the EEPROM and reads back");
}

static void case_aborted_read_holds_sda(void)
{
	char state[32];
	int ret = adap_put(&w, "incomplete_address_phase", "0x50");
	int sda = wsim_wire_level(w.sim, 1);
	bool ok;

	wsim_slave_state(w.sim, state, sizeof(state));
	ok = !ret && sda == 0 && !strcmp(state, "ack");
	if (!ok)
		ktap_diag("injector %d, SDA %d, slave %s", ret, sda, state);
	ktap_result(ok, "an address phase cut at the ACK leaves the slave holding SDA low");
	wsim_write(w.sim, "reset", "1");
}

/* START, address, word 0x20, data 0x5a (ACKed), half of 0xc3, then gone. */
static void case_cut_write_changes_nothing(void)
{
	unsigned char mem[WSIM_EE_SIZE], got[1] = { 0 };
	int rd, i;
	bool ok;

	wsim_eeprom_peek(w.sim, 0, before, WSIM_EE_SIZE);
	bb_start(&w);
	bb_byte(&w, WSIM_EE_ADDR << 1);
	bb_byte(&w, 0x20);
	bb_byte(&w, 0x5a);
	for (i = 7; i >= 4; i--)
		bb_bit(&w, (0xc3 >> i) & 1);
	bb(&w, "sda", 1);
	bb(&w, "scl", 1);

	rd = wsim_bus_read(w.fd, 0x20, got, 1);
	ok = !wsim_eeprom_peek(w.sim, 0, mem, WSIM_EE_SIZE) &&
	     !memcmp(mem, before, WSIM_EE_SIZE) && !rd && got[0] == before[0x20];
	if (!ok)
		ktap_diag("read %d: 0x%02x, EEPROM[0x20] 0x%02x, was 0x%02x", rd, got[0],
			  mem[0x20], before[0x20]);
	ktap_result(ok, "a write cut in the middle of a byte changes nothing in the EEPROM");
}

/*
 * Upstream i2c-algo-bit has no recovery: with SCL held it tries the address
 * retries + 1 = 4 times and sends a STOP after each try, every one of those
 * 8 steps giving up after the adapter timeout (i2c-gpio: 100 ms), so it
 * fails after about 0.8 s. A hang lasts forever; 1.5 s tells them apart
 * with room for timer slack under TCG.
 */
static void case_stuck_scl_fails_without_hang(void)
{
	unsigned char got[1];
	double t0, ms;
	int ret;

	wsim_write(w.sim, "fault_hold_scl", "1");
	t0 = lab_now();
	ret = wsim_bus_read(w.fd, 0, got, 1);
	ms = (lab_now() - t0) * 1e3;
	wsim_write(w.sim, "fault_hold_scl", "0");
	ktap_diag("transfer returned %d (%s) after %.1f ms", ret, strerror(-ret), ms);
	ktap_result(ret < 0 && ms < 1500,
		    "a transfer with SCL held low fails within 1.5 s instead of hanging");
	wsim_write(w.sim, "reset", "1");
}

static void case_sim_rejects_bad_input(void)
{
	int e1 = wsim_write(w.sim, "fault_stuck_sda", "9");
	int e2 = wsim_write(w.sim, "fault_stuck_sda", "bit");
	int e3 = wsim_write(w.sim, "fault_stretch_us", "200000");
	int e4 = wsim_write(w.sim, "monitor/reset", "2");
	long long stuck = wsim_read_num(w.sim, "fault_stuck_sda");
	bool ok = e1 == -ERANGE && e2 == -EINVAL && e3 == -ERANGE && e4 == -EINVAL &&
		  stuck == -1;

	if (!ok)
		ktap_diag("errors %d %d %d %d, stuck %lld", e1, e2, e3, e4, stuck);
	ktap_result(ok, "the simulator rejects out-of-range and malformed input and changes nothing");
}

static void case_swnode_bus(void)
{
	struct wiresim s = { .fd = -1, .overlay_id = -1 };
	unsigned char byte = 0xa5, got = 0;
	bool ok = false;

	if (lab_sh(NULL, 0, "modprobe i2c-wire-sim-swnode")) {
		ktap_result(false, "the software-node bus carries EEPROM transfers too");
		return;
	}
	if (!wiresim_open(&s, "i2c-wire-sim.1", "i2c-gpio.1"))
		ok = !wsim_bus_write(s.fd, 0x42, &byte, 1) && !wsim_bus_read(s.fd, 0x42, &got, 1) &&
		     got == byte;
	if (s.fd >= 0)
		close(s.fd);
	if (lab_sh(NULL, 0, "rmmod i2c-wire-sim-swnode"))
		ok = false;
	ktap_result(ok, "the software-node bus carries EEPROM transfers too");
}

static const struct ktap_case cases[] = {
	KTAP_CASE("round-trip", case_eeprom_round_trip),
	KTAP_CASE("aborted-read", case_aborted_read_holds_sda),
	KTAP_CASE("cut-write", case_cut_write_changes_nothing),
	KTAP_CASE("scl-held", case_stuck_scl_fails_without_hang),
	KTAP_CASE("bad-input", case_sim_rejects_bad_input),
	KTAP_CASE("swnode", case_swnode_bus),
};

int main(void)
{
	int ret;

	ktap_begin("i2c-wire-bus", ktap_plan(KTAP_CASES(cases)));
	if (wiresim_up(&w)) {
		wiresim_down(&w);
		return ktap_fail_cases(KTAP_CASES(cases), "the simulated bus does not come up");
	}
	ret = ktap_run_cases(KTAP_CASES(cases));
	wiresim_down(&w);
	return ret;
}
