// SPDX-License-Identifier: GPL-2.0
/*
 * dmaengine-pcm-lifecycle: how the generic dmaengine PCM comes and goes with
 * its firmware description and its DMA controller: a missing "rx" channel,
 * no channel at all, a controller bound after the I2S (deferred probe),
 * the description removed during playback, and each residue granularity
 * the controller may report. Parity: the same on upstream.
 */
#include "vloop.h"

#define GRANULARITY	"/sys/module/vdma/parameters/residue_granularity"

static int exists(const char *fmt, int n)
{
	char path[128];

	snprintf(path, sizeof(path), fmt, n);
	return access(path, F_OK) == 0;
}

static long pointer(struct vloop_pcm *p)
{
	struct snd_pcm_status st;

	return vloop_pcm_status(p, &st) ? -1 : (long)st.hw_ptr;
}

static void case_playback_only(void)
{
	int card, id = vloop_bind("vloop-norx", &card);
	struct vloop_pcm p = { .fd = -1 };
	int ok = card >= 0, has_c = 0, played = 0;

	if (ok) {
		has_c = exists("/dev/snd/pcmC%dD0c", card);
		played = !vloop_start_playback(&p, card, 1024, 4);
		lab_sleep_ms(100);
		played = played && pointer(&p) > 0;
		vloop_pcm_close(&p);
	}
	ktap_diag("card %d, capture device %s, playback %s", card, has_c ? "present" : "absent",
		  played ? "runs" : "does not run");
	ktap_result(ok && !has_c && played, "a DAI without an \"rx\" channel gets a playback-only PCM");
	vloop_unbind(id);
}

static void case_no_channel(void)
{
	int id = lab_overlay_apply("vloop-nodma"), card = -1, i2s_bound = 0, card_bound = 1;

	if (id >= 0) {
		card = vloop_wait_card(3);
		i2s_bound = access("/sys/bus/platform/devices/vi2s/driver", F_OK) == 0;
		card_bound = access("/sys/bus/platform/devices/vloop-card/driver", F_OK) == 0;
	}
	ktap_diag("overlay %d: card %d, vi2s %s, vloop-card %s", id, card,
		  i2s_bound ? "bound" : "unbound", card_bound ? "bound" : "unbound");
	ktap_result(id >= 0 && card < 0 && i2s_bound && !card_bound,
		    "a DAI with no DMA channel at all makes the card fail to probe");
	vloop_unbind(id);
}

static int deferred(const char *dev)
{
	char buf[4096];

	return lab_read("/sys/kernel/debug/devices_deferred", buf, sizeof(buf)) > 0 &&
	       strstr(buf, dev);
}

static void case_deferral(void)
{
	int unloaded = lab_sh(NULL, 0, "rmmod vdma") == 0, id, was_deferred = 0, card = -1;

	id = lab_overlay_apply("vloop");
	if (unloaded && id >= 0) {
		lab_sleep_ms(500);
		was_deferred = deferred("vi2s") && vloop_card("vloop") < 0;
		lab_sh(NULL, 0, "modprobe vdma");
		card = vloop_wait_card(20);
	}
	ktap_diag("vdma unloaded %d, overlay %d, vi2s deferred %d, card %d", unloaded, id,
		  was_deferred, card);
	ktap_result(was_deferred && card >= 0,
		    "the I2S defers while its DMA controller is unbound, then the card appears");
	vloop_unbind(id);
}

/* Exit status of @pid if it ends within @seconds; else kill it and return -1. */
static int wait_child(pid_t pid, double seconds)
{
	double end = lab_now() + seconds;
	int status;

	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (lab_now() > end) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			return -1;
		}
		lab_sleep_ms(20);
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * The card is freed only once every file on it is released, so the removal
 * runs in a child while we still hold the stream. The child must not hold
 * it too: a forked copy of the descriptor keeps the file open, and the
 * removal would wait for its own process forever.
 */
static pid_t remove_aside(int id, struct vloop_pcm *p)
{
	pid_t pid = fork();

	if (pid == 0) {
		close(p->fd);
		_exit(lab_overlay_remove(id) ? 1 : 0);
	}
	return pid;
}

static void case_unbind_while_playing(void)
{
	int card, id = vloop_bind("vloop", &card);
	struct vloop_pcm p = { .fd = -1 };
	int started = card >= 0 && !vloop_start_playback(&p, card, 1024, 8), gone = 0, again = -1;
	int removed = -1;
	char buf[4096] = "";
	pid_t remover = -1;
	long w = 0;

	if (started) {
		lab_sleep_ms(50);
		remover = remove_aside(id, &p);
		if (remover > 0)
			id = -1;
		gone = vloop_wait_no_card(10);
		w = vloop_pcm_xfer(&p, buf, 1024);
	}
	vloop_pcm_close(&p);
	if (remover > 0)
		removed = wait_child(remover, 30);
	/* Everything must come back from scratch. */
	if (removed == 0) {
		id = vloop_bind("vloop", &again);
	}
	ktap_diag("started %d, card gone %d, write after removal %ld, removal status %d, card again %d",
		  started, gone, w, removed, again);
	ktap_result(started && gone && w < 0 && removed == 0 && again >= 0,
		    "removing the description during playback ends the stream and the card comes back");
	vloop_unbind(id);
}

/*
 * With residue per burst the pointer moves inside periods; per segment and
 * per descriptor (period counting) it only stops on period boundaries, and
 * the PCM says so with BATCH.
 */
static void case_granularity(int g, const char *name)
{
	struct vloop_pcm p = { .fd = -1 };
	int id, card = -1, batch = -1, inside = 0, samples = 0;
	long ptr, last = -1, period = 1024;
	double end;
	char test[160];

	lab_sh(NULL, 0, "echo %d > " GRANULARITY, g);
	id = vloop_bind("vloop", &card);
	if (card >= 0 && !vloop_start_playback(&p, card, period, 8)) {
		batch = !!(p.info & SNDRV_PCM_INFO_BATCH);
		for (end = lab_now() + 0.4; lab_now() < end; lab_sleep_ms(2)) {
			ptr = pointer(&p);
			if (ptr == last)
				continue;
			samples++;
			inside += ptr % period != 0;
			last = ptr;
		}
	}
	vloop_pcm_close(&p);
	vloop_unbind(id);
	ktap_diag("granularity %d: batch %d, %d pointer positions, %d inside a period", g, batch,
		  samples, inside);
	snprintf(test, sizeof(test), "a controller with %s residue gives %s", name,
		 g == 2 ? "a non-batch PCM whose pointer moves within periods" :
			  "a batch PCM whose pointer moves by whole periods");
	if (g == 2)
		ktap_result(batch == 0 && samples > 2 && inside > 0, test);
	else
		ktap_result(batch == 1 && samples > 2 && inside == 0, test);
}

static void case_granularity_segment(void)
{
	case_granularity(1, "segment");
}

static void case_granularity_descriptor(void)
{
	case_granularity(0, "descriptor");
}

static void case_granularity_burst(void)
{
	case_granularity(2, "burst");
}

/*
 * Unloading the fixtures leaves nothing behind: vdma's and vi2s's debugfs
 * folders go with their modules (a stale folder would point at freed
 * code), and both load again. Run last: the other cases need them.
 */
static void case_unload(void)
{
	bool removed, vdma_gone, vi2s_gone, again;

	removed = !lab_sh(NULL, 0, "modprobe -r vi2s && modprobe -r vdma");
	vdma_gone = access("/sys/kernel/debug/vdma", F_OK) != 0;
	vi2s_gone = access("/sys/kernel/debug/vi2s", F_OK) != 0;
	again = !lab_sh(NULL, 0, "modprobe vdma && modprobe vi2s");
	ktap_diag("removed %d, vdma debugfs gone %d, vi2s debugfs gone %d, loaded again %d",
		  removed, vdma_gone, vi2s_gone, again);
	ktap_result(removed && vdma_gone && vi2s_gone && again,
		    "unloading vi2s and vdma removes their debugfs folders, and both load again");
}

static const struct ktap_case cases[] = {
	KTAP_CASE("playback-only", case_playback_only),
	KTAP_CASE("no-channel", case_no_channel),
	KTAP_CASE("deferral", case_deferral),
	KTAP_CASE("unbind-while-playing", case_unbind_while_playing),
	KTAP_CASE("granularity-segment", case_granularity_segment),
	KTAP_CASE("granularity-descriptor", case_granularity_descriptor),
	KTAP_CASE("granularity-burst", case_granularity_burst),
	KTAP_CASE("unload", case_unload),
};

int main(void)
{
	lab_watchdog(300);
	ktap_begin("dmaengine-pcm-lifecycle", ktap_plan(KTAP_CASES(cases)));
	lab_sh(NULL, 0, "modprobe vdma && modprobe vi2s");
	return ktap_run_cases(KTAP_CASES(cases));
}
