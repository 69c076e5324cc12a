/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vloop.h - shared by the dmaengine-pcm guest suites: the virtual loopback
 * fixtures (vdma + vi2s, fixtures/vi2s/vloop*.dtso) and a PCM driven through
 * the raw ALSA ioctls of <sound/asound.h>, no alsa-lib needed.
 */
#ifndef VLOOP_H
#define VLOOP_H

#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sound/asound.h>

#include "lab.h"

#define VDMA_DEBUGFS	"/sys/kernel/debug/vdma/vdma"
#define VI2S_DEBUGFS	"/sys/kernel/debug/vi2s/vi2s"

/* The value of @key in vdma's debugfs file of channel @chan; -1 if absent. */
static inline long long vloop_chan_key(int chan, const char *key)
{
	char path[64];

	snprintf(path, sizeof(path), VDMA_DEBUGFS "/chan%d", chan);
	return lab_read_key(path, key);
}

/* Card number whose id is @id, or -1. */
static inline int vloop_card(const char *id)
{
	char path[64], buf[64];
	int i;

	for (i = 0; i < 8; i++) {
		snprintf(path, sizeof(path), "/proc/asound/card%d/id", i);
		if (lab_read(path, buf, sizeof(buf)) > 0 &&
		    !strncmp(buf, id, strlen(id)) && buf[strlen(id)] == '\n')
			return i;
	}
	return -1;
}

static inline int vloop_wait_card(double seconds)
{
	double end = lab_now() + seconds;
	int card;

	while ((card = vloop_card("vloop")) < 0 && lab_now() < end)
		lab_sleep_ms(50);
	return card;
}

static inline int vloop_wait_no_card(double seconds)
{
	double end = lab_now() + seconds;

	while (vloop_card("vloop") >= 0 && lab_now() < end)
		lab_sleep_ms(50);
	return vloop_card("vloop") < 0;
}

/*
 * Apply LAB_OVERLAYS/<@overlay>.dtbo and wait up to 20 s for the vloop card,
 * its number in *@card (-1: none); the overlay's id or -errno.
 */
static inline int vloop_bind(const char *overlay, int *card)
{
	int id = lab_overlay_apply(overlay);

	*card = id < 0 ? -1 : vloop_wait_card(20);
	return id;
}

/* Remove overlay @id (none if < 0), wait up to 10 s for the card to go; returns nothing. */
static inline void vloop_unbind(int id)
{
	lab_overlay_remove(id);
	vloop_wait_no_card(10);
}

/* KiB preallocated for the playback stream of @card; -1 if unknown. */
static inline int vloop_prealloc_kib(int card)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/asound/card%d/pcm0p/sub0/prealloc", card);
	return (int)lab_read_num(path);
}

/* ---------------------------------------------------------------------------
 * A PCM through raw ioctls
 */

struct vloop_pcm {
	int fd;
	int stream;
	snd_pcm_format_t format;
	unsigned int channels, rate;
	snd_pcm_uframes_t period, buffer;
	unsigned int frame_bytes;
	unsigned int info;
};

/* PCM device @dev of @card, one direction; 0 or -errno. */
static inline int vloop_pcm_open_dev(struct vloop_pcm *pcm, int card, int dev, int stream,
				     int nonblock)
{
	char path[64];

	memset(pcm, 0, sizeof(*pcm));
	snprintf(path, sizeof(path), "/dev/snd/pcmC%dD%d%c", card, dev,
		 stream == SNDRV_PCM_STREAM_PLAYBACK ? 'p' : 'c');
	pcm->stream = stream;
	pcm->fd = open(path, O_RDWR | O_CLOEXEC | (nonblock ? O_NONBLOCK : 0));
	return pcm->fd < 0 ? -errno : 0;
}

static inline int vloop_pcm_open(struct vloop_pcm *pcm, int card, int stream, int nonblock)
{
	return vloop_pcm_open_dev(pcm, card, 0, stream, nonblock);
}

static inline void vloop_pcm_close(struct vloop_pcm *pcm)
{
	if (pcm->fd >= 0)
		close(pcm->fd);
	pcm->fd = -1;
}

static inline struct snd_interval *hw_ival(struct snd_pcm_hw_params *p, int param)
{
	return &p->intervals[param - SNDRV_PCM_HW_PARAM_FIRST_INTERVAL];
}

static inline struct snd_mask *hw_mask(struct snd_pcm_hw_params *p, int param)
{
	return &p->masks[param - SNDRV_PCM_HW_PARAM_FIRST_MASK];
}

/* Everything allowed: what HW_REFINE starts from. */
static inline void hw_any(struct snd_pcm_hw_params *p)
{
	int i;

	memset(p, 0, sizeof(*p));
	for (i = SNDRV_PCM_HW_PARAM_FIRST_MASK; i <= SNDRV_PCM_HW_PARAM_LAST_MASK; i++)
		memset(hw_mask(p, i), 0xff, sizeof(struct snd_mask));
	for (i = SNDRV_PCM_HW_PARAM_FIRST_INTERVAL; i <= SNDRV_PCM_HW_PARAM_LAST_INTERVAL; i++)
		hw_ival(p, i)->max = UINT_MAX;
	p->rmask = ~0U;
	p->info = ~0U;
}

static inline void hw_set_mask(struct snd_pcm_hw_params *p, int param, unsigned int bit)
{
	struct snd_mask *m = hw_mask(p, param);

	memset(m, 0, sizeof(*m));
	m->bits[bit / 32] = 1U << (bit % 32);
}

static inline void hw_set_int(struct snd_pcm_hw_params *p, int param, unsigned int v)
{
	struct snd_interval *i = hw_ival(p, param);

	i->min = i->max = v;
	i->integer = 1;
}

static inline int hw_mask_has(struct snd_pcm_hw_params *p, int param, unsigned int bit)
{
	return !!(hw_mask(p, param)->bits[bit / 32] & (1U << (bit % 32)));
}

/* The physical bytes of one sample of @format (the formats vi2s offers). */
static inline int vloop_sample_bytes(snd_pcm_format_t format)
{
	switch (format) {
	case SNDRV_PCM_FORMAT_S8: return 1;
	case SNDRV_PCM_FORMAT_S16_LE: return 2;
	case SNDRV_PCM_FORMAT_S24_3LE: return 3;
	case SNDRV_PCM_FORMAT_S24_LE:
	case SNDRV_PCM_FORMAT_S32_LE: return 4;
	default: return -1;
	}
}

static inline int vloop_sample_bits(snd_pcm_format_t format)
{
	switch (format) {
	case SNDRV_PCM_FORMAT_S24_3LE:
	case SNDRV_PCM_FORMAT_S24_LE: return 24;
	default: return vloop_sample_bytes(format) * 8;
	}
}

static inline const char *vloop_format_name(snd_pcm_format_t format)
{
	switch (format) {
	case SNDRV_PCM_FORMAT_S8: return "S8";
	case SNDRV_PCM_FORMAT_S16_LE: return "S16_LE";
	case SNDRV_PCM_FORMAT_S24_3LE: return "S24_3LE";
	case SNDRV_PCM_FORMAT_S24_LE: return "S24_LE";
	case SNDRV_PCM_FORMAT_S32_LE: return "S32_LE";
	default: return "?";
	}
}

/* hw_params for an exact configuration in @access; @pcm learns its shape. */
static inline int vloop_pcm_hw_params(struct vloop_pcm *pcm, snd_pcm_access_t access,
				      snd_pcm_format_t format, unsigned int channels,
				      unsigned int rate, snd_pcm_uframes_t period,
				      unsigned int periods)
{
	struct snd_pcm_hw_params hw;

	hw_any(&hw);
	hw_set_mask(&hw, SNDRV_PCM_HW_PARAM_ACCESS, access);
	hw_set_mask(&hw, SNDRV_PCM_HW_PARAM_FORMAT, format);
	hw_set_mask(&hw, SNDRV_PCM_HW_PARAM_SUBFORMAT, SNDRV_PCM_SUBFORMAT_STD);
	hw_set_int(&hw, SNDRV_PCM_HW_PARAM_CHANNELS, channels);
	hw_set_int(&hw, SNDRV_PCM_HW_PARAM_RATE, rate);
	hw_set_int(&hw, SNDRV_PCM_HW_PARAM_PERIOD_SIZE, period);
	hw_set_int(&hw, SNDRV_PCM_HW_PARAM_PERIODS, periods);
	if (ioctl(pcm->fd, SNDRV_PCM_IOCTL_HW_PARAMS, &hw) < 0)
		return -errno;
	pcm->format = format;
	pcm->channels = channels;
	pcm->rate = rate;
	pcm->period = hw_ival(&hw, SNDRV_PCM_HW_PARAM_PERIOD_SIZE)->min;
	pcm->buffer = hw_ival(&hw, SNDRV_PCM_HW_PARAM_BUFFER_SIZE)->min;
	pcm->frame_bytes = channels * vloop_sample_bytes(format);
	pcm->info = hw.info;
	return 0;
}

/*
 * sw_params: a manual start (start_threshold beyond reach), an xrun when
 * the buffer runs out, and with @tstamp the kernel's monotonic time stamps
 * in every status (driver_tstamp: when the pointer was read).
 */
static inline int vloop_pcm_sw_params(struct vloop_pcm *pcm, int tstamp)
{
	struct snd_pcm_sw_params sw;

	memset(&sw, 0, sizeof(sw));
	sw.proto = SNDRV_PCM_VERSION;
	sw.tstamp_mode = tstamp ? SNDRV_PCM_TSTAMP_ENABLE : SNDRV_PCM_TSTAMP_NONE;
	sw.tstamp_type = SNDRV_PCM_TSTAMP_TYPE_MONOTONIC;
	sw.period_step = 1;
	sw.avail_min = 1;
	sw.start_threshold = LONG_MAX;
	sw.stop_threshold = pcm->buffer;
	return ioctl(pcm->fd, SNDRV_PCM_IOCTL_SW_PARAMS, &sw) < 0 ? -errno : 0;
}

/* hw_params, sw_params without time stamps, prepare; 0 or -errno. */
static inline int vloop_pcm_setup_access(struct vloop_pcm *pcm, snd_pcm_access_t access,
					 snd_pcm_format_t format, unsigned int channels,
					 unsigned int rate, snd_pcm_uframes_t period,
					 unsigned int periods)
{
	int ret = vloop_pcm_hw_params(pcm, access, format, channels, rate, period, periods);

	if (!ret)
		ret = vloop_pcm_sw_params(pcm, 0);
	if (!ret && ioctl(pcm->fd, SNDRV_PCM_IOCTL_PREPARE) < 0)
		ret = -errno;
	return ret;
}

/* The same in the access every suite uses: read/write, interleaved. */
static inline int vloop_pcm_setup(struct vloop_pcm *pcm, snd_pcm_format_t format,
				  unsigned int channels, unsigned int rate,
				  snd_pcm_uframes_t period, unsigned int periods)
{
	return vloop_pcm_setup_access(pcm, SNDRV_PCM_ACCESS_RW_INTERLEAVED, format,
				      channels, rate, period, periods);
}

static inline int vloop_pcm_ioctl(struct vloop_pcm *pcm, unsigned long req)
{
	return ioctl(pcm->fd, req) < 0 ? -errno : 0;
}

static inline int vloop_pcm_status(struct vloop_pcm *pcm, struct snd_pcm_status *st)
{
	memset(st, 0, sizeof(*st));
	return ioctl(pcm->fd, SNDRV_PCM_IOCTL_STATUS, st) < 0 ? -errno : 0;
}

/* Frames transferred (>= 0), or -errno (-EAGAIN when nonblocking and full). */
static inline long vloop_pcm_xfer(struct vloop_pcm *pcm, void *buf, snd_pcm_uframes_t frames)
{
	struct snd_xferi x = { .buf = buf, .frames = frames };
	unsigned long req = pcm->stream == SNDRV_PCM_STREAM_PLAYBACK ?
			    SNDRV_PCM_IOCTL_WRITEI_FRAMES : SNDRV_PCM_IOCTL_READI_FRAMES;

	if (ioctl(pcm->fd, req, &x) < 0)
		return -errno;
	return x.result;
}

/* The same in non-interleaved access: @bufs holds one buffer per channel. */
static inline long vloop_pcm_xfern(struct vloop_pcm *pcm, void **bufs, snd_pcm_uframes_t frames)
{
	struct snd_xfern x = { .bufs = bufs, .frames = frames };
	unsigned long req = pcm->stream == SNDRV_PCM_STREAM_PLAYBACK ?
			    SNDRV_PCM_IOCTL_WRITEN_FRAMES : SNDRV_PCM_IOCTL_READN_FRAMES;

	if (ioctl(pcm->fd, req, &x) < 0)
		return -errno;
	return x.result;
}

/*
 * Start a playback of a full buffer of silence (S16_LE, 2 channels, 48 kHz)
 * on PCM device @dev of @card, with kernel time stamps if @tstamp; 0 or
 * -errno.
 */
static inline int vloop_start_playback_dev(struct vloop_pcm *p, int card, int dev,
					   unsigned int period, unsigned int periods, int tstamp)
{
	void *zero;
	long n;
	int ret = vloop_pcm_open_dev(p, card, dev, SNDRV_PCM_STREAM_PLAYBACK, 1);

	if (!ret)
		ret = vloop_pcm_setup(p, SNDRV_PCM_FORMAT_S16_LE, 2, 48000, period, periods);
	if (!ret && tstamp)
		ret = vloop_pcm_sw_params(p, 1);
	if (ret)
		return ret;
	zero = calloc(p->buffer, p->frame_bytes);
	if (!zero)
		return -ENOMEM;
	n = vloop_pcm_xfer(p, zero, p->buffer);
	free(zero);
	if (n < 0)
		return (int)n;
	return vloop_pcm_ioctl(p, SNDRV_PCM_IOCTL_START);
}

static inline int vloop_start_playback(struct vloop_pcm *p, int card,
				       unsigned int period, unsigned int periods)
{
	return vloop_start_playback_dev(p, card, 0, period, periods, 0);
}

/*
 * A pseudo-random, never-zero test signal: sample @k of the stream, fitted
 * to @bits as a positive value. A hash rather than a counter, so a shifted
 * or repeated block cannot match by wrapping around.
 */
static inline int32_t vloop_signal(uint64_t k, int bits)
{
	uint64_t h = (k + 1) * 0x9e3779b97f4a7c15ULL;

	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 32;
	return (int32_t)(h % ((1ULL << (bits - 1)) - 1)) + 1;
}

static inline void vloop_put_sample(uint8_t *p, int32_t v, int bytes)
{
	int i;

	for (i = 0; i < bytes; i++)
		p[i] = (uint8_t)((uint32_t)v >> (8 * i));
}

static inline int32_t vloop_get_sample(const uint8_t *p, int bytes, int bits)
{
	uint32_t v = 0;
	int i;

	for (i = 0; i < bytes; i++)
		v |= (uint32_t)p[i] << (8 * i);
	if (bits < 32)
		v &= (1U << bits) - 1;
	return (int32_t)v;
}

#endif /* VLOOP_H */
