// SPDX-License-Identifier: GPL-2.0
/*
 * dmaengine-pcm-loopback: data through the generic dmaengine PCM, bit-exact.
 *
 * The vloop overlay puts a virtual I2S controller in digital loopback behind
 * two channels of the virtual DMA controller. Each case captures while it
 * plays a pseudo-random signal and requires the capture, from the first
 * non-silent frame on, to be exactly the signal: no sample lost, repeated,
 * shifted or altered, across formats (bus widths 1 to 4 bytes), channel
 * counts, rates and period sizes, with read/write and mmap access, either
 * stream started first, a pause of the playback, and a system sleep in
 * the middle of both streams, resumed with SNDRV_PCM_IOCTL_RESUME. A
 * capture that misses part of the signal (prepared and started while the
 * playback runs; paused long enough for the FIFO to overflow; paused
 * while the playback is dropped and started again) must hold
 * whole frames of it, in order, every sample in its channel. Non-interleaved
 * access is not offered (neither 6.12 nor ours advertises it): that case
 * checks it is refused. Parity: the same on upstream.
 */
#include <sys/mman.h>

#include "vloop.h"

enum loop_mode {
	LOOP_RW,	/* read/write interleaved access */
	LOOP_MMAP,	/* both streams mmap'ed, pointers moved with SYNC_PTR */
	LOOP_PAUSE,	/* read/write; playback paused PAUSE_MS, 100 ms in */
	LOOP_SLEEP,	/* read/write; system sleep (pm_test devices) 100 ms in */
	LOOP_CAP_PAUSE,	/* read/write; capture paused PAUSE_MS, 100 ms in */
	LOOP_CAP_LATE,	/* capture prepared again and started -lead_us after playback */
	LOOP_PREP_IN_PAUSE,	/* capture prepared in a playback pause, started after it */
	LOOP_CAP_PAUSE_RESTART,	/* capture paused; in the pause, playback dropped and restarted */
};

#define PAUSE_MS	200

struct loop_case {
	snd_pcm_format_t format;
	unsigned int channels, rate, period, periods;
	int lead_us;		/* capture runs this long alone first; < 0: playback does */
	enum loop_mode mode;
};

static const struct loop_case cases[] = {
	{ SNDRV_PCM_FORMAT_S16_LE, 2, 48000, 1024, 8, 0, LOOP_RW },
	{ SNDRV_PCM_FORMAT_S16_LE, 1, 48000, 1024, 8, 0, LOOP_RW },
	{ SNDRV_PCM_FORMAT_S16_LE, 8, 48000, 1024, 8, 0, LOOP_RW },
	{ SNDRV_PCM_FORMAT_S24_LE, 1, 48000, 1024, 8, 0, LOOP_RW },
	{ SNDRV_PCM_FORMAT_S24_LE, 2, 48000, 1024, 8, 0, LOOP_RW },
	{ SNDRV_PCM_FORMAT_S24_LE, 8, 48000, 1024, 8, 0, LOOP_RW },
	{ SNDRV_PCM_FORMAT_S32_LE, 1, 48000, 1024, 8, 0, LOOP_RW },
	{ SNDRV_PCM_FORMAT_S32_LE, 2, 48000, 1024, 8, 0, LOOP_RW },
	{ SNDRV_PCM_FORMAT_S32_LE, 8, 48000, 1024, 8, 0, LOOP_RW },
	{ SNDRV_PCM_FORMAT_S8, 2, 48000, 1024, 8, 0, LOOP_RW },
	{ SNDRV_PCM_FORMAT_S24_3LE, 2, 48000, 1024, 8, 0, LOOP_RW },
	{ SNDRV_PCM_FORMAT_S16_LE, 2, 8000, 256, 8, 0, LOOP_RW },
	{ SNDRV_PCM_FORMAT_S16_LE, 2, 11025, 256, 8, 0, LOOP_RW },
	{ SNDRV_PCM_FORMAT_S16_LE, 2, 44100, 1024, 8, 0, LOOP_RW },
	{ SNDRV_PCM_FORMAT_S16_LE, 2, 96000, 2048, 8, 0, LOOP_RW },
	{ SNDRV_PCM_FORMAT_S16_LE, 2, 192000, 4096, 8, 0, LOOP_RW },
	{ SNDRV_PCM_FORMAT_S32_LE, 8, 192000, 2048, 8, 0, LOOP_RW },
	{ SNDRV_PCM_FORMAT_S16_LE, 2, 48000, 64, 128, 0, LOOP_RW },
	{ SNDRV_PCM_FORMAT_S16_LE, 2, 48000, 256, 32, 0, LOOP_RW },
	{ SNDRV_PCM_FORMAT_S16_LE, 2, 48000, 4096, 2, 0, LOOP_RW },
	{ SNDRV_PCM_FORMAT_S16_LE, 2, 48000, 8192, 3, 0, LOOP_RW },
	/*
	 * Capture running alone first reads an idle line for a few of the
	 * controller's ticks (half a period each); the FIFO completes the
	 * receiver's frame with silence before the playback's first sample,
	 * so the played signal still starts on a frame boundary.
	 */
	{ SNDRV_PCM_FORMAT_S16_LE, 2, 48000, 256, 8, 7310, LOOP_RW },
	{ SNDRV_PCM_FORMAT_S24_3LE, 2, 48000, 256, 8, 9730, LOOP_RW },
	{ SNDRV_PCM_FORMAT_S32_LE, 8, 48000, 256, 8, 12150, LOOP_RW },
	/*
	 * Capture started while the playback runs, prepared before it (what
	 * the transmitter sent meanwhile waits in the FIFO, as vi2s's prepare
	 * empties it the way a driver resets its receiver). Fails if the RX
	 * channel started late loses, repeats or shifts a sample.
	 */
	{ SNDRV_PCM_FORMAT_S16_LE, 2, 48000, 1024, 8, -40000, LOOP_RW },
	/*
	 * Capture prepared and started while the playback runs: the receiver
	 * is reset in the middle of the line's frame, and must start at the
	 * next frame's first slot, as an I2S receiver does on the frame clock.
	 * Fails on a FIFO that hands it the transmitter's next bus word (a
	 * sample in the wrong channel: 7 times in 8 with 8 channels).
	 */
	{ SNDRV_PCM_FORMAT_S16_LE, 8, 48000, 1024, 8, -40000, LOOP_CAP_LATE },
	{ SNDRV_PCM_FORMAT_S24_3LE, 2, 48000, 1024, 8, -40000, LOOP_CAP_LATE },
	/*
	 * Playback alone, paused 100 ms in (within a frame, at a bus word);
	 * the capture prepared during the pause and started 40 ms after the
	 * release. The transmitter resumes with no receiver running yet: the
	 * FIFO must still pad the frame up to the slot it resumes in, or the
	 * receiver takes that slot for slot 0.
	 */
	{ SNDRV_PCM_FORMAT_S16_LE, 8, 48000, 1024, 8, 0, LOOP_PREP_IN_PAUSE },
	/*
	 * Capture paused while the playback runs on: 200 ms of 8 channels at
	 * 192 kHz overflow the 512 KiB FIFO, which drops the oldest bytes.
	 * Fails unless it drops whole frames, so that the resumed capture
	 * reads the slot it stopped at, and unless the capture holds exactly
	 * one gap (the FIFO overflowed).
	 */
	{ SNDRV_PCM_FORMAT_S24_3LE, 8, 192000, 2048, 8, 0, LOOP_CAP_PAUSE },
	/*
	 * Capture paused while the playback runs; 50 ms into the pause the
	 * playback is dropped (the transmitter stops, most likely within a
	 * frame), prepared and started again where the application's writes
	 * had got to. With no receiver running the FIFO must complete the
	 * cut frame with silence and put the new stream's first sample in
	 * slot 0 of the next frame the receiver will read, counting what
	 * the FIFO still holds. Fails on a FIFO that pads only under a
	 * running receiver, or reckons the receiver's frame without the
	 * bytes it has not read yet: every later sample in another channel.
	 */
	{ SNDRV_PCM_FORMAT_S16_LE, 8, 48000, 1024, 8, 0, LOOP_CAP_PAUSE_RESTART },
	/*
	 * mmap access: the application writes and reads the DMA buffer
	 * itself. Fails if the buffer mapped is not the one the DMA moves,
	 * or the pointers SYNC_PTR reports run ahead of the data.
	 */
	{ SNDRV_PCM_FORMAT_S16_LE, 2, 48000, 1024, 8, 0, LOOP_MMAP },
	/*
	 * Pause and release: fails if a pause leaves the DMA running (no
	 * gap, stale data), or the release restarts the transfer elsewhere
	 * than where it stopped (samples lost or repeated).
	 */
	{ SNDRV_PCM_FORMAT_S16_LE, 2, 48000, 1024, 8, 0, LOOP_PAUSE },
	/*
	 * System sleep with both streams running: the card's PM ops suspend
	 * them (SNDRV_PCM_STATE_SUSPENDED) and, since the DMA channel can
	 * pause, both kernels advertise SNDRV_PCM_INFO_RESUME, so the
	 * application resumes each stream where it stopped. Fails if a stream
	 * is not suspended, RESUME is refused (the application would have to
	 * prepare and lose the buffer), or the resumed DMA loses, repeats or
	 * shifts a sample.
	 */
	{ SNDRV_PCM_FORMAT_S16_LE, 2, 48000, 1024, 8, 0, LOOP_SLEEP },
};

#define PLAY_SECONDS	0.4

struct loop_run {
	struct vloop_pcm play, cap;
	uint8_t *out, *in;
	size_t out_frames, in_frames, in_cap;
	size_t written;
	uint8_t *area[2];	/* mmap'ed buffer by stream; NULL: read/write */
	enum loop_mode mode;
	unsigned int pause_ms;
	double cap_start_at;	/* when to start that capture; 0: not due */
	size_t scanned;		/* captured frames looked at for the signal's last */
	bool tail_seen;		/* the signal's last frame was among them */
	struct vloop_pcm *paused;	/* the stream a pause case pauses */
	double pause_at, release_at;
	double restart_at;	/* when to drop and restart the playback; 0: not due */
	double sleep_at;	/* 0: no system sleep to come */
	int slept;		/* a system sleep was resumed from */
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

/*
 * Non-zero samples captured after the onset: samples of the signal, which
 * is never zero. Counted in samples, not frames, as the frames around a
 * pause's gap may hold both.
 */
static size_t signal_samples(const struct loop_run *r)
{
	int bytes = vloop_sample_bytes(r->cap.format), bits = vloop_sample_bits(r->cap.format);
	size_t i, n = 0, end = r->in_frames * r->cap.channels;

	for (i = onset(r) * r->cap.channels; i < end; i++)
		n += vloop_get_sample(r->in + i * bytes, bytes, bits) != 0;
	return n;
}

/*
 * The capture of a paused playback, from the onset: the signal, one run
 * of silence in whole frames (the FIFO resumes the transmitter in the
 * slot it stopped at), then the rest of the signal. After a system sleep
 * the run may be empty (@min_runs 0): the receiver, suspended after the
 * transmitter and resumed before it, may see no idle slot in between. The signal is never
 * zero, so a zero sample is the gap and anything else is data.
 */
static long gap_mismatches(struct loop_run *r, int min_runs)
{
	size_t i = onset(r) * r->cap.channels, n = r->in_frames * r->cap.channels;
	size_t k = 0, want = r->out_frames * r->play.channels, gap = 0;
	int bytes = vloop_sample_bytes(r->play.format), bits = vloop_sample_bits(r->play.format);
	int runs = 0, in_gap = 0;
	int32_t v;

	for (; i < n && k < want; i++) {
		v = vloop_get_sample(r->in + i * bytes, bytes, bits);
		if (v == vloop_signal(k, bits)) {
			k++;
			in_gap = 0;
		} else if (!v) {
			runs += !in_gap;
			in_gap = 1;
			gap++;
		} else {
			return snprintf(r->why, sizeof(r->why), "signal sample %zu: got %d, want %d, after %zu silent samples",
					k, v, vloop_signal(k, bits), gap), 1;
		}
	}
	if (k < want || runs < min_runs || runs > 1 || gap % r->cap.channels)
		return snprintf(r->why, sizeof(r->why), "%zu of %zu signal samples, %d runs of silence, %zu samples",
				k, want, runs, gap), -1;
	return 0;
}

/* Sample @c of captured frame @i. */
static int32_t cap_sample(const struct loop_run *r, size_t i, unsigned int c)
{
	int bytes = vloop_sample_bytes(r->cap.format);

	return vloop_get_sample(r->in + i * r->cap.frame_bytes + c * bytes, bytes,
				vloop_sample_bits(r->cap.format));
}

/* Channels @c on of captured frame @i are those of frame @k of the signal. */
static bool frame_from(const struct loop_run *r, size_t i, unsigned int c, size_t k)
{
	int bits = vloop_sample_bits(r->cap.format);

	for (; c < r->cap.channels; c++)
		if (cap_sample(r, i, c) != vloop_signal(k * r->cap.channels + c, bits))
			return false;
	return true;
}

/* Captured frame @i is frame @k of the signal, every sample in its channel. */
static bool frame_is(const struct loop_run *r, size_t i, size_t k)
{
	return frame_from(r, i, 0, k);
}

/* How many leading channels of captured frame @i are those of signal frame @a. */
static unsigned int frame_prefix(const struct loop_run *r, size_t i, size_t a)
{
	int bits = vloop_sample_bits(r->cap.format);
	unsigned int c = 0, ch = r->cap.channels;

	while (c < ch && cap_sample(r, i, c) == vloop_signal(a * ch + c, bits))
		c++;
	return c;
}

/* The first channel from @c on of captured frame @i that is not silent; channels if none. */
static unsigned int silent_from(const struct loop_run *r, size_t i, unsigned int c)
{
	while (c < r->cap.channels && !cap_sample(r, i, c))
		c++;
	return c;
}

/* The first frame of the signal from @from on that captured frame @i is; out_frames if none. */
static size_t find_frame(const struct loop_run *r, size_t i, size_t from)
{
	for (; from < r->out_frames; from++)
		if (frame_is(r, i, from))
			return from;
	return r->out_frames;
}

/*
 * Captured frame @i holds frame @a of the signal up to some channel and
 * frame @b from there on: the receiver paused within a frame and resumed
 * in the same slot of a later one.
 */
static bool frame_straddles(const struct loop_run *r, size_t i, size_t a, size_t b)
{
	unsigned int c = frame_prefix(r, i, a);

	return c && frame_from(r, i, c, b);
}

/*
 * Captured frame @i holds frame @a of the signal up to some channel and
 * silence from there on: the transmitter stopped within a frame, and the
 * FIFO completed it when the next stream started.
 */
static bool frame_padded(const struct loop_run *r, size_t i, size_t a)
{
	unsigned int c = frame_prefix(r, i, a);

	return c && c < r->cap.channels && silent_from(r, i, c) == r->cap.channels;
}

/*
 * The frame of the signal a late capture starts in: the one captured frame
 * @i is, or, when the capture starts in the frame the transmitter resumed
 * in, the one whose later channels @i holds after silent ones (the FIFO's
 * padding). out_frames if neither.
 */
static size_t late_start(const struct loop_run *r, size_t i)
{
	size_t j = find_frame(r, i, 0);

	if (j < r->out_frames || i + 1 >= r->in_frames)
		return j;
	j = find_frame(r, i + 1, 1);
	if (j == r->out_frames)
		return j;
	return frame_from(r, i, silent_from(r, i, 0), j - 1) ? j - 1 : r->out_frames;
}

/*
 * Where the signal goes on after captured frame @i, which is not frame @k:
 * the later frame @i is (a jump at a frame boundary), or one less than the
 * frame @i + 1 is when @i straddles the jump. out_frames if neither.
 */
static size_t jump_target(const struct loop_run *r, size_t i, size_t k)
{
	size_t j = find_frame(r, i, k + 1);

	if (j < r->out_frames || i + 1 >= r->in_frames)
		return j;
	j = find_frame(r, i + 1, k + 2);
	if (j == r->out_frames)
		return j;
	/* Only a restarted transmitter leaves a cut frame padded with silence. */
	if (r->mode == LOOP_CAP_PAUSE_RESTART && frame_padded(r, i, k))
		return j - 1;
	return frame_straddles(r, i, k, j - 1) ? j - 1 : r->out_frames;
}

/*
 * The capture of a stream the receiver missed part of, from the onset:
 * frames of the signal in order up to its last, the first of them any
 * frame when @late, with @jumps forward jumps (the FIFO's drops, or a
 * playback restarted further on) between, each in whole frames: a frame
 * the jump cuts holds the earlier frame's first channels and the later
 * one's others (or silence, after a restart). A frame that is none of
 * these (a sample in another channel, or cut within a sample) fails.
 */
static long frame_mismatches(struct loop_run *r, bool late, int jumps)
{
	size_t i = onset(r), k = late ? late_start(r, i) : 0, first = k, lost = 0, j;
	int seen = 0;

	if (i == r->in_frames || first == r->out_frames)
		return snprintf(r->why, sizeof(r->why), "the first captured frame (%zu of %zu) is no frame of the signal",
				i, r->in_frames), 1;
	/* Only a late start may lose the signal's beginning. */
	if (!late && !frame_is(r, i, 0))
		return snprintf(r->why, sizeof(r->why), "the first captured frame (%zu) is not the signal's first",
				i), 1;
	/* A late start within a frame: its padded first frame was checked. */
	if (late && !frame_is(r, i, k)) {
		i++;
		k++;
	}
	for (; i < r->in_frames && k < r->out_frames; i++, k++) {
		if (frame_is(r, i, k))
			continue;
		j = jump_target(r, i, k);
		if (j == r->out_frames || ++seen > jumps)
			return snprintf(r->why, sizeof(r->why), "captured frame %zu is not signal frame %zu%s",
					i, k, j == r->out_frames ? " nor any later one" : " (a second jump)"), 1;
		lost += j - k;
		k = j;
	}
	snprintf(r->why, sizeof(r->why), "signal from frame %zu of %zu, %d jumps over %zu frames",
		 first, r->out_frames, seen, lost);
	if (k < r->out_frames || seen != jumps || (late && !first))
		return -1;
	return 0;
}

/* The signal's last frame has been captured (frames read since the last look). */
static bool ends_with_signal(struct loop_run *r)
{
	for (; !r->tail_seen && r->scanned < r->in_frames; r->scanned++)
		r->tail_seen = frame_is(r, r->scanned, r->out_frames - 1);
	return r->tail_seen;
}

/* The stream's pointers after a hwsync; with @set, appl_ptr is moved to *@appl. */
static int sync_ptr(struct vloop_pcm *p, snd_pcm_uframes_t *hw, snd_pcm_uframes_t *appl, int set)
{
	struct snd_pcm_sync_ptr sp;

	memset(&sp, 0, sizeof(sp));
	/* AVAIL_MIN: keep sw_params' avail_min; APPL: read appl_ptr, not write it. */
	sp.flags = SNDRV_PCM_SYNC_PTR_HWSYNC | SNDRV_PCM_SYNC_PTR_AVAIL_MIN |
		   (set ? 0 : SNDRV_PCM_SYNC_PTR_APPL);
	sp.c.control.appl_ptr = *appl;
	if (ioctl(p->fd, SNDRV_PCM_IOCTL_SYNC_PTR, &sp) < 0)
		return -errno;
	*hw = sp.s.status.hw_ptr;
	*appl = sp.c.control.appl_ptr;
	return 0;
}

/*
 * vloop_pcm_xfer() for mmap access: copy between @buf and the mapped
 * buffer @area, then move appl_ptr. An xrun shows as -EPIPE from the
 * hwsync, as it does from a read or write.
 */
static long mmap_xfer(struct vloop_pcm *p, uint8_t *area, uint8_t *buf, snd_pcm_uframes_t frames)
{
	snd_pcm_uframes_t hw, appl = 0, avail, k, off, chunk, fb = p->frame_bytes;
	int ret = sync_ptr(p, &hw, &appl, 0);

	if (ret)
		return ret;
	avail = p->stream == SNDRV_PCM_STREAM_PLAYBACK ? p->buffer - (appl - hw) : hw - appl;
	frames = frames < avail ? frames : avail;
	if (!frames)
		return -EAGAIN;
	for (k = 0; k < frames; k += chunk) {
		off = (appl + k) % p->buffer;
		chunk = frames - k < p->buffer - off ? frames - k : p->buffer - off;
		if (p->stream == SNDRV_PCM_STREAM_PLAYBACK)
			memcpy(area + off * fb, buf + k * fb, chunk * fb);
		else
			memcpy(buf + k * fb, area + off * fb, chunk * fb);
	}
	appl += frames;
	ret = sync_ptr(p, &hw, &appl, 1);
	return ret ? ret : (long)frames;
}

static long xfer(struct loop_run *r, struct vloop_pcm *p, uint8_t *buf, snd_pcm_uframes_t frames)
{
	if (r->area[p->stream])
		return mmap_xfer(p, r->area[p->stream], buf, frames);
	return vloop_pcm_xfer(p, buf, frames);
}

/* One step of the duplex loop: feed playback, drain capture. */
static int pump(struct loop_run *r)
{
	long n;

	if (r->written < r->out_frames) {
		n = xfer(r, &r->play, r->out + r->written * r->play.frame_bytes,
			 r->out_frames - r->written);
		if (n >= 0)
			r->written += n;
		else if (n == -EPIPE && r->written < r->out_frames)
			return snprintf(r->why, sizeof(r->why), "playback xrun after %zu frames", r->written), -EPIPE;
		else if (n != -EAGAIN)
			return snprintf(r->why, sizeof(r->why), "playback write: %s", strerror(-n)), (int)n;
	}
	n = xfer(r, &r->cap, r->in + r->in_frames * r->cap.frame_bytes,
		 r->in_cap - r->in_frames);
	if (n >= 0)
		r->in_frames += n;
	else if (n == -EPIPE)
		return snprintf(r->why, sizeof(r->why), "capture overrun after %zu frames", r->in_frames), -EPIPE;
	else if (n != -EAGAIN)
		return snprintf(r->why, sizeof(r->why), "capture read: %s", strerror(-n)), (int)n;
	return 0;
}

/* LOOP_PREP_IN_PAUSE: prepare the capture once paused, start it 40 ms after the release. */
static int prep_in_pause_step(struct loop_run *r, int paused)
{
	int ret = 0;

	if (paused)
		ret = vloop_pcm_ioctl(&r->cap, SNDRV_PCM_IOCTL_PREPARE);
	else
		r->cap_start_at = lab_now() + 0.04;
	if (ret)
		snprintf(r->why, sizeof(r->why), "capture prepare in the pause: %s", strerror(-ret));
	return ret;
}

/* Start a capture that is due; 0 or -errno. */
static int cap_start_step(struct loop_run *r)
{
	int ret;

	if (!r->cap_start_at || lab_now() < r->cap_start_at)
		return 0;
	r->cap_start_at = 0;
	ret = vloop_pcm_ioctl(&r->cap, SNDRV_PCM_IOCTL_START);
	if (ret)
		snprintf(r->why, sizeof(r->why), "capture start after the release: %s", strerror(-ret));
	return ret;
}

/*
 * Bytes into its frame that vdma's channel @chan has moved (@key "done")
 * or had moved when it was stopped ("stopped_at"); -1 if not known.
 */
static long long chan_frame_offset(int chan, const char *key, size_t frame_bytes)
{
	long long done = vloop_chan_key(chan, key);

	return done < 0 ? -1 : done % (long long)frame_bytes;
}

/*
 * LOOP_CAP_PAUSE_RESTART: drop the playback, then prepare, refill and
 * start it again from where the application's writes had got to; the
 * frames the drop discarded are the capture's one jump. The right padding
 * completes the transmitter's cut frame (tx_cut); a FIFO that reckons the
 * receiver's frame from what it delivered alone pads to rx_cut. A run where
 * the two agree (tx_cut == rx_cut), or with nothing to pad (tx_cut 0),
 * cannot tell them apart: -EAGAIN, the case runs again (about 2 runs in 8
 * with 8 two-byte slots).
 */
static int restart_step(struct loop_run *r)
{
	size_t left = r->out_frames - r->written;
	struct snd_pcm_status st;
	long long pad, tx_cut, rx_cut;
	long n;
	int ret;

	if (!r->restart_at || lab_now() < r->restart_at)
		return 0;
	r->restart_at = 0;
	pad = lab_read_key(VI2S_DEBUGFS "/fifo", "padding");
	rx_cut = chan_frame_offset(1, "done", r->cap.frame_bytes);
	/* Late steps (a stall) left nothing to write after the restart: run again. */
	if (!left)
		return snprintf(r->why, sizeof(r->why), "the signal was all written before the restart"), -EAGAIN;
	/* An underrun first (this program stalled) would leave nothing to drop: run again. */
	if (!vloop_pcm_status(&r->play, &st) && st.state == SNDRV_PCM_STATE_XRUN)
		return snprintf(r->why, sizeof(r->why), "playback xrun before the restart"), -EPIPE;
	ret = vloop_pcm_ioctl(&r->play, SNDRV_PCM_IOCTL_DROP);
	if (!ret)
		ret = vloop_pcm_ioctl(&r->play, SNDRV_PCM_IOCTL_PREPARE);
	if (ret)
		return snprintf(r->why, sizeof(r->why), "playback drop/prepare: %s", strerror(-ret)), ret;
	tx_cut = chan_frame_offset(0, "stopped_at", r->play.frame_bytes);
	if (tx_cut <= 0 || rx_cut < 0 || tx_cut == rx_cut)
		return snprintf(r->why, sizeof(r->why), "cuts %lld (playback) and %lld (capture) cannot tell the padding apart",
				tx_cut, rx_cut), -EAGAIN;
	n = xfer(r, &r->play, r->out + r->written * r->play.frame_bytes,
		 left < r->play.buffer ? left : r->play.buffer);
	if (n < 0)
		return snprintf(r->why, sizeof(r->why), "refill: %s", strerror(-n)), (int)n;
	r->written += n;
	ret = vloop_pcm_ioctl(&r->play, SNDRV_PCM_IOCTL_START);
	ktap_diag("capture paused %lld bytes into a %zu-byte frame; playback dropped %lld bytes into one, restarted with %lld bytes of padding",
		  rx_cut, r->cap.frame_bytes, tx_cut,
		  lab_read_key(VI2S_DEBUGFS "/fifo", "padding") - pad);
	if (ret)
		snprintf(r->why, sizeof(r->why), "playback restart: %s", strerror(-ret));
	return ret;
}

/* What follows a pause or a release of r->paused in the case's mode. */
static int paused_step(struct loop_run *r, int push)
{
	if (r->mode == LOOP_PREP_IN_PAUSE)
		return prep_in_pause_step(r, push);
	if (r->mode == LOOP_CAP_PAUSE_RESTART && push)
		r->restart_at = lab_now() + 0.05;
	return 0;
}

/*
 * Pause r->paused 100 ms in, release it pause_ms later. A pause refused
 * because an xrun stopped the stream first is that xrun (retried).
 */
static int pause_step(struct loop_run *r)
{
	struct snd_pcm_status st;
	double now = lab_now();
	int push, ret;

	if (r->pause_at && now >= r->pause_at) {
		push = 1;
		r->pause_at = 0;
		r->release_at = now + r->pause_ms / 1000.0;
	} else if (r->release_at && now >= r->release_at && !r->restart_at) {
		/* After a stall, a restart that is also due still comes first. */
		push = 0;
		r->release_at = 0;
	} else {
		return 0;
	}
	if (!ioctl(r->paused->fd, SNDRV_PCM_IOCTL_PAUSE, push))
		return paused_step(r, push);
	ret = -errno;
	if (!vloop_pcm_status(r->paused, &st) && st.state == SNDRV_PCM_STATE_XRUN)
		ret = -EPIPE;
	return snprintf(r->why, sizeof(r->why), "pause %d: %s", push, strerror(-ret)), ret;
}

/*
 * A system sleep 100 ms in: pm_test's "devices" level suspends every device
 * and resumes it a second later, without firmware. Both streams must then
 * be suspended, and resume (capture first, so the playback's first sample
 * is not lost in a stopped receiver).
 */
static int sleep_step(struct loop_run *r)
{
	struct snd_pcm_status ps, cs;
	int ret;

	if (!r->sleep_at || lab_now() < r->sleep_at)
		return 0;
	r->sleep_at = 0;
	lab_write("/sys/module/suspend/parameters/pm_test_delay", "1");
	ret = lab_write("/sys/power/pm_test", "devices");
	if (!ret)
		ret = lab_write("/sys/power/state", "freeze");
	lab_write("/sys/power/pm_test", "none");
	if (ret)
		return snprintf(r->why, sizeof(r->why), "system sleep: %s", strerror(-ret)), ret;
	if (vloop_pcm_status(&r->play, &ps) || vloop_pcm_status(&r->cap, &cs))
		return snprintf(r->why, sizeof(r->why), "status after sleep: %s", strerror(errno)), -EIO;
	if (ps.state == SNDRV_PCM_STATE_XRUN)
		return snprintf(r->why, sizeof(r->why), "playback xrun before the sleep"), -EPIPE;
	if (ps.state != SNDRV_PCM_STATE_SUSPENDED || cs.state != SNDRV_PCM_STATE_SUSPENDED)
		return snprintf(r->why, sizeof(r->why), "after the sleep: playback state %d, capture %d, not SUSPENDED (%d)",
				ps.state, cs.state, SNDRV_PCM_STATE_SUSPENDED), -EIO;
	ret = vloop_pcm_ioctl(&r->cap, SNDRV_PCM_IOCTL_RESUME);
	if (!ret)
		ret = vloop_pcm_ioctl(&r->play, SNDRV_PCM_IOCTL_RESUME);
	if (ret)
		return snprintf(r->why, sizeof(r->why), "RESUME: %s", strerror(-ret)), ret;
	r->slept = 1;
	return 0;
}

/* The whole signal is back: after the onset, and after the pause's gap if any. */
static bool signal_back(struct loop_run *r)
{
	if (r->written < r->out_frames)
		return false;
	if (r->mode == LOOP_CAP_PAUSE || r->mode == LOOP_CAP_LATE ||
	    r->mode == LOOP_PREP_IN_PAUSE || r->mode == LOOP_CAP_PAUSE_RESTART)
		return ends_with_signal(r);
	if (r->pause_ms || r->slept)
		return signal_samples(r) >= r->out_frames * r->play.channels;
	return onset(r) + r->out_frames <= r->in_frames;
}

/* Start the capture @lead_us before the playback, or after it when negative. */
static int start_streams(struct loop_run *r, int lead_us)
{
	struct vloop_pcm *first = lead_us < 0 ? &r->play : &r->cap;
	struct vloop_pcm *second = lead_us < 0 ? &r->cap : &r->play;
	int ret;

	if (r->mode == LOOP_PREP_IN_PAUSE)	/* the playback alone: the capture starts after the pause */
		first = &r->play;
	ret = vloop_pcm_ioctl(first, SNDRV_PCM_IOCTL_START);
	if (r->mode == LOOP_PREP_IN_PAUSE)
		return ret ? snprintf(r->why, sizeof(r->why), "start: %s", strerror(-ret)), ret : 0;
	if (!ret && lead_us)
		usleep(abs(lead_us));
	if (!ret && r->mode == LOOP_CAP_LATE)
		ret = vloop_pcm_ioctl(second, SNDRV_PCM_IOCTL_PREPARE);
	if (!ret)
		ret = vloop_pcm_ioctl(second, SNDRV_PCM_IOCTL_START);
	if (ret)
		snprintf(r->why, sizeof(r->why), "start: %s", strerror(-ret));
	return ret;
}

/* Capture until the whole signal (and its lead-in) has come back. */
static int run_duplex(struct loop_run *r, int lead_us, double deadline)
{
	struct pollfd pfd[2] = { { r->play.fd, POLLOUT, 0 }, { r->cap.fd, POLLIN, 0 } };
	long pre = xfer(r, &r->play, r->out, r->play.buffer);
	int ret;

	if (pre < 0)
		return snprintf(r->why, sizeof(r->why), "prefill: %s", strerror(-pre)), (int)pre;
	r->written = pre;
	ret = start_streams(r, lead_us);
	if (ret)
		return ret;
	if (r->pause_ms)
		r->pause_at = lab_now() + 0.1;
	if (r->sleep_at)
		r->sleep_at = lab_now() + 0.1;

	while (lab_now() < deadline && r->in_frames < r->in_cap) {
		if (signal_back(r))
			return 0;
		ret = pause_step(r);
		if (!ret)
			ret = cap_start_step(r);
		if (!ret)
			ret = restart_step(r);
		if (!ret)
			ret = sleep_step(r);
		if (!ret)
			ret = pump(r);
		if (ret)
			return ret;
		poll(pfd, 2, 5);
	}
	return 0;
}

/* Map @p's DMA buffer, the pages the application reads and writes in mmap access. */
static int map_buffer(struct loop_run *r, struct vloop_pcm *p)
{
	void *a = mmap(NULL, p->buffer * p->frame_bytes, PROT_READ | PROT_WRITE, MAP_SHARED,
		       p->fd, SNDRV_PCM_MMAP_OFFSET_DATA);
	int ret = -errno;

	if (a == MAP_FAILED)
		return snprintf(r->why, sizeof(r->why), "mmap: %s", strerror(-ret)), ret;
	r->area[p->stream] = a;
	return 0;
}

static int setup_stream(struct vloop_pcm *p, int card, int stream, const struct loop_case *c)
{
	snd_pcm_access_t access = c->mode == LOOP_MMAP ? SNDRV_PCM_ACCESS_MMAP_INTERLEAVED :
							 SNDRV_PCM_ACCESS_RW_INTERLEAVED;
	int ret = vloop_pcm_open(p, card, stream, 1);

	if (!ret)
		ret = vloop_pcm_setup_access(p, access, c->format, c->channels, c->rate,
					     c->period, c->periods);
	return ret;
}

/*
 * Open and set up both streams of @c and the buffers: the signal to play
 * (at least @out_frames, at least one playback buffer) and room for
 * @in_cap captured frames, or 3 signals and a second when 0.
 */
static int loop_start(struct loop_run *r, int card, const struct loop_case *c,
		      size_t out_frames, size_t in_cap)
{
	int ret = setup_stream(&r->cap, card, SNDRV_PCM_STREAM_CAPTURE, c);

	if (!ret)
		ret = setup_stream(&r->play, card, SNDRV_PCM_STREAM_PLAYBACK, c);
	if (ret)
		return snprintf(r->why, sizeof(r->why), "open/hw_params: %s", strerror(-ret)), ret;
	if (c->mode == LOOP_MMAP)
		ret = map_buffer(r, &r->cap);
	if (!ret && c->mode == LOOP_MMAP)
		ret = map_buffer(r, &r->play);
	if (ret)
		return ret;
	r->mode = c->mode;
	r->pause_ms = c->mode == LOOP_PAUSE || c->mode == LOOP_CAP_PAUSE ||
		      c->mode == LOOP_PREP_IN_PAUSE || c->mode == LOOP_CAP_PAUSE_RESTART ?
		      PAUSE_MS : 0;
	r->paused = c->mode == LOOP_CAP_PAUSE || c->mode == LOOP_CAP_PAUSE_RESTART ?
		    &r->cap : &r->play;
	r->sleep_at = c->mode == LOOP_SLEEP;	/* set to a time when the streams start */
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
	if (r->area[SNDRV_PCM_STREAM_PLAYBACK])
		munmap(r->area[SNDRV_PCM_STREAM_PLAYBACK], r->play.buffer * r->play.frame_bytes);
	if (r->area[SNDRV_PCM_STREAM_CAPTURE])
		munmap(r->area[SNDRV_PCM_STREAM_CAPTURE], r->cap.buffer * r->cap.frame_bytes);
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
		ret = run_duplex(&r, c->lead_us, lab_now() + 20 + 10 * PLAY_SECONDS);
	if (!ret && c->mode == LOOP_SLEEP && !r.slept) {
		snprintf(r.why, sizeof(r.why), "the signal came back before the sleep");
		ret = -1;
	} else if (!ret) {
		ret = c->mode == LOOP_CAP_PAUSE || c->mode == LOOP_CAP_PAUSE_RESTART ?
		      frame_mismatches(&r, false, 1) :
		      c->mode == LOOP_CAP_LATE || c->mode == LOOP_PREP_IN_PAUSE ?
		      frame_mismatches(&r, true, 0) :
		      c->mode == LOOP_PAUSE ? gap_mismatches(&r, 1) :
		      c->mode == LOOP_SLEEP ? gap_mismatches(&r, 0) : mismatches(&r);
	}
	snprintf(why, whylen, "%s", r.why);
	loop_end(&r);
	return ret;
}

/*
 * An xrun means this program was not scheduled in time (TCG on a shared
 * host can stall a virtual CPU for longer than a buffer lasts): the case is
 * run again, a few times at most. So is a run that did not reach the
 * ordering the case is about (-EAGAIN), about 2 times in 8 by chance: ten
 * runs all miss it about once in a million. Wrong data is never retried.
 */
#define XRUN_ATTEMPTS	3
#define ORDER_ATTEMPTS	10

static long loop(int card, const struct loop_case *c, char *why, size_t whylen)
{
	int xruns = 0, misses = 0;
	long bad = -1;

	while (card >= 0) {
		bad = loop_once(card, c, why, whylen);
		if (bad == -EPIPE && ++xruns < XRUN_ATTEMPTS)
			ktap_diag("attempt %d: %s", xruns + misses, why);
		else if (bad == -EAGAIN && ++misses < ORDER_ATTEMPTS)
			ktap_diag("attempt %d: %s", xruns + misses, why);
		else
			break;
	}
	return bad;
}

/* The case's name: a sentence saying the one thing it varies. */
static void case_name(const struct loop_case *c, char *name, size_t len)
{
	int n = snprintf(name, len, "%s %u ch at %u Hz", vloop_format_name(c->format),
			 c->channels, c->rate);

	if (c->mode == LOOP_CAP_PAUSE_RESTART)
		snprintf(name + n, len - n, ", capture paused %u ms while the playback is dropped and started again, resumes in its slot: whole frames of the signal in order, one jump, the cut frame completed with silence",
			 PAUSE_MS);
	else if (c->mode == LOOP_PREP_IN_PAUSE)
		snprintf(name + n, len - n, ", capture prepared in a %u ms playback pause and started after it, holds whole frames of the signal in order from the slot the playback resumed in",
			 PAUSE_MS);
	else if (c->mode == LOOP_CAP_LATE)
		snprintf(name + n, len - n, ", capture prepared and started %.2f ms into the playback, holds whole frames of the signal in order from a frame boundary",
			 -c->lead_us / 1000.0);
	else if (c->mode == LOOP_CAP_PAUSE)
		snprintf(name + n, len - n, ", capture paused %u ms as the FIFO overflows, resumes in its slot: whole frames of the signal in order, one gap",
			 PAUSE_MS);
	else if (c->lead_us > 0)
		snprintf(name + n, len - n, ", capture started %.2f ms before playback, loops back bit-exact from a frame boundary",
			 c->lead_us / 1000.0);
	else if (c->lead_us < 0)
		snprintf(name + n, len - n, ", capture started %.2f ms after playback, holds the played signal bit-exact from a frame boundary",
			 -c->lead_us / 1000.0);
	else if (c->mode == LOOP_MMAP)
		snprintf(name + n, len - n, " loops back bit-exact with mmap interleaved access on both streams");
	else if (c->mode == LOOP_PAUSE)
		snprintf(name + n, len - n, ", playback paused %u ms and released, loops back with one frame-aligned gap of silence and no sample lost or repeated",
			 PAUSE_MS);
	else if (c->mode == LOOP_SLEEP)
		snprintf(name + n, len - n, ", both streams suspended by a system sleep and resumed, loops back with no sample lost or repeated");
	else
		snprintf(name + n, len - n, " in %u x %u-frame periods loops back bit-exact",
			 c->periods, c->period);
}

static void case_loopback(int card, const struct loop_case *c)
{
	char name[192], why[160] = "";
	long bad = loop(card, c, why, sizeof(why));

	case_name(c, name, sizeof(name));
	if (bad)
		ktap_diag("%ld mismatched samples (or error): %s; FIFO dropped %lld, silence %lld",
			  bad, why, lab_read_key(VI2S_DEBUGFS "/fifo", "dropped"),
			  lab_read_key(VI2S_DEBUGFS "/fifo", "silence"));
	else if (why[0])
		ktap_diag("%s", why);
	ktap_result(bad == 0, name);
}

/* What the receiver recorded is what the playback DMA read from the buffer. */
static void case_receiver_recorded_the_playback(int card)
{
	static const struct loop_case c = { SNDRV_PCM_FORMAT_S16_LE, 2, 48000, 1024, 8, 0, LOOP_RW };
	char why[160] = "", rec[8192];
	struct vloop_pcm p;
	uint8_t want[8192];
	int n = -1;

	if (card >= 0 && !loop(card, &c, why, sizeof(why))) {
		n = lab_read(VI2S_DEBUGFS "/received", rec, sizeof(rec));
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
		w = lab_read_key(VDMA_DEBUGFS "/chan0", "dst_width");
		burst = lab_read_key(VDMA_DEBUGFS "/chan0", "dst_maxburst");
		bps = lab_read_key(VDMA_DEBUGFS "/chan0", "bytes_per_sec");
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
	static const struct loop_case c = { SNDRV_PCM_FORMAT_S16_LE, 2, 48000, 1024, 8, 13310, LOOP_RW };
	struct loop_run r = { .play.fd = -1, .cap.fd = -1 };
	long n = card < 0 ? -ENODEV : loop_start(&r, card, &c, 0, c.rate);
	double end;

	if (!n)
		n = run_duplex(&r, c.lead_us, lab_now() + 10);
	for (end = lab_now() + 0.5; !n && lab_now() < end && r.in_frames < r.in_cap;
	     lab_sleep_ms(5)) {
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

/*
 * Move frames of @p (a buffer of @buf, whole) for up to @seconds; the
 * frames moved, or -errno of the first error other than EAGAIN.
 */
static long xfer_for(struct vloop_pcm *p, uint8_t *buf, double seconds)
{
	double end = lab_now() + seconds;
	long n, total = 0;

	while (lab_now() < end) {
		n = vloop_pcm_xfer(p, buf, p->buffer);
		if (n > 0)
			total += n;
		else if (n != -EAGAIN)
			return n;
		lab_sleep_ms(5);
	}
	return total;
}

/*
 * An xrun and a restart, as an application that fell behind goes through
 * them: a stream not served for three buffer lengths stops in
 * SNDRV_PCM_STATE_XRUN and its next transfer fails with EPIPE; prepared
 * and started again it moves frames at its rate. Fails if the DMA
 * position stops being reported (no xrun is ever detected) or a restart
 * leaves the channel stopped (nothing moves after it).
 */
static void xrun_restart(int card, int stream, const char *name)
{
	struct vloop_pcm p = { .fd = -1 };
	struct snd_pcm_status st = { .state = -1 };
	long first = -1, after = -1;
	uint8_t *buf = NULL;
	int ret = card < 0 ? -ENODEV : vloop_pcm_open(&p, card, stream, 1);

	if (!ret)
		ret = vloop_pcm_setup(&p, SNDRV_PCM_FORMAT_S16_LE, 2, 48000, 1024, 4);
	if (!ret && !(buf = calloc(p.buffer, p.frame_bytes)))
		ret = -ENOMEM;
	if (!ret && stream == SNDRV_PCM_STREAM_PLAYBACK)
		ret = vloop_pcm_xfer(&p, buf, p.buffer) < 0 ? -EIO : 0;
	if (!ret)
		ret = vloop_pcm_ioctl(&p, SNDRV_PCM_IOCTL_START);
	if (!ret) {
		lab_sleep_ms(3 * 1000 * p.buffer / p.rate);
		vloop_pcm_status(&p, &st);
		first = vloop_pcm_xfer(&p, buf, p.buffer);
		ret = vloop_pcm_ioctl(&p, SNDRV_PCM_IOCTL_PREPARE);
	}
	if (!ret && stream == SNDRV_PCM_STREAM_PLAYBACK)
		ret = vloop_pcm_xfer(&p, buf, p.buffer) < 0 ? -EIO : 0;
	if (!ret)
		ret = vloop_pcm_ioctl(&p, SNDRV_PCM_IOCTL_START);
	if (!ret)
		after = xfer_for(&p, buf, 0.5);
	ktap_diag("%s: state %d after 3 buffers unserved (XRUN is %d), next transfer %ld, restart %d, then %ld frames in 0.5 s",
		  name, st.state, SNDRV_PCM_STATE_XRUN, first, ret, after);
	free(buf);
	vloop_pcm_close(&p);
	ktap_result(!ret && st.state == SNDRV_PCM_STATE_XRUN && first == -EPIPE &&
		    after >= 48000 / 4, name);
}


/*
 * Neither 6.12's derived description nor ours sets
 * SNDRV_PCM_INFO_NONINTERLEAVED, so the core offers no non-interleaved
 * access and no bit-exact loopback in it can pass on either kernel: the
 * case asserts instead that hw_params asking for it is refused with EINVAL
 * on both streams (parity). Fails if our description starts advertising
 * non-interleaved access, which 6.12 does not.
 */
static void case_noninterleaved_refused(int card)
{
	static const int streams[] = { SNDRV_PCM_STREAM_PLAYBACK, SNDRV_PCM_STREAM_CAPTURE };
	struct vloop_pcm p;
	int ok = card >= 0, i, ret;

	for (i = 0; ok && i < 2; i++) {
		ret = vloop_pcm_open(&p, card, streams[i], 1);
		if (!ret)
			ret = vloop_pcm_setup_access(&p, SNDRV_PCM_ACCESS_RW_NONINTERLEAVED,
						     SNDRV_PCM_FORMAT_S16_LE, 2, 48000, 1024, 8);
		vloop_pcm_close(&p);
		if (ret != -EINVAL) {
			ktap_diag("%s: hw_params returned %s", streams[i] ? "capture" : "playback",
				  ret ? strerror(-ret) : "success");
			ok = 0;
		}
	}
	ktap_result(ok, "S16_LE 2 ch at 48 kHz in read/write non-interleaved access is refused by hw_params with EINVAL, as on 6.12");
}

/* The card main() bound for every case, and its overlay's id; -1: none. */
static int bound_card = -1, bound_overlay = -1;

static void case_card(void)
{
	if (bound_card < 0)
		ktap_diag("overlay id %d, no card \"vloop\" appeared", bound_overlay);
	ktap_result(bound_card >= 0, "the vloop overlay binds DMA controller, I2S and card");
}

static void case_slave_config_bound(void)
{
	case_slave_config(bound_card);
}

/*
 * The rows of cases[], one result each, are one entry of the suite: a row
 * is data that names itself, not a function an entry could point to, so
 * they run again together (LAB_CASE=loopback).
 */
#define LOOP_ROWS	((int)(sizeof(cases) / sizeof(cases[0])))

static void case_loopback_rows(void)
{
	int i;

	for (i = 0; i < LOOP_ROWS; i++)
		case_loopback(bound_card, &cases[i]);
}

static void case_receiver_recorded_the_playback_bound(void)
{
	case_receiver_recorded_the_playback(bound_card);
}

static void case_capture_outlives_playback_bound(void)
{
	case_capture_outlives_playback(bound_card);
}

/* The playback's underrun: dmaengine-pcm-controls. */
static void case_capture_xrun_restart(void)
{
	xrun_restart(bound_card, SNDRV_PCM_STREAM_CAPTURE,
		     "a capture not read for three buffers overruns with EPIPE, and captures again once prepared and restarted");
}

static void case_noninterleaved_refused_bound(void)
{
	case_noninterleaved_refused(bound_card);
}

/* The suite's table: cases[] above is the data of its "loopback" entry. */
static const struct ktap_case suite[] = {
	KTAP_CASE("card", case_card),
	KTAP_CASE("slave-config", case_slave_config_bound),
	KTAP_CASE_N("loopback", case_loopback_rows, LOOP_ROWS),
	KTAP_CASE("receiver-recorded", case_receiver_recorded_the_playback_bound),
	KTAP_CASE("capture-outlives-playback", case_capture_outlives_playback_bound),
	KTAP_CASE("capture-xrun", case_capture_xrun_restart),
	KTAP_CASE("noninterleaved-refused", case_noninterleaved_refused_bound),
};

int main(void)
{
	int ret;

	lab_watchdog(600);
	ktap_begin("dmaengine-pcm-loopback", ktap_plan(KTAP_CASES(suite)));
	/* Bound here, not in "card": a case run alone (LAB_CASE) needs the card too. */
	lab_sh(NULL, 0, "modprobe vdma && modprobe vi2s");
	bound_overlay = vloop_bind("vloop", &bound_card);
	ret = ktap_run_cases(KTAP_CASES(suite));
	vloop_unbind(bound_overlay);
	return ret;
}
