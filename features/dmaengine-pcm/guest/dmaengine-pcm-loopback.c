// SPDX-License-Identifier: GPL-2.0
/*
 * dmaengine-pcm-loopback: data through the generic dmaengine PCM, bit-exact.
 *
 * The vloop overlay puts a virtual I2S controller in digital loopback behind
 * two channels of the virtual DMA controller. Each case captures while it
 * plays a pseudo-random signal and requires the capture, from the first
 * non-silent frame on, to be exactly the signal: no sample lost, repeated,
 * shifted or altered, across formats (bus widths 1 to 4 bytes), channel
 * counts, rates and period sizes. Parity: the same on upstream.
 */
#include "vloop.h"

struct loop_case {
	snd_pcm_format_t format;
	unsigned int channels, rate, period, periods;
	unsigned int lead_us;	/* capture runs this long alone first */
};

static const struct loop_case cases[] = {
	{ SNDRV_PCM_FORMAT_S16_LE, 2, 48000, 1024, 8, 0 },
	{ SNDRV_PCM_FORMAT_S16_LE, 1, 48000, 1024, 8, 0 },
	{ SNDRV_PCM_FORMAT_S16_LE, 8, 48000, 1024, 8, 0 },
	{ SNDRV_PCM_FORMAT_S24_LE, 1, 48000, 1024, 8, 0 },
	{ SNDRV_PCM_FORMAT_S24_LE, 2, 48000, 1024, 8, 0 },
	{ SNDRV_PCM_FORMAT_S24_LE, 8, 48000, 1024, 8, 0 },
	{ SNDRV_PCM_FORMAT_S32_LE, 1, 48000, 1024, 8, 0 },
	{ SNDRV_PCM_FORMAT_S32_LE, 2, 48000, 1024, 8, 0 },
	{ SNDRV_PCM_FORMAT_S32_LE, 8, 48000, 1024, 8, 0 },
	{ SNDRV_PCM_FORMAT_S8, 2, 48000, 1024, 8, 0 },
	{ SNDRV_PCM_FORMAT_S24_3LE, 2, 48000, 1024, 8, 0 },
	{ SNDRV_PCM_FORMAT_S16_LE, 2, 8000, 256, 8, 0 },
	{ SNDRV_PCM_FORMAT_S16_LE, 2, 11025, 256, 8, 0 },
	{ SNDRV_PCM_FORMAT_S16_LE, 2, 44100, 1024, 8, 0 },
	{ SNDRV_PCM_FORMAT_S16_LE, 2, 96000, 2048, 8, 0 },
	{ SNDRV_PCM_FORMAT_S16_LE, 2, 192000, 4096, 8, 0 },
	{ SNDRV_PCM_FORMAT_S32_LE, 8, 192000, 2048, 8, 0 },
	{ SNDRV_PCM_FORMAT_S16_LE, 2, 48000, 64, 128, 0 },
	{ SNDRV_PCM_FORMAT_S16_LE, 2, 48000, 256, 32, 0 },
	{ SNDRV_PCM_FORMAT_S16_LE, 2, 48000, 4096, 2, 0 },
	{ SNDRV_PCM_FORMAT_S16_LE, 2, 48000, 8192, 3, 0 },
	/*
	 * Capture running alone first reads an idle line for a few of the
	 * controller's ticks (half a period each); the FIFO completes the
	 * receiver's frame with silence before the playback's first sample,
	 * so the played signal still starts on a frame boundary.
	 */
	{ SNDRV_PCM_FORMAT_S16_LE, 2, 48000, 256, 8, 7310 },
	{ SNDRV_PCM_FORMAT_S24_3LE, 2, 48000, 256, 8, 9730 },
	{ SNDRV_PCM_FORMAT_S32_LE, 8, 48000, 256, 8, 12150 },
};

#define PLAY_SECONDS	0.4

struct loop_run {
	struct vloop_pcm play, cap;
	uint8_t *out, *in;
	size_t out_frames, in_frames, in_cap;
	size_t written;
	char why[160];
};

static void fill_signal(uint8_t *buf, size_t frames, const struct vloop_pcm *p)
{
	int bytes = vloop_sample_bytes(p->format), bits = vloop_sample_bits(p->format);
	size_t k, n = frames * p->channels;

	for (k = 0; k < n; k++)
		vloop_put_sample(buf + k * bytes, vloop_signal(k, bits), bytes);
}

/* First captured frame with any non-zero byte, or in_frames. */
static size_t onset(const struct loop_run *r)
{
	size_t i, fb = r->cap.frame_bytes, j;

	for (i = 0; i < r->in_frames; i++)
		for (j = 0; j < fb; j++)
			if (r->in[i * fb + j])
				return i;
	return r->in_frames;
}

/* Samples of the capture after the onset that differ from what was played. */
static long mismatches(struct loop_run *r)
{
	size_t start = onset(r), k, n = r->out_frames * r->play.channels;
	int bytes = vloop_sample_bytes(r->play.format), bits = vloop_sample_bits(r->play.format);
	const uint8_t *in;
	long bad = 0;

	if (r->in_frames - start < r->out_frames) {
		snprintf(r->why, sizeof(r->why), "captured %zu frames after the onset at %zu, played %zu",
			 r->in_frames - start, start, r->out_frames);
		return -1;
	}
	in = r->in + start * r->cap.frame_bytes;
	for (k = 0; k < n; k++) {
		if (vloop_get_sample(in + k * bytes, bytes, bits) == vloop_signal(k, bits))
			continue;
		if (!bad++)
			snprintf(r->why, sizeof(r->why), "first mismatch at sample %zu: got %d, want %d",
				 k, vloop_get_sample(in + k * bytes, bytes, bits), vloop_signal(k, bits));
	}
	return bad;
}

/* One step of the duplex loop: feed playback, drain capture. */
static int pump(struct loop_run *r)
{
	long n;

	if (r->written < r->out_frames) {
		n = vloop_pcm_xfer(&r->play, r->out + r->written * r->play.frame_bytes,
				   r->out_frames - r->written);
		if (n >= 0)
			r->written += n;
		else if (n == -EPIPE && r->written < r->out_frames)
			return snprintf(r->why, sizeof(r->why), "playback xrun after %zu frames", r->written), -EPIPE;
		else if (n != -EAGAIN)
			return snprintf(r->why, sizeof(r->why), "playback write: %s", strerror(-n)), (int)n;
	}
	n = vloop_pcm_xfer(&r->cap, r->in + r->in_frames * r->cap.frame_bytes,
			   r->in_cap - r->in_frames);
	if (n >= 0)
		r->in_frames += n;
	else if (n == -EPIPE)
		return snprintf(r->why, sizeof(r->why), "capture overrun after %zu frames", r->in_frames), -EPIPE;
	else if (n != -EAGAIN)
		return snprintf(r->why, sizeof(r->why), "capture read: %s", strerror(-n)), (int)n;
	return 0;
}

/* Capture until the whole signal (and its lead-in) has come back. */
static int run_duplex(struct loop_run *r, unsigned int lead_us, double deadline)
{
	struct pollfd pfd[2] = { { r->play.fd, POLLOUT, 0 }, { r->cap.fd, POLLIN, 0 } };
	long pre = vloop_pcm_xfer(&r->play, r->out, r->play.buffer);
	int ret;

	if (pre < 0)
		return snprintf(r->why, sizeof(r->why), "prefill: %s", strerror(-pre)), (int)pre;
	r->written = pre;
	ret = vloop_pcm_ioctl(&r->cap, SNDRV_PCM_IOCTL_START);
	if (!ret && lead_us)
		usleep(lead_us);
	if (!ret)
		ret = vloop_pcm_ioctl(&r->play, SNDRV_PCM_IOCTL_START);
	if (ret)
		return snprintf(r->why, sizeof(r->why), "start: %s", strerror(-ret)), ret;

	while (vloop_now() < deadline && r->in_frames < r->in_cap) {
		if (r->written >= r->out_frames && onset(r) + r->out_frames <= r->in_frames)
			return 0;
		ret = pump(r);
		if (ret)
			return ret;
		poll(pfd, 2, 5);
	}
	return 0;
}

/*
 * Open and set up both streams of @c and the buffers: the signal to play
 * (at least @out_frames, at least one playback buffer) and room for
 * @in_cap captured frames, or 3 signals and a second when 0.
 */
static int loop_start(struct loop_run *r, int card, const struct loop_case *c,
		      size_t out_frames, size_t in_cap)
{
	int ret = vloop_pcm_open(&r->cap, card, SNDRV_PCM_STREAM_CAPTURE, 1);

	if (!ret)
		ret = vloop_pcm_open(&r->play, card, SNDRV_PCM_STREAM_PLAYBACK, 1);
	if (!ret)
		ret = vloop_pcm_setup(&r->cap, c->format, c->channels, c->rate, c->period, c->periods);
	if (!ret)
		ret = vloop_pcm_setup(&r->play, c->format, c->channels, c->rate, c->period, c->periods);
	if (ret)
		return snprintf(r->why, sizeof(r->why), "open/hw_params: %s", strerror(-ret)), ret;
	r->out_frames = out_frames > r->play.buffer ? out_frames : r->play.buffer;
	r->in_cap = in_cap ? in_cap : r->out_frames * 3 + c->rate;
	r->out = malloc(r->out_frames * r->play.frame_bytes);
	r->in = calloc(r->in_cap, r->cap.frame_bytes);
	if (!r->out || !r->in)
		return -ENOMEM;
	fill_signal(r->out, r->out_frames, &r->play);
	return 0;
}

static void loop_end(struct loop_run *r)
{
	vloop_pcm_close(&r->play);
	vloop_pcm_close(&r->cap);
	free(r->out);
	free(r->in);
}

static long loop_once(int card, const struct loop_case *c, char *why, size_t whylen)
{
	struct loop_run r = { .play.fd = -1, .cap.fd = -1 };
	long ret = loop_start(&r, card, c, (size_t)(c->rate * PLAY_SECONDS), 0);

	if (!ret)
		ret = run_duplex(&r, c->lead_us, vloop_now() + 20 + 10 * PLAY_SECONDS);
	if (!ret)
		ret = mismatches(&r);
	snprintf(why, whylen, "%s", r.why);
	loop_end(&r);
	return ret;
}

/*
 * An xrun means this program was not scheduled in time (TCG on a shared
 * host can stall a virtual CPU for longer than a buffer lasts): the case is
 * run again, a few times at most. Wrong data is never retried.
 */
#define XRUN_ATTEMPTS	3

static long loop(int card, const struct loop_case *c, char *why, size_t whylen)
{
	long bad = -1;
	int attempt;

	for (attempt = 1; card >= 0 && attempt <= XRUN_ATTEMPTS; attempt++) {
		bad = loop_once(card, c, why, whylen);
		if (bad != -EPIPE)
			break;
		ktap_diag("attempt %d: %s", attempt, why);
	}
	return bad;
}

static void case_loopback(int card, const struct loop_case *c)
{
	char name[160], why[160] = "";
	long bad = loop(card, c, why, sizeof(why));

	if (c->lead_us)
		snprintf(name, sizeof(name), "%s %u ch at %u Hz, capture started %.2f ms before playback, loops back bit-exact from a frame boundary",
			 vloop_format_name(c->format), c->channels, c->rate, c->lead_us / 1000.0);
	else
		snprintf(name, sizeof(name), "%s %u ch at %u Hz in %u x %u-frame periods loops back bit-exact",
			 vloop_format_name(c->format), c->channels, c->rate, c->periods, c->period);
	if (bad)
		ktap_diag("%ld mismatched samples (or error): %s; FIFO dropped %lld, silence %lld",
			  bad, why, vloop_stat(VI2S_DEBUGFS "/fifo", "dropped"),
			  vloop_stat(VI2S_DEBUGFS "/fifo", "silence"));
	ktap_result(bad == 0, name);
}

/* What the receiver recorded is what the playback DMA read from the buffer. */
static void case_receiver_recorded_the_playback(int card)
{
	static const struct loop_case c = { SNDRV_PCM_FORMAT_S16_LE, 2, 48000, 1024, 8, 0 };
	char why[160] = "", rec[8192];
	struct vloop_pcm p;
	uint8_t want[8192];
	int n = -1;

	if (card >= 0 && !loop(card, &c, why, sizeof(why))) {
		n = vloop_read_file(VI2S_DEBUGFS "/received", rec, sizeof(rec));
		p.format = c.format;
		p.channels = c.channels;
		fill_signal(want, sizeof(want) / 4, &p);
	}
	if (n < (int)sizeof(rec) - 1)
		ktap_diag("recorded %d bytes (%s)", n, why);
	ktap_result(n == sizeof(rec) - 1 && !memcmp(rec, want, n),
		    "the I2S receiver recorded exactly the samples the playback DMA sent");
}

/* The channel was programmed from hw_params: bus width, burst, rate. */
static void case_slave_config(int card)
{
	static const struct { snd_pcm_format_t f; int width; } widths[] = {
		{ SNDRV_PCM_FORMAT_S8, 1 }, { SNDRV_PCM_FORMAT_S16_LE, 2 },
		{ SNDRV_PCM_FORMAT_S24_3LE, 3 }, { SNDRV_PCM_FORMAT_S32_LE, 4 },
	};
	struct vloop_pcm p;
	int ok = card >= 0;
	size_t i;

	for (i = 0; ok && i < sizeof(widths) / sizeof(widths[0]); i++) {
		long long w, burst, bps;

		if (vloop_pcm_open(&p, card, SNDRV_PCM_STREAM_PLAYBACK, 1) ||
		    vloop_pcm_setup(&p, widths[i].f, 2, 48000, 1024, 4)) {
			ok = 0;
			break;
		}
		w = vloop_stat(VDMA_DEBUGFS "/chan0", "dst_width");
		burst = vloop_stat(VDMA_DEBUGFS "/chan0", "dst_maxburst");
		bps = vloop_stat(VDMA_DEBUGFS "/chan0", "bytes_per_sec");
		vloop_pcm_close(&p);
		if (w != widths[i].width || burst != 4 || bps != 48000LL * 2 * widths[i].width) {
			ktap_diag("%s: dst_width %lld (want %d), maxburst %lld (want 4), bytes/s %lld",
				  vloop_format_name(widths[i].f), w, widths[i].width, burst, bps);
			ok = 0;
		}
	}
	ktap_result(ok, "hw_params programs the tx channel with the format's bus width and the DAI's burst");
}

/*
 * A capture that goes on after the playback ended (by an xrun, mid-stream)
 * keeps running on an idle line: it must neither stall nor lose the
 * signal. 0.5 s of capture, of which the playback fills one buffer.
 */
static void case_capture_outlives_playback(int card)
{
	static const struct loop_case c = { SNDRV_PCM_FORMAT_S16_LE, 2, 48000, 1024, 8, 13310 };
	struct loop_run r = { .play.fd = -1, .cap.fd = -1 };
	long n = card < 0 ? -ENODEV : loop_start(&r, card, &c, 0, c.rate);
	double end;

	if (!n)
		n = run_duplex(&r, c.lead_us, vloop_now() + 10);
	for (end = vloop_now() + 0.5; !n && vloop_now() < end && r.in_frames < r.in_cap;
	     vloop_sleep_ms(5)) {
		long got = vloop_pcm_xfer(&r.cap, r.in + r.in_frames * r.cap.frame_bytes,
					  r.in_cap - r.in_frames);

		if (got > 0)
			r.in_frames += got;
		else if (got != -EAGAIN)
			n = got;
	}
	if (!n)
		n = mismatches(&r);
	ktap_diag("captured %zu frames, %ld mismatched of the %zu-frame signal (or error) %s",
		  r.in_frames, n, r.out_frames, r.why);
	loop_end(&r);
	ktap_result(n == 0 && r.in_frames >= c.rate / 3,
		    "a capture outliving its playback keeps running on silence and holds the signal bit-exact");
}

int main(void)
{
	int ncases = sizeof(cases) / sizeof(cases[0]), card = -1, id;
	int i;

	vloop_watchdog(600);
	ktap_begin("dmaengine-pcm-loopback", ncases + 4);
	vloop_sh("modprobe vdma && modprobe vi2s");
	id = vloop_overlay_apply("vloop");
	if (id >= 0)
		card = vloop_wait_card(20);
	if (card < 0)
		ktap_diag("overlay id %d, no card \"vloop\" appeared", id);
	ktap_result(card >= 0, "the vloop overlay binds DMA controller, I2S and card");

	case_slave_config(card);
	for (i = 0; i < ncases; i++)
		case_loopback(card, &cases[i]);
	case_receiver_recorded_the_playback(card);
	case_capture_outlives_playback(card);

	vloop_overlay_remove(id);
	vloop_wait_no_card(10);
	return ktap_end();
}
