// SPDX-License-Identifier: GPL-2.0
/*
 * dmaengine-pcm-bench: what can differ between our generic dmaengine PCM
 * (sound/soc/soc-generic-dmaengine-pcm.c) and 6.12's, measured on the
 * virtual loopback (vdma + vi2s), with snd-aloop alongside as a baseline
 * whose code is the same on both kernels:
 *
 *  - the cost of each call a stream's life makes into the component: open,
 *    hw_params, prepare, hw_free, close, and a status call on a running
 *    stream (the component's pointer callback);
 *  - the pointer's accuracy for each residue granularity a controller can
 *    report (burst, segment, descriptor), and for a playback channel with
 *    residue per burst on a PCM whose capture channel only counts whole
 *    descriptors (vi2s way "residue-split": this project's per-stream
 *    opt-in; on 6.12 the flag does not exist and the PCM counts periods).
 *
 * Accuracy comes from the kernel's own time of each position: the status
 * call's driver_tstamp, taken when the core has accounted the position the
 * pointer callback gave (update_audio_tstamp()), paired with that hw_ptr. A clock read after the ioctl returns would
 * add the system call's exit and any preemption to every sample. The error
 * is the distance of each position from the straight line fitted through
 * all of them: a pointer that moves by whole periods shows up as a
 * sawtooth of about period/sqrt(12) RMS.
 *
 * Output, one line per measurement and run (RUNS runs, interleaved):
 *   cost <target> <dir> open=<us> hw_params=<us> prepare=<us> hw_free=<us> close=<us> status=<us>
 *   pointer <config> rms=<frames> max=<frames> per_period=<positions> xruns=<n> samples=<n>
 * A measurement that cannot be made prints "error=<reason>" and the
 * program exits 1.
 */
#include "../guest/vloop.h"

#define RUNS		3
#define CYCLES		100		/* stream lives per cost measurement */
#define STATUS_CALLS	200		/* status calls per cost measurement */
#define RATE		48000
#define PTR_PERIOD	256
#define PTR_PERIODS	4
#define PTR_SECONDS	2.0
#define MAX_SAMPLES	20000
#define MIN_SAMPLES	100		/* positions a walk needs to count */

#define GRANULARITY	"/sys/module/vdma/parameters/residue_granularity"
#define CHAN_RESIDUE	"/sys/module/vdma/parameters/chan_residue"
#define WAY		"/sys/module/vi2s/parameters/way"

enum { OP_OPEN, OP_HW_PARAMS, OP_PREPARE, OP_HW_FREE, OP_CLOSE, OP_STATUS, OP_N };
static const char * const op_name[OP_N] = {
	"open", "hw_params", "prepare", "hw_free", "close", "status",
};

/* Microseconds per call of each op; a stream's life fills one column. */
static double us[OP_N][STATUS_CALLS];

struct fit {
	double t[MAX_SAMPLES], pos[MAX_SAMPLES];
	int n;
};

static struct fit fit;
static int failed;

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Run @call, store the microseconds it took in @slot; the call's value. */
#define TIMED(slot, call) ({					\
	double _t0 = lab_now();					\
	int _ret = (call);					\
	(slot) = (lab_now() - _t0) * 1e6;			\
	_ret;							\
})

/* One stream's life on @path, each call timed into column @i; 0 or -errno. */
static int one_life(const char *path, int i)
{
	struct vloop_pcm p = { 0 };
	int ret;

	TIMED(us[OP_OPEN][i], p.fd = open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK));
	if (p.fd < 0)
		return -errno;
	ret = TIMED(us[OP_HW_PARAMS][i],
		    vloop_pcm_hw_params(&p, SNDRV_PCM_ACCESS_RW_INTERLEAVED,
					SNDRV_PCM_FORMAT_S16_LE, 2, RATE, 1024, 4));
	if (!ret)
		ret = vloop_pcm_sw_params(&p, 1);
	if (!ret)
		ret = TIMED(us[OP_PREPARE][i], vloop_pcm_ioctl(&p, SNDRV_PCM_IOCTL_PREPARE));
	if (!ret)
		ret = TIMED(us[OP_HW_FREE][i], vloop_pcm_ioctl(&p, SNDRV_PCM_IOCTL_HW_FREE));
	TIMED(us[OP_CLOSE][i], close(p.fd));
	return ret;
}

/* Status calls on a running playback stream: the pointer callback's cost. */
static int status_cost(int card, int dev)
{
	struct snd_pcm_status st;
	struct vloop_pcm p;
	int i, ret;

	ret = vloop_start_playback_dev(&p, card, dev, 4096, 8, 1);
	for (i = 0; !ret && i < STATUS_CALLS; i++)
		ret = TIMED(us[OP_STATUS][i], vloop_pcm_status(&p, &st));
	if (!ret && st.state != SNDRV_PCM_STATE_RUNNING)
		ret = -EPIPE;
	vloop_pcm_close(&p);
	return ret;
}

static void cost(const char *target, int card, int dev, int stream)
{
	const char *dir = stream == SNDRV_PCM_STREAM_PLAYBACK ? "playback" : "capture";
	char path[64], line[256];
	int i, op, n = 0, ret = 0;

	snprintf(path, sizeof(path), "/dev/snd/pcmC%dD%d%c", card, dev,
		 stream == SNDRV_PCM_STREAM_PLAYBACK ? 'p' : 'c');
	for (i = 0; !ret && i < CYCLES; i++)
		ret = one_life(path, i);
	if (!ret && stream == SNDRV_PCM_STREAM_PLAYBACK)
		ret = status_cost(card, dev);
	if (ret) {
		printf("cost %s %s error=%s\n", target, dir, strerror(-ret));
		failed = 1;
		return;
	}
	for (op = 0; op < OP_N; op++) {
		if (op == OP_STATUS && stream != SNDRV_PCM_STREAM_PLAYBACK)
			break;
		n += snprintf(line + n, sizeof(line) - n, " %s=%.1f", op_name[op],
			      median(us[op], op == OP_STATUS ? STATUS_CALLS : CYCLES));
	}
	printf("cost %s %s%s\n", target, dir, line);
}

/* The guest programs link without libm: Newton's square root will do. */
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

/* Least-squares line through the samples; RMS and largest residual. */
static void fit_line(const struct fit *f, double *rms, double *max)
{
	double st = 0, sp = 0, stt = 0, stp = 0, a, b, r, s2 = 0;
	int i;

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

/*
 * Keep a playback stream fed for PTR_SECONDS, sampling its position about
 * every millisecond with the kernel's time of each; stops at an xrun.
 * Returns 0 or -errno; *@xruns 1 if the stream ran dry, *@distinct the
 * number of different positions seen.
 */
static int pointer_walk(int card, int dev, int *xruns, int *distinct)
{
	static char zero[PTR_PERIOD * PTR_PERIODS * 4];
	struct snd_pcm_status st;
	struct vloop_pcm p;
	long long last = -1;
	time_t t0_sec = 0;
	double end;
	int ret;

	fit.n = *xruns = *distinct = 0;
	ret = vloop_start_playback_dev(&p, card, dev, PTR_PERIOD, PTR_PERIODS, 1);
	for (end = lab_now() + PTR_SECONDS; !ret && lab_now() < end; lab_sleep_ms(1)) {
		ret = vloop_pcm_status(&p, &st);
		if (ret)
			break;
		if (st.state != SNDRV_PCM_STATE_RUNNING) {
			*xruns = 1;
			break;
		}
		if (!st.driver_tstamp.tv_sec && !st.driver_tstamp.tv_nsec) {
			ret = -ENOTSUP;	/* a kernel without driver time stamps */
			break;
		}
		if (!t0_sec)
			t0_sec = st.driver_tstamp.tv_sec;
		if (fit.n < MAX_SAMPLES) {
			/* Seconds since the first sample: the fit stays well conditioned. */
			fit.t[fit.n] = st.driver_tstamp.tv_sec - t0_sec +
				       st.driver_tstamp.tv_nsec * 1e-9;
			fit.pos[fit.n++] = st.hw_ptr;
		}
		*distinct += (long long)st.hw_ptr != last;
		last = st.hw_ptr;
		if (st.avail)
			vloop_pcm_xfer(&p, zero, st.avail);
	}
	vloop_pcm_close(&p);
	return ret;
}

/*
 * A walk the guest cut short with an xrun (a vCPU not scheduled for the
 * 21 ms the buffer holds) is tried again, twice at most; xruns counts them.
 */
static void pointer(const char *config, int card, int dev)
{
	double rms, max, periods;
	int xruns = 0, xrun = 0, distinct = 0, ret, tries = 0;

	do {
		ret = card < 0 ? -ENODEV : pointer_walk(card, dev, &xrun, &distinct);
		xruns += xrun;
	} while (!ret && xrun && fit.n < MIN_SAMPLES && ++tries < 3);
	if (!ret && fit.n < MIN_SAMPLES)
		ret = -ENODATA;
	if (ret) {
		printf("pointer %s error=%s\n", config, strerror(-ret));
		failed = 1;
		return;
	}
	fit_line(&fit, &rms, &max);
	periods = (fit.pos[fit.n - 1] - fit.pos[0]) / PTR_PERIOD;
	printf("pointer %s rms=%.1f max=%.1f per_period=%.2f xruns=%d samples=%d\n", config,
	       rms, max, periods > 0 ? distinct / periods : 0, xruns, fit.n);
}

/*
 * The loopback bound with vdma reporting @granularity (per channel
 * @chan_residue) and vi2s registering the PCM @way; the overlay's id, the
 * card in *@card (-1: none).
 */
static int bind(int granularity, const char *chan_residue, const char *way, int *card)
{
	lab_sh(NULL, 0, "echo %d > " GRANULARITY " && echo %s > " CHAN_RESIDUE
	       " && echo %s > " WAY, granularity, chan_residue, way);
	return vloop_bind("vloop", card);
}

/* One run: the costs on the default registration, then every pointer. */
static void run(int aloop)
{
	static const struct {
		const char *config, *chan_residue, *way;
		int granularity;
	} ptr[] = {
		{ "burst", "-1,-1", "default", 2 },
		{ "segment", "-1,-1", "default", 1 },
		{ "descriptor", "-1,-1", "default", 0 },
		{ "split", "2,0", "residue-split", 2 },
	};
	unsigned int i;
	int id, card;

	for (i = 0; i < sizeof(ptr) / sizeof(ptr[0]); i++) {
		id = bind(ptr[i].granularity, ptr[i].chan_residue, ptr[i].way, &card);
		if (!i) {
			cost("vloop", card, 0, SNDRV_PCM_STREAM_PLAYBACK);
			cost("vloop", card, 0, SNDRV_PCM_STREAM_CAPTURE);
		}
		pointer(ptr[i].config, card, 0);
		vloop_unbind(id);
	}
	lab_sh(NULL, 0, "echo 2 > " GRANULARITY " && echo -1,-1 > " CHAN_RESIDUE
	       " && echo default > " WAY);
	if (aloop < 0)
		return;
	cost("aloop", aloop, 0, SNDRV_PCM_STREAM_PLAYBACK);
	pointer("aloop", aloop, 0);
}

int main(void)
{
	int r, aloop;

	setvbuf(stdout, NULL, _IOLBF, 0);
	lab_sh(NULL, 0, "modprobe vdma && modprobe vi2s && modprobe snd-aloop");
	aloop = vloop_card("Loopback");
	printf("# variant %s, snd-aloop card %d\n", getenv("LAB_VARIANT") ?: "?", aloop);
	if (aloop < 0)
		failed = 1;
	for (r = 0; r < RUNS; r++)
		run(aloop);
	return failed;
}
