// SPDX-License-Identifier: GPL-2.0
/*
 * recovery-core: the seed's generic SCL recovery, as every kernel has it,
 * on the simulator's recovery-only adapter (recport.h). These are the
 * parity cases of i2c-recovery: the behaviour of 5f9296ba21b3 and 6.12,
 * the same on ours and on upstream. What only ours does (recovery of
 * i2c-gpio buses, counters, exact pulse counts and timing) is tested by
 * the i2c-recovery-gpio suite.
 */
#include "ktap.h"
#include "recport.h"

#define NCASES 5

static void case_each_stuck_bit(void)
{
	struct recport_run r;
	char bit[4];
	bool ok = true;
	int k;

	for (k = 0; k <= 8; k++) {
		snprintf(bit, sizeof(bit), "%d", k);
		r = recport_recover("fault_stuck_sda", bit);
		if (r.result || r.pulses < 1 || r.pulses > 9 || r.stops < 1) {
			ktap_diag("slave cut at bit %d: result %d, %lld pulses, %lld STOPs",
				  k, r.result, r.pulses, r.stops);
			ok = false;
		}
	}
	ktap_result(ok, "generic SCL recovery frees a slave cut at any bit 0..8 with at most nine clocks and a STOP");
}

static void case_free_bus(void)
{
	struct recport_run r = recport_recover(NULL, NULL);

	ktap_diag("free bus: result %d, %lld pulses", r.result, r.pulses);
	/* 6.12 looks at SDA after the first clock only; ours before it (KUnit). */
	ktap_result(!r.result && r.pulses <= 1,
		    "recovery of a bus that is already free succeeds, with at most one clock");
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
	ktap_result(r.result == -EBUSY && r.pulses == 0 && r.ns < 10000000,
		    "SCL held low makes recovery fail with EBUSY at once, without a clock");
}

int main(void)
{
	char id[32] = "";
	int i;

	ktap_begin("i2c-recovery-core", NCASES);
	if (!ktap_result(!recport_up(id, sizeof(id)),
			 "the recovery-only adapter comes up on the simulated wires")) {
		for (i = 1; i < NCASES; i++)
			ktap_result(false, "the recovery-only adapter is needed");
		return ktap_end();
	}
	case_each_stuck_bit();
	case_free_bus();
	case_sda_held();
	case_scl_held();
	recport_down(id);
	return ktap_end();
}
