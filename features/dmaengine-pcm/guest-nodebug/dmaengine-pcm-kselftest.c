// SPDX-License-Identifier: GPL-2.0
/*
 * dmaengine-pcm-kselftest: the tree's own ALSA selftest, pcm-test, on the
 * virtual loopback card. pcm-test plays and captures for 2 s per
 * configuration and checks the time it took (within 100 ms), so it runs on
 * the non-debug kernel. Its default configurations (pcm-test.conf) run on
 * every PCM it finds; the board file kselftest/vloop.conf adds the vloop
 * card's expected streams and system tests. Each pcm-test result becomes a
 * case here; a skip is a failure (the PCM refused a standard
 * configuration), and so is finding no vloop PCM. Parity: the same on
 * upstream.
 *
 * One CI run saw a read of default.time7's capture return 72 of 96000
 * frames with no kernel message; it did not come back in 33 runs since
 * (pcm-test with time7 alone 12 times on vdma's hard tick; all of pcm-test
 * 5 times and a time7 capture 16 times on the soft tick). A host that
 * stops the guest's vCPUs for more than about 1.5 s overruns that
 * capture's 2 s buffer and looks the same, so the longest vCPU stall
 * while pcm-test runs is reported (not excused).
 *
 * Each stream's preallocation is raised to PCM_TEST_PREALLOC_KIB first,
 * through the ALSA proc file users have for it. The generic PCM
 * preallocates 512 KiB unless its platform says otherwise, and the buffer
 * cannot outgrow the preallocation: default.time7 (96 kHz, periods of
 * 48000 frames, a 768000-byte buffer of four) got two periods, and
 * pcm-test writes two periods per call. With a pointer that moves within
 * periods, the write after the start finds a few frames free, writes them
 * and sleeps until a whole period is free, which only the second period's
 * end brings, with nothing but those frames left to play: an underrun
 * whenever waking and copying take longer than they last. That stream
 * underran 3 times in 30 under TCG (6.12 alike), 0 in 30 with four
 * periods. With this preallocation pcm-test gets the buffers it asks for,
 * to the nearest whole period (time7 192000 frames, time3 202500 where it
 * got 112500), all but default.time6's 2.3 MB (240000 frames, five
 * periods; its writes are one period each, so it never had the race).
 */
#define _GNU_SOURCE
#include "../guest/vloop.h"
#include "lab-stall.h"

#define PCM_TEST_DIR	"/lab/kselftest/alsa"
#define PCM_TEST_PREALLOC_KIB	1024
#define MAX_RESULTS	128

struct result {
	bool ok, skip;
	char name[160];
	char diag[512];
};

static struct result results[MAX_RESULTS];
static int nresults, plan = -1;
static bool saw_card, saw_system;

static double longest_stall_ms;
static char prealloc_diag[256];

/* Messages pcm-test prints after a result belong to that result. */
static void add_diag(const char *line)
{
	struct result *r = nresults ? &results[nresults - 1] : NULL;
	size_t len;

	if (strstr(line, "/vloop - "))
		saw_card = true;
	if (!r)
		return;
	len = strlen(r->diag);
	snprintf(r->diag + len, sizeof(r->diag) - len, "%s%.*s", len ? "\n" : "",
		 (int)strcspn(line, "\n"), line);
}

static void parse_line(char *line)
{
	bool ok = !strncmp(line, "ok ", 3);
	struct result *r;
	int nr, off = 0;

	if (sscanf(line, "1..%d", &plan) == 1)
		return;
	if (!ok && strncmp(line, "not ok ", 7)) {
		if (line[0] == '#')
			add_diag(line);
		return;
	}
	if (nresults == MAX_RESULTS || sscanf(line + (ok ? 3 : 7), "%d %n", &nr, &off) != 1)
		return;
	r = &results[nresults++];
	r->ok = ok;
	r->skip = strstr(line, "# SKIP") != NULL;
	snprintf(r->name, sizeof(r->name), "%s", line + (ok ? 3 : 7) + off);
	r->name[strcspn(r->name, "\n#")] = 0;
	if (!strncmp(r->name, "system.", 7))
		saw_system = true;
}

/*
 * Preallocate @kib for each stream of @card; true if both now hold it.
 * What went wrong goes to prealloc_diag (the plan is not printed yet).
 */
static bool set_prealloc(int card, long kib)
{
	static const char dir[] = "pc";
	char path[64], val[16];
	bool all = true;
	size_t len;
	long got;
	int i, ret;

	snprintf(val, sizeof(val), "%ld\n", kib);
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "/proc/asound/card%d/pcm0%c/sub0/prealloc",
			 card, dir[i]);
		ret = lab_write(path, val);
		got = lab_read_num(path);
		if (got == kib)
			continue;
		all = false;
		len = strlen(prealloc_diag);
		snprintf(prealloc_diag + len, sizeof(prealloc_diag) - len,
			 "%s%s reads %ld KiB after writing %ld%s%s", len ? "; " : "",
			 path, got, kib, ret ? ": " : " (a refusal keeps the old size)",
			 ret ? strerror(-ret) : "");
	}
	return all;
}

/*
 * Run pcm-test from its folder and parse what it printed; its exit status.
 * Output cut at the buffer's end shows as results missing from its plan.
 */
static int run_pcm_test(void)
{
	static char out[1 << 18];
	struct lab_stall stall;
	char *line, *save;
	int rc;

	if (chdir(PCM_TEST_DIR))
		return -errno;
	lab_stall_start(&stall, NULL);
	rc = lab_sh(out, sizeof(out), "./pcm-test 2>&1");
	longest_stall_ms = lab_stall_take(&stall);
	lab_stall_stop(&stall);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		parse_line(line);
	return rc;
}

int main(void)
{
	int card = -1, id, rc = -1, i;
	bool prealloc = false;
	char name[200];

	lab_watchdog(400);
	lab_sh(NULL, 0, "modprobe vdma && modprobe vi2s");
	id = vloop_bind("vloop", &card);
	if (card >= 0) {
		prealloc = set_prealloc(card, PCM_TEST_PREALLOC_KIB);
		rc = run_pcm_test();
	}

	/* The plan is known once pcm-test has said what it ran. */
	ktap_begin("dmaengine-pcm-kselftest", 4 + nresults);
	ktap_result(card >= 0, "the vloop overlay gives a card for pcm-test");
	if (prealloc_diag[0])
		ktap_diag("%s", prealloc_diag);
	ktap_result(prealloc,
		    "each vloop stream takes a 1024 KiB preallocation through ALSA's proc file");
	ktap_diag("pcm-test exit status %d, planned %d tests, reported %d; %s %.1f ms",
		  rc, plan, nresults,
		  "longest vCPU stall while it ran", longest_stall_ms);
	ktap_result(rc == 0 && plan == nresults && nresults > 0,
		    "pcm-test ran every test it planned and exited with success");
	if (!saw_card || !saw_system)
		ktap_diag("vloop PCM listed: %d; system tests of conf.d/vloop.conf run: %d",
			  saw_card, saw_system);
	ktap_result(saw_card && saw_system,
		    "pcm-test found the vloop PCM and ran the board file's system tests on it");
	for (i = 0; i < nresults; i++) {
		if (!results[i].ok || results[i].skip)
			ktap_diag("%s%s", results[i].skip ? "skipped by pcm-test; " : "",
				  results[i].diag);
		snprintf(name, sizeof(name), "pcm-test %s", results[i].name);
		ktap_result(results[i].ok && !results[i].skip, name);
	}

	vloop_unbind(id);
	return ktap_end();
}
