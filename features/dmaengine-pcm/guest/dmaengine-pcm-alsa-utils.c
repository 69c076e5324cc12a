// SPDX-License-Identifier: GPL-2.0
/*
 * dmaengine-pcm-alsa-utils: the virtual loopback seen through Debian's
 * alsa-utils, the way a user would look at it: aplay's view of the hardware
 * constraints the DMA controller implies, and alsabat's sine round trip.
 * Parity: the same on upstream.
 */
#include "vloop.h"

#define DEVICE	"hw:CARD=vloop,DEV=0"

/* One line of the dump, e.g. "PERIOD_BYTES: [32 1048576]", as printed. */
static int has_line(const char *out, const char *want)
{
	const char *p = strstr(out, want);

	return p && (p == out || p[-1] == '\n');
}

static void case_dump_hw_params(int card)
{
	static char out[16384];
	int rc = -1, ok;

	if (card >= 0)
		rc = lab_sh(out, sizeof(out),
			    "aplay -D " DEVICE " --dump-hw-params -t raw -f S16_LE -c 2 -r 48000 -d 1 /dev/zero 2>&1");
	ok = rc == 0 && has_line(out, "FORMAT:  S8 S16_LE S24_LE S32_LE S24_3LE") &&
	     has_line(out, "PERIOD_BYTES: [32 1048576]") && has_line(out, "CHANNELS: [1 8]") &&
	     has_line(out, "RATE: [8000 192000]");
	if (!ok)
		ktap_diag("aplay exit %d, output:\n%s", rc, out);
	ktap_result(ok, "aplay --dump-hw-params shows the formats, channels, rates and period bytes (up to the 1 MiB segment) the DAI and the controller imply");
}

static void case_alsabat(int card)
{
	static char out[16384];
	int rc = -1;

	if (card >= 0)
		rc = lab_sh(out, sizeof(out),
			    "cd /tmp && alsabat -P " DEVICE " -C " DEVICE " -c 2 -r 48000 -f S16_LE -F 997 -n 48000 2>&1");
	if (rc != 0)
		ktap_diag("alsabat exit %d, output:\n%s", rc, out);
	ktap_result(rc == 0, "alsabat finds its 997 Hz sine back through the loopback");
}

/* The card main() bound for every case, and its overlay's id; -1: none. */
static int bound_card = -1, bound_overlay = -1;

static void case_card(void)
{
	ktap_result(bound_card >= 0, "the vloop overlay gives a card alsa-lib can open");
}

static void case_dump_hw_params_bound(void)
{
	case_dump_hw_params(bound_card);
}

static void case_alsabat_bound(void)
{
	case_alsabat(bound_card);
}

static const struct ktap_case cases[] = {
	KTAP_CASE("card", case_card),
	KTAP_CASE("dump-hw-params", case_dump_hw_params_bound),
	KTAP_CASE("alsabat", case_alsabat_bound),
};

int main(void)
{
	int ret;

	lab_watchdog(300);
	ktap_begin("dmaengine-pcm-alsa-utils", ktap_plan(KTAP_CASES(cases)));
	/* Bound here, not in "card": a case run alone (LAB_CASE) needs the card too. */
	lab_sh(NULL, 0, "modprobe vdma && modprobe vi2s");
	bound_overlay = vloop_bind("vloop", &bound_card);
	ret = ktap_run_cases(KTAP_CASES(cases));
	vloop_unbind(bound_overlay);
	return ret;
}
