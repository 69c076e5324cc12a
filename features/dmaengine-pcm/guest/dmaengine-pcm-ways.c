// SPDX-License-Identifier: GPL-2.0
/*
 * dmaengine-pcm-ways: each way in-tree platforms register the generic
 * dmaengine PCM (features/dmaengine-pcm/USERS.md), run on the virtual
 * loopback. vi2s's "way" parameter picks the registration; each case binds
 * the loopback that way, then checks what a user of such a platform relies
 * on: the card appears, a stream opens, what is played reaches the I2S
 * FIFO bit-exact, capture runs, and the channels are the ones the way
 * names (vdma's debugfs). Parity: the same on upstream, except the one
 * [extension] case.
 */
#include "vloop.h"
#include "vi2s/vi2s-abi.h"

#define WAY		"/sys/module/vi2s/parameters/way"
#define CHAN_RESIDUE	"/sys/module/vdma/parameters/chan_residue"

/* One buffer of S16 stereo: what a playback check sends. */
#define PERIOD		1024
#define PERIODS		4
#define PLAY_BYTES	(PERIOD * PERIODS * 4)

struct way_run {
	int id, card;
	char why[200];
};

static void why(struct way_run *r, const char *fmt, ...)
{
	va_list ap;

	if (r->why[0])
		return;
	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
}

/* Bind the loopback from @overlay with vi2s registering the PCM @way. */
static int way_bind(struct way_run *r, const char *way, const char *overlay)
{
	memset(r, 0, sizeof(*r));
	r->card = -1;
	lab_sh(NULL, 0, "echo %s > " WAY, way);
	r->id = vloop_bind(overlay, &r->card);
	if (r->card < 0)
		why(r, "overlay %s: id %d, no card", overlay, r->id);
	return r->card >= 0;
}

static void way_unbind(struct way_run *r)
{
	vloop_unbind(r->id);
	lab_sh(NULL, 0, "echo default > " WAY);
	if (r->why[0])
		ktap_diag("%s", r->why);
}

static int chan_in_use(int chan)
{
	return (int)vloop_chan_key(chan, "in_use");
}

/*
 * Start @p's playback and, once the I2S receiver has recorded @want bytes
 * (3 s at most), read them into @got; *@n: what the read gave. 0 or the
 * -errno of the start.
 */
static int start_recorded(struct vloop_pcm *p, long long want, uint8_t *got, size_t size,
			  int *n)
{
	double end = lab_now() + 3;
	int ret = vloop_pcm_ioctl(p, SNDRV_PCM_IOCTL_START);

	for (; !ret && lab_now() < end; lab_sleep_ms(20))
		if (lab_read_key(VI2S_DEBUGFS "/fifo", "recorded") >= want)
			break;
	if (!ret)
		*n = lab_read(VI2S_DEBUGFS "/received", (char *)got, size);
	return ret;
}

/*
 * Play one buffer of a test signal and compare what the I2S receiver
 * recorded with it, each byte XORed with @key (what a process hook does to
 * it; 0: nothing): the DMA was given the right buffer, FIFO address (vdma
 * refuses any other) and bus width.
 */
static int play_checked_key(struct way_run *r, uint8_t key)
{
	static uint8_t out[PLAY_BYTES], got[65536 + 1];
	struct vloop_pcm p;
	int k, ret, n = -1;

	for (k = 0; k < PLAY_BYTES / 2; k++)
		vloop_put_sample(out + 2 * k, vloop_signal(k, 16), 2);
	ret = vloop_pcm_open(&p, r->card, SNDRV_PCM_STREAM_PLAYBACK, 1);
	if (!ret)
		ret = vloop_pcm_setup(&p, SNDRV_PCM_FORMAT_S16_LE, 2, 48000, PERIOD, PERIODS);
	if (!ret)
		ret = vloop_pcm_xfer(&p, out, PERIOD * PERIODS) == PERIOD * PERIODS ? 0 : -EIO;
	if (!ret)
		ret = start_recorded(&p, PLAY_BYTES, got, sizeof(got), &n);
	vloop_pcm_close(&p);
	for (k = 0; k < PLAY_BYTES; k++)
		out[k] ^= key;
	if (ret)
		why(r, "playback open/setup/start: %s", strerror(-ret));
	else if (n < PLAY_BYTES || memcmp(got, out, PLAY_BYTES))
		why(r, "the receiver recorded %d bytes, %s", n,
		    n < PLAY_BYTES ? "fewer than played" : "not the signal");
	return !ret && n >= PLAY_BYTES && !memcmp(got, out, PLAY_BYTES);
}

static int play_checked(struct way_run *r)
{
	return play_checked_key(r, 0);
}

/* Bytes of @buf other than @want; 0 when @want is -1 (any data). */
static long bytes_not(const uint8_t *buf, long len, int want)
{
	long i, bad = 0;

	for (i = 0; want >= 0 && i < len; i++)
		bad += buf[i] != want;
	return bad;
}

/*
 * Start a capture and read at least two periods from it; with @want >= 0
 * every byte read must be @want (what a capture of the idle line, silence,
 * becomes through a process hook).
 */
static int capture_reads(struct way_run *r, int want)
{
	static uint8_t in[PERIOD * PERIODS * 4];
	struct vloop_pcm p;
	long n, total = 0, bad = 0;
	double end;
	int ret = vloop_pcm_open(&p, r->card, SNDRV_PCM_STREAM_CAPTURE, 1);

	if (!ret)
		ret = vloop_pcm_setup(&p, SNDRV_PCM_FORMAT_S16_LE, 2, 48000, PERIOD, PERIODS);
	if (!ret)
		ret = vloop_pcm_ioctl(&p, SNDRV_PCM_IOCTL_START);
	for (end = lab_now() + 3; !ret && total < 2 * PERIOD && lab_now() < end;
	     lab_sleep_ms(10)) {
		n = vloop_pcm_xfer(&p, in, PERIOD * PERIODS);
		if (n > 0) {
			total += n;
			bad += bytes_not(in, n * 4, want);
		} else if (n != -EAGAIN) {
			ret = (int)n;
		}
	}
	vloop_pcm_close(&p);
	if (ret || total < 2 * PERIOD)
		why(r, "capture: %s, %ld frames", ret ? strerror(-ret) : "ok", total);
	else if (bad)
		why(r, "capture: %ld of %ld bytes not 0x%02x", bad, total * 4, want);
	return !ret && total >= 2 * PERIOD && !bad;
}

static int capture_runs(struct way_run *r)
{
	return capture_reads(r, -1);
}

/* Formats the open playback stream offers, before hw_params. */
static int offers_format(struct way_run *r, snd_pcm_format_t f)
{
	struct snd_pcm_hw_params hw;
	struct vloop_pcm p;
	int has = -1;

	if (vloop_pcm_open(&p, r->card, SNDRV_PCM_STREAM_PLAYBACK, 1))
		return -errno;
	hw_any(&hw);
	if (!ioctl(p.fd, SNDRV_PCM_IOCTL_HW_REFINE, &hw))
		has = hw_mask_has(&hw, SNDRV_PCM_HW_PARAM_FORMAT, f);
	vloop_pcm_close(&p);
	return has;
}

/*
 * The platform's own snd_pcm_hardware (S16 and S32 only, where vdma's caps
 * would also give S8 and 24-bit) with DMA data the DAI sets in its
 * .startup, which runs after the PCM's open, or never sets.
 */
static void case_platform_hardware(const char *way, const char *name)
{
	struct way_run r;
	int s8 = -1, s16 = -1, played = 0, captured = 0;

	if (way_bind(&r, way, "vloop")) {
		s8 = offers_format(&r, SNDRV_PCM_FORMAT_S8);
		s16 = offers_format(&r, SNDRV_PCM_FORMAT_S16_LE);
		played = play_checked(&r);
		captured = capture_runs(&r);
	}
	ktap_diag("%s: S8 offered %d, S16 offered %d, played %d, captured %d", way, s8, s16,
		  played, captured);
	way_unbind(&r);
	ktap_result(s8 == 0 && s16 == 1 && played && captured, name);
}

static void case_prealloc(void)
{
	struct way_run r;
	int kib = -1, played = 0;

	if (way_bind(&r, "prealloc", "vloop")) {
		kib = vloop_prealloc_kib(r.card);
		played = play_checked(&r);
	}
	ktap_diag("preallocated %d KiB, played %d", kib, played);
	way_unbind(&r);
	ktap_result(kib == 128 && played,
		    "config->prealloc_buffer_size is the buffer preallocated per stream");
}

static void case_names(void)
{
	char comps[4096] = "";
	struct way_run r;
	int played = 0, captured = 0;

	if (way_bind(&r, "names", "vloop-names")) {
		lab_read("/sys/kernel/debug/asoc/components", comps, sizeof(comps));
		played = play_checked(&r);
		captured = capture_runs(&r);
	}
	ktap_diag("component \"vi2s-dma\" %s, played %d, captured %d",
		  strstr(comps, "vi2s-dma") ? "listed" : "absent", played, captured);
	way_unbind(&r);
	ktap_result(strstr(comps, "vi2s-dma") && played && captured,
		    "config->chan_names finds channels \"play\"/\"rec\" and config->name names the component");
}

/* Which vdma channels are held, as a string of 0/1 for channels 0..7. */
static void chans_held(char *out)
{
	int i;

	for (i = 0; i < 8; i++)
		out[i] = chan_in_use(i) == 1 ? '1' : '0';
	out[8] = 0;
}

/*
 * A way that finds its channels elsewhere than "tx"/"rx" of the node
 * (channels 0 and 1) must hold exactly @want and move data through them.
 */
static void case_channels(const char *way, const char *overlay, const char *want,
			  const char *name)
{
	struct way_run r;
	char held[9] = "?";
	int played = 0, captured = 0;

	if (way_bind(&r, way, overlay)) {
		chans_held(held);
		played = play_checked(&r);
		captured = capture_runs(&r);
	}
	ktap_diag("%s: channels held %s (want %s), played %d, captured %d", way, held, want,
		  played, captured);
	way_unbind(&r);
	ktap_result(!strcmp(held, want) && played && captured, name);
}

static void case_multi_cpu(void)
{
	struct way_run r;
	struct vloop_pcm p;
	int ret = 0;

	if (way_bind(&r, "multi-cpu", "vloop")) {
		ret = vloop_pcm_open(&p, r.card, SNDRV_PCM_STREAM_PLAYBACK, 1);
		if (!ret)
			vloop_pcm_close(&p);
	}
	ktap_diag("open of the playback stream: %s", ret ? strerror(-ret) : "succeeded");
	way_unbind(&r);
	ktap_result(ret == -EINVAL, "a link with two CPU DAIs is refused at open with EINVAL");
}

/*
 * Pointer positions seen over @seconds of a started stream: how many
 * distinct ones, and how many fell inside a period. Capture is read as it
 * goes so it runs the whole time.
 */
static void pointer_walk(struct vloop_pcm *p, double seconds, int *samples, int *inside)
{
	static uint8_t sink[PERIOD * 8 * 4];
	struct snd_pcm_status st;
	long last = -1;
	double end;

	*samples = *inside = 0;
	for (end = lab_now() + seconds; lab_now() < end; lab_sleep_ms(2)) {
		if (p->stream == SNDRV_PCM_STREAM_CAPTURE)
			vloop_pcm_xfer(p, sink, p->buffer);
		if (vloop_pcm_status(p, &st) || (long)st.hw_ptr == last)
			continue;
		last = st.hw_ptr;
		(*samples)++;
		*inside += last % PERIOD != 0;
	}
}

static int start_capture(struct vloop_pcm *p, int card)
{
	int ret = vloop_pcm_open(p, card, SNDRV_PCM_STREAM_CAPTURE, 1);

	if (!ret)
		ret = vloop_pcm_setup(p, SNDRV_PCM_FORMAT_S16_LE, 2, 48000, PERIOD, 8);
	return ret ? ret : vloop_pcm_ioctl(p, SNDRV_PCM_IOCTL_START);
}

/* Whether a started stream says BATCH, and where its pointer stops. */
struct walk {
	int batch, samples, inside;
};

static void walk_stream(struct vloop_pcm *p, int start_err, double seconds, struct walk *w)
{
	w->batch = -1;
	w->samples = w->inside = 0;
	if (start_err)
		return;
	w->batch = !!(p->info & SNDRV_PCM_INFO_BATCH);
	pointer_walk(p, seconds, &w->samples, &w->inside);
}

/*
 * Playback on a channel with residue per burst, capture on one that only
 * reports whole descriptors, registered @way: both streams' BATCH flag and
 * pointer walks.
 */
static void walk_split_controller(const char *way, struct walk *play, struct walk *cap)
{
	struct vloop_pcm p = { .fd = -1 };
	struct way_run r;

	lab_sh(NULL, 0, "echo 2,0 > " CHAN_RESIDUE);
	play->batch = cap->batch = -1;
	if (way_bind(&r, way, "vloop")) {
		walk_stream(&p, start_capture(&p, r.card), 0.4, cap);
		vloop_pcm_close(&p);
		walk_stream(&p, vloop_start_playback(&p, r.card, PERIOD, 8), 0.15, play);
		vloop_pcm_close(&p);
	}
	way_unbind(&r);
	lab_sh(NULL, 0, "echo -1,-1 > " CHAN_RESIDUE);
	ktap_diag("%s: capture batch %d, %d positions, %d inside a period", way,
		  cap->batch, cap->samples, cap->inside);
	ktap_diag("%s: playback batch %d, %d positions, %d inside a period", way,
		  play->batch, play->samples, play->inside);
}

/* 6.12: one channel without a residue makes the whole PCM count periods. */
static void case_residue_shared(void)
{
	struct walk play, cap;

	walk_split_controller("default", &play, &cap);
	ktap_result(cap.batch == 1 && cap.samples > 2 && cap.inside == 0 &&
		    play.batch == 1 && play.samples > 2 && play.inside == 0,
		    "a capture channel with residue per descriptor makes both streams batch, counting whole periods");
}

/* The opt-in: only the stream whose channel lacks a residue counts periods. */
static void case_residue_per_stream(void)
{
	const char *name = "[extension] with FLAG_RESIDUE_PER_STREAM the playback stream of that PCM reports positions within periods";
	struct walk play, cap;

	if (!ktap_extension(name))
		return;
	walk_split_controller("residue-split", &play, &cap);
	ktap_result(cap.batch == 1 && cap.inside == 0 &&
		    play.batch == 0 && play.samples > 2 && play.inside > 0, name);
}

static void case_hw_startup(void)
{
	case_platform_hardware("hw-startup",
			       "own snd_pcm_hardware, DMA data set in the DAI's .startup: open, play and capture work");
}

static void case_hw_never(void)
{
	case_platform_hardware("hw-never",
			       "own snd_pcm_hardware and slave config, no DMA data ever: open, play and capture work");
}

static void case_dma_dev(void)
{
	case_channels("dma-dev", "vloop-dmadev", "00000011",
		      "config->dma_dev takes the channels from the other device's node");
}

static void case_compat(void)
{
	case_channels("compat", "vloop", "00001100",
		      "NO_DT | COMPAT with compat_request_channel and DMA data set only in .startup: channels from the hook, not the node");
}

static void case_filter(void)
{
	case_channels("filter", "vloop", "00110000",
		      "NO_DT | COMPAT with compat_filter_fn: channels from the filter and the DAI's filter_data, not the node");
}

static void case_half_duplex(void)
{
	case_channels("half-duplex", "vloop-halfduplex", "10000000",
		      "HALF_DUPLEX: one \"rx-tx\" channel serves playback and capture");
}

/*
 * The channel of each stream, as vi2s/pcm_chans reads it through
 * soc_component_to_pcm(): "0,1" for dma?chan0 and dma?chan1, "-" for none.
 */
static void chans_by_lookup(char *out, size_t size)
{
	char buf[256], *line, *save = NULL;
	int play = -1, cap = -1;

	snprintf(out, size, "?");
	if (lab_read(VI2S_DEBUGFS "/pcm_chans", buf, sizeof(buf)) <= 0)
		return;
	/* One line per stream; a stream without a channel reads "-". */
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "playback: dma%*uchan%d", &play) == 1 ||
		    sscanf(line, "capture: dma%*uchan%d", &cap) == 1)
			continue;
	}
	snprintf(out, size, "%d,%d", play, cap);
}

/*
 * fsl_asrc_dma reuses the back end's channel: it finds the generic PCM by
 * its driver name and reads chan[stream]. That must be the stream's own
 * channel, and with HALF_DUPLEX the one channel for both.
 */
static void case_chans_by_component(void)
{
	char plain[16] = "?", half[16] = "?";
	struct way_run r;

	if (way_bind(&r, "default", "vloop"))
		chans_by_lookup(plain, sizeof(plain));
	way_unbind(&r);
	if (way_bind(&r, "half-duplex", "vloop-halfduplex"))
		chans_by_lookup(half, sizeof(half));
	way_unbind(&r);
	ktap_diag("chan[] by component lookup: plain %s (want 0,1), half duplex %s (want 0,0)",
		  plain, half);
	ktap_result(!strcmp(plain, "0,1") && !strcmp(half, "0,0"),
		    "another driver finding the PCM by its driver name reads each stream's channel in chan[] (fsl_asrc_dma)");
}

/*
 * mchp-pdmc and stm32_sai_sub process the data in the DMA buffer: with
 * config->process every read and write goes through the PCM's .copy,
 * which calls the hook on exactly the bytes it moved. vi2s's hook XORs a
 * key of its own per direction (vi2s/vi2s-abi.h): the capture of the idle line
 * (silence) must read the capture key in every byte, and the receiver must
 * record the played signal with the playback key in every byte. A hook
 * skipped, run twice or run on other bytes leaves some byte otherwise.
 * The capture runs first, on an empty FIFO.
 */
static void case_process(void)
{
	struct way_run r;
	int captured = 0, played = 0;

	if (way_bind(&r, "process", "vloop")) {
		captured = capture_reads(&r, VI2S_PROCESS_CAPTURE);
		played = play_checked_key(&r, VI2S_PROCESS_PLAY);
	}
	ktap_diag("process: capture all 0x%02x %d, playback recorded with 0x%02x %d",
		  VI2S_PROCESS_CAPTURE, captured, VI2S_PROCESS_PLAY, played);
	way_unbind(&r);
	ktap_result(captured && played,
		    "config->process runs once on every byte read and written, through .copy");
}

/* One buffer of S16 stereo, non-interleaved, the size play_checked_key() plays. */
#define NI_FRAMES	(PERIOD * PERIODS)
#define NI_BYTES	(NI_FRAMES * 4)

static int ni_open(struct way_run *r, struct vloop_pcm *p, int stream)
{
	int ret = vloop_pcm_open(p, r->card, stream, 1);

	if (!ret)
		ret = vloop_pcm_setup_access(p, SNDRV_PCM_ACCESS_RW_NONINTERLEAVED,
					     SNDRV_PCM_FORMAT_S16_LE, 2, 48000, PERIOD, PERIODS);
	if (ret)
		why(r, "%s open/setup in non-interleaved access: %s",
		    stream ? "capture" : "playback", strerror(-ret));
	return ret;
}

/*
 * A capture of the idle line, non-interleaved: every byte of both
 * channels' buffers must be the capture key.
 */
static int ni_capture_keyed(struct way_run *r)
{
	static uint8_t ch[2][NI_FRAMES * 2];
	void *bufs[2] = { ch[0], ch[1] };
	long n, total = 0, bad = 0;
	struct vloop_pcm p;
	double end;
	int ret = ni_open(r, &p, SNDRV_PCM_STREAM_CAPTURE);

	if (!ret)
		ret = vloop_pcm_ioctl(&p, SNDRV_PCM_IOCTL_START);
	for (end = lab_now() + 3; !ret && total < 2 * PERIOD && lab_now() < end; lab_sleep_ms(10)) {
		n = vloop_pcm_xfern(&p, bufs, NI_FRAMES);
		if (n > 0) {
			total += n;
			bad += bytes_not(ch[0], n * 2, VI2S_PROCESS_CAPTURE) +
			       bytes_not(ch[1], n * 2, VI2S_PROCESS_CAPTURE);
		} else if (n != -EAGAIN) {
			ret = (int)n;
		}
	}
	vloop_pcm_close(&p);
	if (ret || total < 2 * PERIOD || bad)
		why(r, "non-interleaved capture: %s, %ld frames, %ld bytes not 0x%02x",
		    ret ? strerror(-ret) : "ok", total, bad, VI2S_PROCESS_CAPTURE);
	return !ret && total >= 2 * PERIOD && !bad;
}

/*
 * Play one buffer non-interleaved: channel 0 the signal's even samples,
 * channel 1 its odd ones. The DMA buffer holds channel 0's block, then
 * channel 1's, so the receiver must record them in that order, every
 * byte XORed with the playback key.
 */
static int ni_play_keyed(struct way_run *r)
{
	static uint8_t ch[2][NI_FRAMES * 2], want[NI_BYTES], got[65536 + 1];
	void *bufs[2] = { ch[0], ch[1] };
	struct vloop_pcm p;
	int k, c, n = -1, ret;

	for (k = 0; k < NI_FRAMES; k++)
		for (c = 0; c < 2; c++)
			vloop_put_sample(ch[c] + 2 * k, vloop_signal(2 * k + c, 16), 2);
	for (k = 0; k < NI_BYTES; k++)
		want[k] = ch[k / (NI_BYTES / 2)][k % (NI_BYTES / 2)] ^ VI2S_PROCESS_PLAY;
	ret = ni_open(r, &p, SNDRV_PCM_STREAM_PLAYBACK);
	if (!ret)
		ret = vloop_pcm_xfern(&p, bufs, NI_FRAMES) == NI_FRAMES ? 0 : -EIO;
	if (!ret)
		ret = start_recorded(&p, NI_BYTES, got, sizeof(got), &n);
	vloop_pcm_close(&p);
	for (k = 0; n >= NI_BYTES && k < NI_BYTES && got[k] == want[k]; k++)
		;
	if (ret || n < NI_BYTES || k < NI_BYTES)
		why(r, "non-interleaved playback: %s, recorded %d bytes, first wrong at byte %d of %d",
		    ret ? strerror(-ret) : "ok", n, k, NI_BYTES);
	return !ret && n >= NI_BYTES && k == NI_BYTES;
}

/*
 * The hook's channel offset. Only non-interleaved access calls .copy and
 * the hook with a channel other than 0: each channel's bytes sit in a
 * block of their own (dma_bytes / channels) of the DMA buffer, and both
 * must find the block from the channel number. A copy that ignores the
 * channel writes channel 1 over channel 0's block (which the hook then
 * XORs twice) and leaves the other block stale; a hook that ignores it
 * leaves channel 1's bytes unkeyed. Capture first, on an idle line.
 */
static void case_process_noninterleaved(void)
{
	int captured = 0, played = 0;
	struct way_run r;

	if (way_bind(&r, "process-ni", "vloop")) {
		captured = ni_capture_keyed(&r);
		played = ni_play_keyed(&r);
	}
	ktap_diag("process-ni: capture all 0x%02x %d, playback recorded block by block with 0x%02x %d",
		  VI2S_PROCESS_CAPTURE, captured, VI2S_PROCESS_PLAY, played);
	way_unbind(&r);
	ktap_result(captured && played,
		    "config->process in non-interleaved access runs on each channel's own block of the DMA buffer");
}

#define VI2S_DRIVER	"/sys/bus/platform/drivers/vi2s"
#define VI2S_DEVICE	"vi2s"	/* the vloop overlay's controller node */

/* Unbind (@bind 0) or bind the vi2s controller from its driver; 0 or -errno. */
static int vi2s_driver_op(int bind)
{
	return lab_write(bind ? VI2S_DRIVER "/bind" : VI2S_DRIVER "/unbind", VI2S_DEVICE);
}

/*
 * stm32_i2s, tegra_pcm, ux500_pcm and others register the PCM without
 * devm and call snd_dmaengine_pcm_unregister() in their remove. It must
 * find the PCM by the device alone and release its channels, so that the
 * controller binds again: held 11000000 while bound, 00000000 once the
 * controller alone is unbound (the DMA controller stays), 11000000 and a
 * bit-exact playback after it is bound again. A remove that leaves the
 * PCM registered keeps both channels held. (vi2s registers this way's PCM
 * before its DAI, as stm32_i2s does: with the DAI first, the waiting card
 * binds to the DAI alone and the PCM does not open, on 6.12 as on ours.)
 */
static void case_non_devm(void)
{
	char bound[9] = "?", unbound[9] = "?", again[9] = "?";
	int played = 0, replayed = 0, unbind = -1, bind = -1;
	struct way_run r;

	if (way_bind(&r, "non-devm", "vloop")) {
		chans_held(bound);
		played = play_checked(&r);
		unbind = vi2s_driver_op(0);
		if (!unbind && vloop_wait_no_card(10))
			chans_held(unbound);
		bind = unbind ? -1 : vi2s_driver_op(1);
		r.card = bind ? -1 : vloop_wait_card(20);
		if (r.card >= 0) {
			chans_held(again);
			replayed = play_checked(&r);
		}
	}
	ktap_diag("non-devm: held %s, played %d; controller unbound (%d): held %s; bound again (%d): held %s, played %d",
		  bound, played, unbind, unbound, bind, again, replayed);
	way_unbind(&r);
	ktap_result(!strcmp(bound, "11000000") && played && !strcmp(unbound, "00000000") &&
		    !strcmp(again, "11000000") && replayed,
		    "snd_dmaengine_pcm_unregister() in remove releases both channels, and the controller binds and plays again");
}

/* Each case binds the loopback its own way and unbinds it: none needs another. */
static const struct ktap_case cases[] = {
	KTAP_CASE("hw-startup", case_hw_startup),
	KTAP_CASE("hw-never", case_hw_never),
	KTAP_CASE("prealloc", case_prealloc),
	KTAP_CASE("names", case_names),
	KTAP_CASE("dma-dev", case_dma_dev),
	KTAP_CASE("compat", case_compat),
	KTAP_CASE("filter", case_filter),
	KTAP_CASE("half-duplex", case_half_duplex),
	KTAP_CASE("chans-by-component", case_chans_by_component),
	KTAP_CASE("process", case_process),
	KTAP_CASE("process-noninterleaved", case_process_noninterleaved),
	KTAP_CASE("non-devm", case_non_devm),
	KTAP_CASE("multi-cpu", case_multi_cpu),
	KTAP_CASE("residue-shared", case_residue_shared),
	KTAP_CASE("residue-per-stream", case_residue_per_stream),
};

int main(void)
{
	lab_watchdog(300);
	ktap_begin("dmaengine-pcm-ways", ktap_plan(KTAP_CASES(cases)));
	lab_sh(NULL, 0, "modprobe vdma && modprobe vi2s");
	return ktap_run_cases(KTAP_CASES(cases));
}
