// SPDX-License-Identifier: GPL-2.0
/*
 * dmaengine-pcm-controls: what the generic dmaengine PCM derives from the
 * controller and the DAI, and how a stream behaves under the commands a
 * user gives it (pause, xrun and prepare, drop, many short lives).
 * Parity: the same on upstream.
 */
#include "vloop.h"

#define CYCLES		10000
#define VDMA_CHAN0	VDMA_DEBUGFS "/chan0"

static int card = -1;

static int refine_any(int stream, struct snd_pcm_hw_params *hw)
{
	struct vloop_pcm p;
	int ret = vloop_pcm_open(&p, card, stream, 1);

	if (ret)
		return ret;
	hw_any(hw);
	ret = ioctl(p.fd, SNDRV_PCM_IOCTL_HW_REFINE, hw) < 0 ? -errno : 0;
	vloop_pcm_close(&p);
	return ret;
}

/* Widths 1-4 of the controller meet the DAI's formats; 3 bytes included. */
static void case_formats(void)
{
	static const snd_pcm_format_t want[] = {
		SNDRV_PCM_FORMAT_S8, SNDRV_PCM_FORMAT_S16_LE, SNDRV_PCM_FORMAT_S24_3LE,
		SNDRV_PCM_FORMAT_S24_LE, SNDRV_PCM_FORMAT_S32_LE,
	};
	struct snd_pcm_hw_params hw;
	int ok = card >= 0 && !refine_any(SNDRV_PCM_STREAM_PLAYBACK, &hw);
	size_t i;

	for (i = 0; ok && i < sizeof(want) / sizeof(want[0]); i++)
		if (!hw_mask_has(&hw, SNDRV_PCM_HW_PARAM_FORMAT, want[i])) {
			ktap_diag("format %s missing", vloop_format_name(want[i]));
			ok = 0;
		}
	if (ok && hw_mask_has(&hw, SNDRV_PCM_HW_PARAM_FORMAT, SNDRV_PCM_FORMAT_U8)) {
		ktap_diag("U8 offered, which the DAI does not do");
		ok = 0;
	}
	ktap_result(ok, "the formats are the DAI's that a controller bus width of 1 to 4 bytes carries");
}

/* Period bytes: eight 8-byte bursts of maxburst 4 up to the controller's segment. */
static void case_period_bounds(void)
{
	struct snd_pcm_hw_params hw;
	struct snd_interval *pb, *np;
	int ok = card >= 0 && !refine_any(SNDRV_PCM_STREAM_PLAYBACK, &hw);
	/* The controller's segment size, the largest period it can signal. */
	long long seg = lab_read_num("/sys/module/vdma/parameters/max_seg_size");

	pb = hw_ival(&hw, SNDRV_PCM_HW_PARAM_PERIOD_BYTES);
	np = hw_ival(&hw, SNDRV_PCM_HW_PARAM_PERIODS);
	if (ok)
		ktap_diag("period bytes %u-%u, periods %u-%u integer %u; controller segment %lld",
			  pb->min, pb->max, np->min, np->max, np->integer, seg);
	ok = ok && pb->min == 32 && pb->max == seg && np->min == 2 && np->integer;
	ktap_result(ok, "periods are whole, at least two, of 32 bytes (8 bursts) up to the controller's segment size");
}

static void case_info(void)
{
	struct vloop_pcm p;
	int ok = card >= 0 && !vloop_pcm_open(&p, card, SNDRV_PCM_STREAM_PLAYBACK, 1);
	unsigned int want = SNDRV_PCM_INFO_PAUSE | SNDRV_PCM_INFO_RESUME |
			    SNDRV_PCM_INFO_MMAP | SNDRV_PCM_INFO_INTERLEAVED;

	if (ok) {
		ok = !vloop_pcm_setup(&p, SNDRV_PCM_FORMAT_S16_LE, 2, 48000, 1024, 4);
		ktap_diag("info 0x%x", p.info);
		ok = ok && (p.info & want) == want && !(p.info & SNDRV_PCM_INFO_BATCH);
		vloop_pcm_close(&p);
	}
	ktap_result(ok, "a pausable burst-granular controller gives an mmap-able, pausable, non-batch PCM");
}

static void case_prealloc(void)
{
	int kib = card >= 0 ? vloop_prealloc_kib(card) : -1;

	if (kib != 512)
		ktap_diag("card %d: %d KiB preallocated", card, kib);
	ktap_result(kib == 512, "each stream has the default 512 KiB buffer preallocated");
}

static long hw_ptr(struct vloop_pcm *p, int *state)
{
	struct snd_pcm_status st;

	if (vloop_pcm_status(p, &st))
		return -1;
	if (state)
		*state = st.state;
	return st.hw_ptr;
}

static void case_pause(void)
{
	struct vloop_pcm p = { .fd = -1 };
	long a = -1, b = -2, c = -3;
	int state = -1, ok = card >= 0 && !vloop_start_playback(&p, card, 4096, 8);

	if (ok) {
		lab_sleep_ms(100);
		ok = ioctl(p.fd, SNDRV_PCM_IOCTL_PAUSE, 1) == 0;
		a = hw_ptr(&p, &state);
		lab_sleep_ms(200);
		b = hw_ptr(&p, NULL);
		ok = ok && state == SNDRV_PCM_STATE_PAUSED &&
		     lab_read_key(VDMA_CHAN0, "paused") == 1;
		ok = ok && ioctl(p.fd, SNDRV_PCM_IOCTL_PAUSE, 0) == 0;
		lab_sleep_ms(150);
		c = hw_ptr(&p, NULL);
	}
	ktap_diag("pointer at pause %ld, 200 ms later %ld, 150 ms after release %ld (state %d)",
		  a, b, c, state);
	ktap_result(ok && a == b && c > b, "pause freezes the pointer and release restarts it");
	vloop_pcm_close(&p);
}

/*
 * The delay a running playback reports is what it has queued: appl_ptr -
 * hw_ptr of the same status, neither the PCM nor the DAI adding any, and
 * it falls as the pointer moves. Fails if a delay callback reports another
 * figure (the FIFO's depth, say) or the pointer stands still.
 */
static void case_delay(void)
{
	struct vloop_pcm p = { .fd = -1 };
	struct snd_pcm_status st;
	long delay[5] = { 0 }, queued = -1;
	int i, ok = card >= 0 && !vloop_start_playback(&p, card, 4096, 8);

	for (i = 0; ok && i < 5; i++) {
		lab_sleep_ms(20);
		ok = !vloop_pcm_status(&p, &st) && st.state == SNDRV_PCM_STATE_RUNNING;
		delay[i] = st.delay;
		queued = (long)(st.appl_ptr - st.hw_ptr);
		ok = ok && delay[i] == queued && (!i || delay[i] < delay[i - 1]);
	}
	ktap_diag("delay %ld, %ld, %ld, %ld, %ld frames at 20 ms steps; queued at the last %ld of %lu",
		  delay[0], delay[1], delay[2], delay[3], delay[4], queued, p.buffer);
	ktap_result(ok, "a running playback reports as its delay the frames it has queued, falling as it plays");
	vloop_pcm_close(&p);
}

static void case_xrun(void)
{
	struct vloop_pcm p = { .fd = -1 };
	int state = -1, ok = card >= 0 && !vloop_start_playback(&p, card, 1024, 2);
	char buf[1024 * 4] = "";
	long w = 0, ptr = -1;

	if (ok) {
		lab_sleep_ms(300);	/* 43 ms of buffer: long gone */
		hw_ptr(&p, &state);
		w = vloop_pcm_xfer(&p, buf, 1024);
		ok = state == SNDRV_PCM_STATE_XRUN && w == -EPIPE &&
		     !vloop_pcm_ioctl(&p, SNDRV_PCM_IOCTL_PREPARE) &&
		     vloop_pcm_xfer(&p, buf, 1024) == 1024 &&
		     vloop_pcm_xfer(&p, buf, 1024) == 1024 &&
		     !vloop_pcm_ioctl(&p, SNDRV_PCM_IOCTL_START);
		lab_sleep_ms(10);
		ptr = hw_ptr(&p, NULL);
	}
	ktap_diag("state after underrun %d, write %ld, pointer after restart %ld", state, w, ptr);
	ktap_result(ok && ptr > 0, "an underrun stops playback with EPIPE and prepare restarts it");
	vloop_pcm_close(&p);
}

static void case_drop(void)
{
	struct vloop_pcm p = { .fd = -1 };
	int state = -1, ok = card >= 0 && !vloop_start_playback(&p, card, 1024, 4);

	if (ok) {
		lab_sleep_ms(20);
		ok = !vloop_pcm_ioctl(&p, SNDRV_PCM_IOCTL_DROP);
		hw_ptr(&p, &state);
	}
	ok = ok && state == SNDRV_PCM_STATE_SETUP && lab_read_key(VDMA_CHAN0, "running") == 0;
	vloop_pcm_close(&p);
	ktap_result(ok, "drop stops the DMA transfer and returns the stream to setup");
}

static int cycle_xruns;

/*
 * Pause a stream that may have stopped already: two 64-frame periods at
 * 192 kHz last 0.7 ms, less than an ioctl can take under KASAN, and ALSA
 * answers a pause of a stream stopped by an xrun with -EBADFD. That case
 * is counted, not failed; any other refusal is an error.
 */
static int pause_if_running(struct vloop_pcm *p)
{
	int state = -1, ret;

	if (!ioctl(p->fd, SNDRV_PCM_IOCTL_PAUSE, 1))
		return 0;
	ret = -errno;
	if (ret == -EBADFD && hw_ptr(p, &state) >= 0 && state == SNDRV_PCM_STATE_XRUN) {
		cycle_xruns++;
		return 0;
	}
	return ret;
}

/* One short life of a stream, its shape and its end drawn at random. */
static int cycle(unsigned int seed)
{
	static const snd_pcm_format_t fmts[] = {
		SNDRV_PCM_FORMAT_S8, SNDRV_PCM_FORMAT_S16_LE, SNDRV_PCM_FORMAT_S24_3LE,
		SNDRV_PCM_FORMAT_S24_LE, SNDRV_PCM_FORMAT_S32_LE,
	};
	static const unsigned int rates[] = { 8000, 22050, 44100, 48000, 96000, 192000 };
	static char zero[65536 * 2];
	snd_pcm_format_t f = fmts[rand_r(&seed) % 5];
	unsigned int ch = 1 + rand_r(&seed) % 8, period = 64 << (rand_r(&seed) % 5);
	int stream = rand_r(&seed) % 2, end = rand_r(&seed) % 4;
	struct vloop_pcm p;
	int ret;

	while (period * ch * vloop_sample_bytes(f) > 65536)
		period /= 2;
	ret = vloop_pcm_open(&p, card, stream, 1);
	if (ret)
		return ret;
	ret = vloop_pcm_setup(&p, f, ch, rates[rand_r(&seed) % 6], period, 2 + rand_r(&seed) % 3);
	if (!ret && stream == SNDRV_PCM_STREAM_PLAYBACK)
		vloop_pcm_xfer(&p, zero, sizeof(zero) / p.frame_bytes);
	if (!ret && end > 0)
		ret = vloop_pcm_ioctl(&p, SNDRV_PCM_IOCTL_START);
	if (!ret && end == 2)
		ret = pause_if_running(&p);
	if (!ret && end == 3)
		ret = vloop_pcm_ioctl(&p, SNDRV_PCM_IOCTL_DROP);
	vloop_pcm_close(&p);	/* end 1 and 2: closed while running or paused */
	return ret;
}

static void case_cycles(void)
{
	int i, ret = card < 0 ? -ENODEV : 0;
	long long descs, running;

	for (i = 0; !ret && i < CYCLES; i++)
		ret = cycle(1234 + i);
	descs = lab_read_num(VDMA_DEBUGFS "/descriptors");
	running = lab_read_key(VDMA_CHAN0, "running") +
		  lab_read_key(VDMA_DEBUGFS "/chan1", "running");
	if (ret)
		ktap_diag("cycle %d: %s", i - 1, strerror(-ret));
	ktap_diag("%d cycles, %d of them stopped by an xrun before the pause; live descriptors %lld, running channels %lld",
		  i, cycle_xruns, descs, running);
	ktap_result(!ret && descs == 0 && running == 0,
		    "10,000 random open/hw_params/start/stop/close cycles leave no descriptor or transfer behind");
}

static void case_card(void)
{
	ktap_result(card >= 0, "the vloop overlay gives a card");
}

static const struct ktap_case cases[] = {
	KTAP_CASE("card", case_card),
	KTAP_CASE("formats", case_formats),
	KTAP_CASE("period-bounds", case_period_bounds),
	KTAP_CASE("info", case_info),
	KTAP_CASE("prealloc", case_prealloc),
	KTAP_CASE("pause", case_pause),
	KTAP_CASE("delay", case_delay),
	KTAP_CASE("xrun", case_xrun),
	KTAP_CASE("drop", case_drop),
	KTAP_CASE("cycles", case_cycles),
};

int main(void)
{
	int id, ret;

	/* 10,000 cycles take about 150 s under KASAN and TCG. */
	lab_watchdog(600);
	ktap_begin("dmaengine-pcm-controls", ktap_plan(KTAP_CASES(cases)));
	/* Bound here, not in "card": a case run alone (LAB_CASE) needs the card too. */
	lab_sh(NULL, 0, "modprobe vdma && modprobe vi2s");
	id = vloop_bind("vloop", &card);
	ret = ktap_run_cases(KTAP_CASES(cases));
	vloop_unbind(id);
	return ret;
}
