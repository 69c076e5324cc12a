// SPDX-License-Identifier: GPL-2.0+
/*
 * Generic dmaengine PCM: an ASoC component that moves audio with one cyclic
 * dmaengine channel per stream, for any CPU DAI that describes its FIFO in a
 * struct snd_dmaengine_dai_dma_data.
 *
 * The work is split in four jobs, one section each:
 *
 *  - finding channels: by name from the firmware node when the component is
 *    registered (so a missing controller defers the probe), and late, when
 *    the PCM is constructed, by custom name or a platform's compat hook;
 *  - describing the hardware: either the platform's snd_pcm_hardware or one
 *    derived from what the controller reports about itself;
 *  - the buffer: preallocated and managed by the ALSA core;
 *  - the stream ops, thin adapters onto the dmaengine PCM library in
 *    sound/core/pcm_dmaengine.c, which owns the per-substream state.
 *
 * The public layout (struct dmaengine_pcm in <sound/dmaengine_pcm.h>) is
 * kept as the first member of a private one, because drivers such as the
 * Freescale ASRC reach the channels of another instance through it.
 *
 * The design (one PCM component per device, channels found by name in the
 * firmware node, the hardware description derived from the DAI's DMA data
 * and the controller) is Lars-Peter Clausen's generic dmaengine PCM:
 * Copyright (C) 2013, Analog Devices Inc.
 */

#include <kunit/visibility.h>
#include <linux/dma-mapping.h>
#include <linux/dmaengine.h>
#include <linux/module.h>
#include <linux/of.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <sound/dmaengine_pcm.h>
#include <sound/pcm.h>
#include <sound/pcm_params.h>
#include <sound/soc.h>

#include "soc-generic-dmaengine-pcm.h"

/* The name is ABI: it has been snd_soc_core.prealloc_buffer_size_kbytes. */
static unsigned int prealloc_buffer_size_kbytes = 512;
module_param(prealloc_buffer_size_kbytes, uint, 0444);
MODULE_PARM_DESC(prealloc_buffer_size_kbytes,
		 "Buffer preallocated per stream when the platform asks for none (KiB)");

/* Smallest period when the DAI states no burst size: one cache-friendly block. */
#define DMAPCM_MIN_PERIOD_BYTES	256

/**
 * struct dmapcm - one registered generic dmaengine PCM
 * @pcm: the public part; @pcm.component is what ASoC sees
 * @period_counting: per stream, the position is counted in whole periods
 *	because a controller cannot say how far it is in the buffer (the
 *	stream's own, or with no SND_DMAENGINE_PCM_FLAG_RESIDUE_PER_STREAM,
 *	either stream's)
 */
struct dmapcm {
	struct dmaengine_pcm pcm;
	bool period_counting[SNDRV_PCM_STREAM_LAST + 1];
};

static struct dmapcm *to_dmapcm(struct snd_soc_component *component)
{
	return container_of(soc_component_to_pcm(component), struct dmapcm, pcm);
}

/* Multi-CPU links have no single FIFO to describe, so they are refused. */
static bool dmapcm_link_has_one_cpu(struct snd_soc_pcm_runtime *rtd)
{
	if (rtd->dai_link->num_cpus <= 1)
		return true;
	dev_err(rtd->dev, "generic dmaengine PCM needs exactly one CPU DAI, link has %u\n",
		rtd->dai_link->num_cpus);
	return false;
}

/*
 * The CPU DAI's description of its FIFO, or NULL. Read it only where it is
 * needed: a DAI may set it as late as its .startup, which runs after this
 * component's open, and a platform with its own snd_pcm_hardware, channel
 * request or slave config may never set it at all. @rtd is passed in
 * because a substream learns its runtime only when it is opened; at
 * pcm_construct time snd_soc_substream_to_rtd() is still NULL.
 */
static struct snd_dmaengine_dai_dma_data *
dmapcm_dai_dma_data(struct snd_soc_pcm_runtime *rtd,
		    struct snd_pcm_substream *substream)
{
	struct snd_dmaengine_dai_dma_data *dma_data;

	if (!dmapcm_link_has_one_cpu(rtd))
		return NULL;
	dma_data = snd_soc_dai_get_dma_data(snd_soc_rtd_to_cpu(rtd, 0), substream);
	if (!dma_data)
		dev_err(rtd->dev, "CPU DAI %s has no DMA data for the %s stream\n",
			snd_soc_rtd_to_cpu(rtd, 0)->name,
			snd_pcm_direction_name(substream->stream));
	return dma_data;
}

/* ---------------------------------------------------------------------------
 * Finding channels
 */

/*
 * The name a stream's channel has in the firmware node: a half-duplex PCM
 * has a single channel for both directions; a platform may rename them.
 */
VISIBLE_IF_KUNIT const char *dmapcm_chan_name(const struct snd_dmaengine_pcm_config *config,
					      unsigned int flags, int stream)
{
	if (config->chan_names[stream])
		return config->chan_names[stream];
	if (flags & SND_DMAENGINE_PCM_FLAG_HALF_DUPLEX)
		return "rx-tx";
	return stream == SNDRV_PCM_STREAM_PLAYBACK ? "tx" : "rx";
}
EXPORT_SYMBOL_IF_KUNIT(dmapcm_chan_name);

/* Both streams can hold the same channel (half duplex): release it once. */
static bool dmapcm_chan_is_shared(const struct dmaengine_pcm *pcm, int stream)
{
	return stream == SNDRV_PCM_STREAM_CAPTURE &&
	       pcm->chan[SNDRV_PCM_STREAM_CAPTURE] == pcm->chan[SNDRV_PCM_STREAM_PLAYBACK];
}

VISIBLE_IF_KUNIT void dmapcm_release_chans(struct dmaengine_pcm *pcm)
{
	int stream;

	for (stream = SNDRV_PCM_STREAM_LAST; stream >= 0; stream--) {
		if (pcm->chan[stream] && !dmapcm_chan_is_shared(pcm, stream))
			dma_release_channel(pcm->chan[stream]);
		pcm->chan[stream] = NULL;
	}
}
EXPORT_SYMBOL_IF_KUNIT(dmapcm_release_chans);

/* Which device's firmware node describes the channels, if any does. */
VISIBLE_IF_KUNIT struct device *dmapcm_fw_dev(struct device *dev,
					      const struct snd_dmaengine_pcm_config *config,
					      unsigned int flags)
{
	struct device *fw_dev = config->dma_dev ?: dev;

	if (flags & SND_DMAENGINE_PCM_FLAG_NO_DT)
		return NULL;
	if (!dev->of_node && !(config->dma_dev && config->dma_dev->of_node))
		return NULL;
	if (config->dma_dev)
		/* Usually a sign the device model does not match the hardware. */
		dev_warn(dev, "DMA channels sourced from device %s\n",
			 dev_name(config->dma_dev));
	return fw_dev;
}
EXPORT_SYMBOL_IF_KUNIT(dmapcm_fw_dev);

/*
 * Request the channels named in the firmware node. A channel that is not
 * described is not an error here: a DAI may well do only one direction, and
 * pcm_construct() complains about the streams that are left without one.
 * A controller that is described but not bound yet defers the probe.
 */
static int dmapcm_request_fw_chans(struct dmaengine_pcm *pcm, struct device *dev)
{
	struct device *fw_dev = dmapcm_fw_dev(dev, pcm->config, pcm->flags);
	struct dma_chan *chan;
	int stream;

	if (!fw_dev)
		return 0;

	for_each_pcm_streams(stream) {
		if (stream == SNDRV_PCM_STREAM_CAPTURE &&
		    (pcm->flags & SND_DMAENGINE_PCM_FLAG_HALF_DUPLEX)) {
			pcm->chan[stream] = pcm->chan[SNDRV_PCM_STREAM_PLAYBACK];
			break;
		}
		chan = dma_request_chan(fw_dev, dmapcm_chan_name(pcm->config, pcm->flags, stream));
		if (IS_ERR(chan)) {
			if (PTR_ERR(chan) == -EPROBE_DEFER)
				return -EPROBE_DEFER;
			chan = NULL;
		}
		pcm->chan[stream] = chan;
	}
	return 0;
}

/* The platform's own way to find a channel, for boards without firmware. */
static struct dma_chan *dmapcm_compat_chan(struct dmaengine_pcm *pcm,
					   struct snd_soc_pcm_runtime *rtd,
					   struct snd_pcm_substream *substream)
{
	struct snd_dmaengine_dai_dma_data *dma_data;

	if (!dmapcm_link_has_one_cpu(rtd))
		return NULL;
	if ((pcm->flags & SND_DMAENGINE_PCM_FLAG_HALF_DUPLEX) &&
	    pcm->chan[SNDRV_PCM_STREAM_PLAYBACK])
		return pcm->chan[SNDRV_PCM_STREAM_PLAYBACK];
	if (pcm->config->compat_request_channel)
		return pcm->config->compat_request_channel(rtd, substream);

	/* Only the filter needs the DAI: its argument is the DAI's filter_data. */
	dma_data = dmapcm_dai_dma_data(rtd, substream);
	if (!dma_data)
		return NULL;
	return snd_dmaengine_pcm_request_channel(pcm->config->compat_filter_fn,
						 dma_data->filter_data);
}

/* A stream without a channel from the firmware node gets a late chance. */
static struct dma_chan *dmapcm_late_chan(struct dmaengine_pcm *pcm,
					 struct snd_soc_pcm_runtime *rtd,
					 struct snd_pcm_substream *substream)
{
	const char *name = pcm->config->chan_names[substream->stream];
	struct dma_chan *chan = NULL;

	if (name) {
		chan = dma_request_chan(pcm->component.dev, name);
		if (IS_ERR(chan))
			chan = NULL;
	}
	if (!chan && (pcm->flags & SND_DMAENGINE_PCM_FLAG_COMPAT))
		chan = dmapcm_compat_chan(pcm, rtd, substream);
	return chan;
}

/*
 * Whether the controller can tell the position inside the cyclic buffer.
 * Controllers that only count whole descriptors leave us counting periods.
 */
static bool dmapcm_needs_period_counting(struct device *dev, struct dma_chan *chan)
{
	struct dma_slave_caps caps;
	int ret;

	ret = dma_get_slave_caps(chan, &caps);
	if (ret) {
		dev_warn(dev, "DMA channel %s reports no capabilities (%d), counting periods instead of reading the residue\n",
			 dma_chan_name(chan), ret);
		return true;
	}
	return caps.residue_granularity == DMA_RESIDUE_GRANULARITY_DESCRIPTOR;
}

/* ---------------------------------------------------------------------------
 * Describing the hardware
 */

/* At least eight bursts of the widest bus per period, as controllers prefer. */
VISIBLE_IF_KUNIT size_t dmapcm_period_bytes_min(u32 maxburst)
{
	if (!maxburst)
		return DMAPCM_MIN_PERIOD_BYTES;
	return (size_t)maxburst * DMA_SLAVE_BUSWIDTH_8_BYTES;
}
EXPORT_SYMBOL_IF_KUNIT(dmapcm_period_bytes_min);

/*
 * The part of the description that follows from the DAI and the controller's
 * segment size alone; formats, pause and batch come from the channel's caps.
 */
VISIBLE_IF_KUNIT void dmapcm_base_hw(struct snd_pcm_hardware *hw,
				     const struct snd_dmaengine_dai_dma_data *dma_data,
				     unsigned int max_seg_size, bool period_counting)
{
	memset(hw, 0, sizeof(*hw));
	hw->info = SNDRV_PCM_INFO_MMAP | SNDRV_PCM_INFO_MMAP_VALID |
		   SNDRV_PCM_INFO_INTERLEAVED;
	if (period_counting)
		hw->info |= SNDRV_PCM_INFO_BATCH;
	hw->periods_min = 2;
	hw->periods_max = UINT_MAX;
	hw->period_bytes_min = dmapcm_period_bytes_min(dma_data->maxburst);
	hw->period_bytes_max = max_seg_size;
	hw->buffer_bytes_max = SIZE_MAX;
	hw->fifo_size = dma_data->fifo_size;
}
EXPORT_SYMBOL_IF_KUNIT(dmapcm_base_hw);

static int dmapcm_set_runtime_hw(struct dmapcm *priv,
				 struct snd_pcm_substream *substream)
{
	struct snd_soc_pcm_runtime *rtd = snd_soc_substream_to_rtd(substream);
	struct dma_chan *chan = priv->pcm.chan[substream->stream];
	struct snd_dmaengine_dai_dma_data *dma_data;
	struct snd_pcm_hardware hw;

	if (!dmapcm_link_has_one_cpu(rtd))
		return -EINVAL;
	/* The platform's own description needs nothing from the DAI. */
	if (priv->pcm.config->pcm_hardware)
		return snd_soc_set_runtime_hwparams(substream,
						    priv->pcm.config->pcm_hardware);

	dma_data = dmapcm_dai_dma_data(rtd, substream);
	if (!dma_data)
		return -EINVAL;

	dmapcm_base_hw(&hw, dma_data, dma_get_max_seg_size(chan->device->dev),
		       priv->period_counting[substream->stream]);
	/*
	 * A controller without slave caps still works with the library's
	 * default widths (1, 2 and 4 bytes), so its error is not fatal.
	 */
	snd_dmaengine_pcm_refine_runtime_hwparams(substream, dma_data, &hw, chan);

	return snd_soc_set_runtime_hwparams(substream, &hw);
}

/* ---------------------------------------------------------------------------
 * The buffer
 */

VISIBLE_IF_KUNIT size_t dmapcm_prealloc_bytes(const struct snd_dmaengine_pcm_config *config)
{
	if (config->prealloc_buffer_size)
		return config->prealloc_buffer_size;
	return (size_t)prealloc_buffer_size_kbytes * 1024;
}
EXPORT_SYMBOL_IF_KUNIT(dmapcm_prealloc_bytes);

VISIBLE_IF_KUNIT size_t dmapcm_max_buffer_bytes(const struct snd_dmaengine_pcm_config *config)
{
	if (config->pcm_hardware && config->pcm_hardware->buffer_bytes_max)
		return config->pcm_hardware->buffer_bytes_max;
	return SIZE_MAX;
}
EXPORT_SYMBOL_IF_KUNIT(dmapcm_max_buffer_bytes);

/*
 * As in 6.12, one stream that must count periods makes the whole PCM count
 * them, unless the platform asked for the decision per stream: a playback
 * channel with an exact residue then keeps reporting positions inside a
 * period although its capture twin cannot.
 */
static void dmapcm_share_period_counting(struct dmapcm *priv)
{
	bool any = false;
	int stream;

	if (priv->pcm.flags & SND_DMAENGINE_PCM_FLAG_RESIDUE_PER_STREAM)
		return;
	for_each_pcm_streams(stream)
		any |= priv->period_counting[stream];
	for_each_pcm_streams(stream)
		priv->period_counting[stream] = any;
}

/* ---------------------------------------------------------------------------
 * Component ops
 */

/* Give every stream the PCM has a channel and a buffer the channel can reach. */
static int dmapcm_construct(struct snd_soc_component *component,
			    struct snd_soc_pcm_runtime *rtd)
{
	struct dmapcm *priv = to_dmapcm(component);
	struct dmaengine_pcm *pcm = &priv->pcm;
	struct snd_pcm *spcm = rtd->pcm;
	int stream;

	for_each_pcm_streams(stream) {
		struct snd_pcm_substream *substream = spcm->streams[stream].substream;

		if (!substream)
			continue;
		if (!pcm->chan[stream])
			pcm->chan[stream] = dmapcm_late_chan(pcm, rtd, substream);
		if (!pcm->chan[stream]) {
			dev_err(component->dev, "no DMA channel for the %s stream (looked for \"%s\")\n",
				snd_pcm_direction_name(stream),
				dmapcm_chan_name(pcm->config, pcm->flags, stream));
			return -EINVAL;
		}

		snd_pcm_set_managed_buffer(substream, SNDRV_DMA_TYPE_DEV_IRAM,
					   pcm->chan[stream]->device->dev,
					   dmapcm_prealloc_bytes(pcm->config),
					   dmapcm_max_buffer_bytes(pcm->config));
		priv->period_counting[stream] =
			dmapcm_needs_period_counting(component->dev, pcm->chan[stream]);
	}
	dmapcm_share_period_counting(priv);

	if (!spcm->name[0])
		strscpy_pad(spcm->name, spcm->id, sizeof(spcm->name));
	return 0;
}

static int dmapcm_open(struct snd_soc_component *component,
		       struct snd_pcm_substream *substream)
{
	struct dmapcm *priv = to_dmapcm(component);
	int ret;

	ret = dmapcm_set_runtime_hw(priv, substream);
	if (ret)
		return ret;
	return snd_dmaengine_pcm_open(substream, priv->pcm.chan[substream->stream]);
}

static int dmapcm_close(struct snd_soc_component *component,
			struct snd_pcm_substream *substream)
{
	return snd_dmaengine_pcm_close(substream);
}

static int dmapcm_hw_params(struct snd_soc_component *component,
			    struct snd_pcm_substream *substream,
			    struct snd_pcm_hw_params *params)
{
	const struct snd_dmaengine_pcm_config *config = to_dmapcm(component)->pcm.config;
	struct dma_slave_config slave_config = {};
	int ret;

	/* Without the hook the platform programs the channel itself. */
	if (!config->prepare_slave_config)
		return 0;

	ret = config->prepare_slave_config(substream, params, &slave_config);
	if (ret)
		return ret;
	return dmaengine_slave_config(snd_dmaengine_pcm_get_chan(substream), &slave_config);
}

static int dmapcm_trigger(struct snd_soc_component *component,
			  struct snd_pcm_substream *substream, int cmd)
{
	return snd_dmaengine_pcm_trigger(substream, cmd);
}

static snd_pcm_uframes_t dmapcm_pointer(struct snd_soc_component *component,
					struct snd_pcm_substream *substream)
{
	if (to_dmapcm(component)->period_counting[substream->stream])
		return snd_dmaengine_pcm_pointer_no_residue(substream);
	return snd_dmaengine_pcm_pointer(substream);
}

static int dmapcm_sync_stop(struct snd_soc_component *component,
			    struct snd_pcm_substream *substream)
{
	return snd_dmaengine_pcm_sync_stop(substream);
}

/*
 * Copy between user space and the DMA buffer around the platform's process
 * hook: playback data is processed after it lands in the buffer, capture
 * data before it leaves.
 */
static int dmapcm_copy(struct snd_soc_component *component,
		       struct snd_pcm_substream *substream, int channel,
		       unsigned long hwoff, struct iov_iter *iter,
		       unsigned long bytes)
{
	const struct snd_dmaengine_pcm_config *config = to_dmapcm(component)->pcm.config;
	struct snd_pcm_runtime *runtime = substream->runtime;
	bool playback = substream->stream == SNDRV_PCM_STREAM_PLAYBACK;
	unsigned long channel_bytes = runtime->dma_bytes / runtime->channels;
	void *buf = runtime->dma_area + hwoff + channel * channel_bytes;
	int ret;

	if (playback && copy_from_iter(buf, bytes, iter) != bytes)
		return -EFAULT;

	ret = config->process(substream, channel, hwoff, bytes);
	if (ret < 0)
		return ret;

	if (!playback && copy_to_iter(buf, bytes, iter) != bytes)
		return -EFAULT;
	return 0;
}

/*
 * The .copy op is only offered to platforms with a process hook: its mere
 * presence makes the core route every read and write through it.
 */
#define DMAPCM_COMPONENT_DRIVER(copy_op) {				\
	.name		= SND_DMAENGINE_PCM_DRV_NAME,			\
	/* After the DAI components, whose DMA data the ops read. */	\
	.probe_order	= SND_SOC_COMP_ORDER_LATE,			\
	.pcm_construct	= dmapcm_construct,				\
	.open		= dmapcm_open,					\
	.close		= dmapcm_close,					\
	.hw_params	= dmapcm_hw_params,				\
	.trigger	= dmapcm_trigger,				\
	.pointer	= dmapcm_pointer,				\
	.sync_stop	= dmapcm_sync_stop,				\
	.copy		= copy_op,					\
}

static const struct snd_soc_component_driver dmapcm_driver =
	DMAPCM_COMPONENT_DRIVER(NULL);
static const struct snd_soc_component_driver dmapcm_driver_with_process =
	DMAPCM_COMPONENT_DRIVER(dmapcm_copy);

/* ---------------------------------------------------------------------------
 * Registration
 */

/**
 * snd_dmaengine_pcm_prepare_slave_config() - fill a slave config from the DAI
 * @substream: the stream being configured
 * @params: the hardware parameters chosen for it
 * @slave_config: filled in; the caller hands it to dmaengine_slave_config()
 *
 * The ready-made &snd_dmaengine_pcm_config.prepare_slave_config for a CPU
 * DAI that describes its FIFO in a struct snd_dmaengine_dai_dma_data: the
 * transfer direction and bus width follow from @params, the FIFO address,
 * burst size and any peripheral data from the DAI.
 *
 * Return: 0 on success, -EINVAL for a link with more than one CPU DAI or a
 * format the DMA cannot carry.
 */
int snd_dmaengine_pcm_prepare_slave_config(struct snd_pcm_substream *substream,
					   struct snd_pcm_hw_params *params,
					   struct dma_slave_config *slave_config)
{
	struct snd_soc_pcm_runtime *rtd = snd_soc_substream_to_rtd(substream);
	struct snd_dmaengine_dai_dma_data *dma_data;
	int ret;

	dma_data = dmapcm_dai_dma_data(rtd, substream);
	if (!dma_data)
		return -EINVAL;

	ret = snd_hwparams_to_dma_slave_config(substream, params, slave_config);
	if (ret)
		return ret;

	snd_dmaengine_pcm_set_config_from_dai_data(substream, dma_data, slave_config);
	return 0;
}
EXPORT_SYMBOL_GPL(snd_dmaengine_pcm_prepare_slave_config);

static const struct snd_dmaengine_pcm_config dmapcm_default_config = {
	.prepare_slave_config = snd_dmaengine_pcm_prepare_slave_config,
};

/**
 * snd_dmaengine_pcm_register() - add a PCM component that moves audio by DMA
 * @dev: device of the audio interface; the component is added on it
 * @config: how this platform differs from the defaults, or NULL for none
 * @flags: SND_DMAENGINE_PCM_FLAG_* for channel lookup and sharing
 *
 * Adds an ASoC component, named SND_DMAENGINE_PCM_DRV_NAME unless
 * @config->name says otherwise, whose PCM streams each run on a cyclic
 * dmaengine channel. Channels the firmware node of @dev (or of
 * @config->dma_dev) describes are requested here; the others when the PCM
 * is constructed. @config must outlive the registration.
 *
 * Return: 0 on success, -EPROBE_DEFER while a described DMA controller has
 * not been bound yet, another negative error code otherwise.
 */
int snd_dmaengine_pcm_register(struct device *dev,
			       const struct snd_dmaengine_pcm_config *config,
			       unsigned int flags)
{
	const struct snd_soc_component_driver *driver;
	struct dmapcm *priv;
	int ret;

	priv = kzalloc(sizeof(*priv), GFP_KERNEL);
	if (!priv)
		return -ENOMEM;

	priv->pcm.config = config ?: &dmapcm_default_config;
	priv->pcm.flags = flags;
	priv->pcm.component.name = priv->pcm.config->name;
#ifdef CONFIG_DEBUG_FS
	priv->pcm.component.debugfs_prefix = "dma";
#endif
	ret = dmapcm_request_fw_chans(&priv->pcm, dev);
	if (ret)
		goto err_release_chans;

	driver = priv->pcm.config->process ? &dmapcm_driver_with_process : &dmapcm_driver;
	ret = snd_soc_component_initialize(&priv->pcm.component, driver, dev);
	if (ret)
		goto err_release_chans;

	ret = snd_soc_add_component(&priv->pcm.component, NULL, 0);
	if (ret)
		goto err_release_chans;
	return 0;

err_release_chans:
	dmapcm_release_chans(&priv->pcm);
	kfree(priv);
	return ret;
}
EXPORT_SYMBOL_GPL(snd_dmaengine_pcm_register);

/**
 * snd_dmaengine_pcm_unregister() - undo snd_dmaengine_pcm_register()
 * @dev: the device given at registration
 *
 * Takes the DMA PCM component off @dev, found by its driver name whatever
 * @config->name was, and gives its channels back. Other components on @dev,
 * such as the DAI's, stay. Nothing happens if there is none.
 */
void snd_dmaengine_pcm_unregister(struct device *dev)
{
	struct snd_soc_component *component;
	struct dmapcm *priv;

	component = snd_soc_lookup_component(dev, SND_DMAENGINE_PCM_DRV_NAME);
	if (!component)
		return;

	priv = to_dmapcm(component);
	snd_soc_unregister_component_by_driver(dev, component->driver);
	dmapcm_release_chans(&priv->pcm);
	kfree(priv);
}
EXPORT_SYMBOL_GPL(snd_dmaengine_pcm_unregister);
