// SPDX-License-Identifier: GPL-2.0
/*
 * dmaengine-pcm-bench: a full-duplex stream at 48 kHz S16 stereo over a
 * sweep of period sizes (16 to 1024 frames) and counts (2 to 4), on the
 * virtual loopback (generic dmaengine PCM on vdma + vi2s) and on snd-aloop
 * as a baseline. Per configuration: xruns, the playback pointer's error
 * against a line fitted through (time, position) samples (RMS and max, in
 * frames), and the guest's CPU time per period. The whole sweep runs REPS
 * times, so that a stall of the host hits different rows each time; the
 * report takes the median of each value.
 *
 * Output, one line per configuration and run:
 *   bench <target> period=<p> periods=<n> xruns=<x> rms=<f> max=<f> cpu_us=<f>
 */
#include "../guest/vloop.h"

#define SECONDS		2.0
#define REPS		3
#define MAX_SAMPLES	200000

struct target {
	const char *name;
	int card, play_dev, cap_dev;
};

static long long cpu_busy_ticks(void)
{
	char buf[512];
	long long v[8] = { 0 };

	if (lab_read("/proc/stat", buf, sizeof(buf)) <= 0)
		return 0;
	sscanf(buf, "cpu %lld %lld %lld %lld %lld %lld %lld", &v[0], &v[1], &v[2], &v[3],
	       &v[4], &v[5], &v[6]);
	return v[0] + v[1] + v[2] + v[5] + v[6];	/* user nice system irq softirq */
}

/* No libm in the guest build: Newton's square root is plenty here. */
static double root(double x)
{
	double r = x > 1 ? x : 1;
	int i;

	if (x <= 0)
		return 0;
	for (i = 0; i < 60; i++)
		r = (r + x / r) / 2;
	return r;
}

struct fit {
	double t[MAX_SAMPLES], pos[MAX_SAMPLES];
	int n;
};

static struct fit fit;

/* Least-squares line through the samples; RMS and max residual. */
static void fit_line(const struct fit *f, double *rms, double *max)
{
	double st = 0, sp = 0, stt = 0, stp = 0, a, b, r, s2 = 0;
	int i;

	*rms = *max = -1;
	if (f->n < 3)
		return;
	for (i = 0; i < f->n; i++) {
		st += f->t[i];
		sp += f->pos[i];
		stt += f->t[i] * f->t[i];
		stp += f->t[i] * f->pos[i];
	}
	b = (f->n * stp - st * sp) / (f->n * stt - st * st);
	a = (sp - b * st) / f->n;
	*max = 0;
	for (i = 0; i < f->n; i++) {
		r = f->pos[i] - (a + b * f->t[i]);
		r = r < 0 ? -r : r;
		s2 += r * r;
		if (r > *max)
			*max = r;
	}
	*rms = root(s2 / f->n);
}

static int restart(struct vloop_pcm *play, struct vloop_pcm *cap, void *zero)
{
	vloop_pcm_ioctl(play, SNDRV_PCM_IOCTL_DROP);
	vloop_pcm_ioctl(cap, SNDRV_PCM_IOCTL_DROP);
	if (vloop_pcm_ioctl(play, SNDRV_PCM_IOCTL_PREPARE) ||
	    vloop_pcm_ioctl(cap, SNDRV_PCM_IOCTL_PREPARE))
		return -1;
	vloop_pcm_xfer(play, zero, play->buffer);
	if (vloop_pcm_ioctl(cap, SNDRV_PCM_IOCTL_START) ||
	    vloop_pcm_ioctl(play, SNDRV_PCM_IOCTL_START))
		return -1;
	return 0;
}

/* Sample the playback pointer into the fit (first xrun-free run only). */
static void sample(struct vloop_pcm *play, double t0, int *frozen)
{
	struct snd_pcm_status st;

	if (*frozen || fit.n >= MAX_SAMPLES || vloop_pcm_status(play, &st))
		return;
	fit.t[fit.n] = lab_now() - t0;
	fit.pos[fit.n++] = st.hw_ptr;
}

static void run_config(const struct target *tg, unsigned int period, unsigned int periods)
{
	struct vloop_pcm play = { .fd = -1 }, cap = { .fd = -1 };
	static char zero[1 << 20], sink[1 << 20];
	int xruns = 0, frozen = 0;
	long long c0, c1;
	double t0, end, rms, max, cpu_us = -1;
	long n;

	fit.n = 0;
	if (vloop_pcm_open_dev(&cap, tg->card, tg->cap_dev, SNDRV_PCM_STREAM_CAPTURE, 1) ||
	    vloop_pcm_open_dev(&play, tg->card, tg->play_dev, SNDRV_PCM_STREAM_PLAYBACK, 1) ||
	    vloop_pcm_setup(&cap, SNDRV_PCM_FORMAT_S16_LE, 2, 48000, period, periods) ||
	    vloop_pcm_setup(&play, SNDRV_PCM_FORMAT_S16_LE, 2, 48000, period, periods) ||
	    restart(&play, &cap, zero)) {
		printf("bench %s period=%u periods=%u error=%s\n", tg->name, period, periods,
		       strerror(errno));
		goto out;
	}
	c0 = cpu_busy_ticks();
	t0 = lab_now();
	for (end = t0 + SECONDS; lab_now() < end;) {
		struct pollfd pfd[2] = { { play.fd, POLLOUT, 0 }, { cap.fd, POLLIN, 0 } };

		poll(pfd, 2, 1);
		sample(&play, t0, &frozen);
		n = vloop_pcm_xfer(&play, zero, play.buffer);
		if (n == -EPIPE || vloop_pcm_xfer(&cap, sink, sizeof(sink) / 4) == -EPIPE) {
			xruns++;
			frozen = 1;
			if (restart(&play, &cap, zero))
				break;
		}
	}
	c1 = cpu_busy_ticks();
	/* USER_HZ is 100: a tick is 10 ms. */
	cpu_us = (c1 - c0) * 10000.0 / (SECONDS * 48000 / period);
	fit_line(&fit, &rms, &max);
	printf("bench %s period=%u periods=%u xruns=%d rms=%.1f max=%.1f cpu_us=%.1f\n",
	       tg->name, period, periods, xruns, rms, max, cpu_us);
out:
	vloop_pcm_close(&play);
	vloop_pcm_close(&cap);
}

static void sweep(const struct target *tg)
{
	static const unsigned int sizes[] = { 16, 32, 64, 128, 256, 512, 1024 };
	unsigned int i, periods;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		for (periods = 2; periods <= 4; periods++)
			run_config(tg, sizes[i], periods);
}

int main(void)
{
	struct target vloop = { "vloop", -1, 0, 0 }, aloop = { "aloop", -1, 0, 1 };
	int id, rep;

	setvbuf(stdout, NULL, _IOLBF, 0);
	lab_sh(NULL, 0, "modprobe vdma && modprobe vi2s && modprobe snd-aloop");
	id = vloop_bind("vloop", &vloop.card);
	aloop.card = vloop_card("Loopback");
	printf("# variant %s, vloop card %d, snd-aloop card %d\n",
	       getenv("LAB_VARIANT") ?: "?", vloop.card, aloop.card);
	for (rep = 0; rep < REPS; rep++) {
		if (vloop.card >= 0)
			sweep(&vloop);
		if (aloop.card >= 0)
			sweep(&aloop);
	}
	lab_overlay_remove(id);
	return vloop.card >= 0 ? 0 : 1;
}
