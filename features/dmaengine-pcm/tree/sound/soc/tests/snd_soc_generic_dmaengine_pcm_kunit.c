// SPDX-License-Identifier: GPL-2.0+
/*
 * KUnit tests of the generic dmaengine PCM's internal helpers: channel
 * names, channel release, firmware lookup, buffer sizes and the derived
 * hardware description. A module of its own; the helpers are reached through
 * the EXPORTED_FOR_KUNIT_TESTING namespace. What needs a card is tested in
 * a QEMU guest on the virtual DMA controller and loopback I2S fixtures.
 */

#include <kunit/device.h>
#include <kunit/test.h>
#include <linux/dmaengine.h>
#include <linux/module.h>
#include <linux/of.h>
#include <sound/dmaengine_pcm.h>

#include "../soc-generic-dmaengine-pcm.h"

static const struct snd_dmaengine_pcm_config dmapcm_test_plain_config = {};

static const struct snd_dmaengine_pcm_config dmapcm_test_named_config = {
	.chan_names = {
		[SNDRV_PCM_STREAM_PLAYBACK] = "speaker",
		[SNDRV_PCM_STREAM_CAPTURE] = "mic",
	},
};

/* Without flags or names, playback asks for "tx" and capture for "rx". */
static void dmapcm_test_channels_are_named_tx_and_rx_by_default(struct kunit *test)
{
	const struct snd_dmaengine_pcm_config *config = &dmapcm_test_plain_config;

	KUNIT_EXPECT_STREQ(test, dmapcm_chan_name(config, 0, SNDRV_PCM_STREAM_PLAYBACK), "tx");
	KUNIT_EXPECT_STREQ(test, dmapcm_chan_name(config, 0, SNDRV_PCM_STREAM_CAPTURE), "rx");
}

/* A half-duplex PCM names its one shared channel "rx-tx". */
static void dmapcm_test_half_duplex_asks_for_one_rx_tx_channel(struct kunit *test)
{
	const struct snd_dmaengine_pcm_config *config = &dmapcm_test_plain_config;
	unsigned int flags = SND_DMAENGINE_PCM_FLAG_HALF_DUPLEX;

	KUNIT_EXPECT_STREQ(test, dmapcm_chan_name(config, flags, SNDRV_PCM_STREAM_PLAYBACK),
			   "rx-tx");
}

/* The platform's channel names win over the defaults and over half duplex. */
static void dmapcm_test_custom_channel_names_win(struct kunit *test)
{
	const struct snd_dmaengine_pcm_config *config = &dmapcm_test_named_config;
	unsigned int flags = SND_DMAENGINE_PCM_FLAG_HALF_DUPLEX;

	KUNIT_EXPECT_STREQ(test, dmapcm_chan_name(config, 0, SNDRV_PCM_STREAM_PLAYBACK),
			   "speaker");
	KUNIT_EXPECT_STREQ(test, dmapcm_chan_name(config, flags, SNDRV_PCM_STREAM_CAPTURE),
			   "mic");
}

/*
 * A DMA controller of two channels that only counts how often a channel is
 * given back, registered with the dmaengine core for the length of a test.
 */
struct dmapcm_test_dma {
	struct dma_device ddev;
	struct dma_chan chans[2];
	int frees[2];
};

static int dmapcm_test_dma_alloc(struct dma_chan *chan)
{
	return 0;
}

static void dmapcm_test_dma_free(struct dma_chan *chan)
{
	struct dmapcm_test_dma *dma = container_of(chan->device, struct dmapcm_test_dma, ddev);

	dma->frees[chan - dma->chans]++;
}

static enum dma_status dmapcm_test_dma_status(struct dma_chan *chan, dma_cookie_t cookie,
					      struct dma_tx_state *state)
{
	return DMA_COMPLETE;
}

static void dmapcm_test_dma_issue(struct dma_chan *chan)
{
}

static void dmapcm_test_dma_unregister(void *ddev)
{
	dma_async_device_unregister(ddev);
}

static struct dmapcm_test_dma *dmapcm_test_dma_register(struct kunit *test)
{
	struct dmapcm_test_dma *dma = kunit_kzalloc(test, sizeof(*dma), GFP_KERNEL);
	struct device *dev = kunit_device_register(test, "dmapcm-test-dma");
	int i;

	KUNIT_ASSERT_NOT_NULL(test, dma);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	/* The dmaengine core takes its module reference from the driver. */
	KUNIT_ASSERT_NOT_NULL(test, dev->driver);
	dma->ddev.dev = dev;
	dma_cap_set(DMA_PRIVATE, dma->ddev.cap_mask);
	dma->ddev.device_alloc_chan_resources = dmapcm_test_dma_alloc;
	dma->ddev.device_free_chan_resources = dmapcm_test_dma_free;
	dma->ddev.device_tx_status = dmapcm_test_dma_status;
	dma->ddev.device_issue_pending = dmapcm_test_dma_issue;
	INIT_LIST_HEAD(&dma->ddev.channels);
	for (i = 0; i < ARRAY_SIZE(dma->chans); i++) {
		dma->chans[i].device = &dma->ddev;
		list_add_tail(&dma->chans[i].device_node, &dma->ddev.channels);
	}
	KUNIT_ASSERT_EQ(test, dma_async_device_register(&dma->ddev), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, dmapcm_test_dma_unregister,
							&dma->ddev), 0);
	return dma;
}

static bool dmapcm_test_is_chan(struct dma_chan *chan, void *param)
{
	return chan == param;
}

/* Take @chan as a client would, through the dmaengine core. */
static struct dma_chan *dmapcm_test_take(struct dma_chan *chan)
{
	dma_cap_mask_t any;

	dma_cap_zero(any);
	return dma_request_channel(any, dmapcm_test_is_chan, chan);
}

/* A channel both streams hold (half duplex) is given back exactly once. */
static void dmapcm_test_release_gives_a_shared_channel_back_once(struct kunit *test)
{
	struct dmapcm_test_dma *dma = dmapcm_test_dma_register(test);
	struct dmaengine_pcm pcm = {};
	struct dma_chan *chan = dmapcm_test_take(&dma->chans[0]);

	KUNIT_ASSERT_PTR_EQ(test, chan, &dma->chans[0]);
	pcm.chan[SNDRV_PCM_STREAM_PLAYBACK] = chan;
	pcm.chan[SNDRV_PCM_STREAM_CAPTURE] = chan;

	dmapcm_release_chans(&pcm);
	KUNIT_EXPECT_EQ(test, dma->frees[0], 1);
	KUNIT_EXPECT_EQ(test, chan->client_count, 0);
	KUNIT_EXPECT_NULL(test, pcm.chan[SNDRV_PCM_STREAM_PLAYBACK]);
	KUNIT_EXPECT_NULL(test, pcm.chan[SNDRV_PCM_STREAM_CAPTURE]);
}

/* Two distinct channels are each given back, and a missing one is skipped. */
static void dmapcm_test_release_gives_each_distinct_channel_back(struct kunit *test)
{
	struct dmapcm_test_dma *dma = dmapcm_test_dma_register(test);
	struct dmaengine_pcm pcm = {};

	pcm.chan[SNDRV_PCM_STREAM_PLAYBACK] = dmapcm_test_take(&dma->chans[0]);
	pcm.chan[SNDRV_PCM_STREAM_CAPTURE] = dmapcm_test_take(&dma->chans[1]);
	KUNIT_ASSERT_NOT_NULL(test, pcm.chan[SNDRV_PCM_STREAM_PLAYBACK]);
	KUNIT_ASSERT_NOT_NULL(test, pcm.chan[SNDRV_PCM_STREAM_CAPTURE]);

	dmapcm_release_chans(&pcm);
	KUNIT_EXPECT_EQ(test, dma->frees[0], 1);
	KUNIT_EXPECT_EQ(test, dma->frees[1], 1);
	KUNIT_EXPECT_EQ(test, dma->chans[0].client_count, 0);
	KUNIT_EXPECT_EQ(test, dma->chans[1].client_count, 0);

	/* A playback-only PCM has no capture channel to give back. */
	pcm.chan[SNDRV_PCM_STREAM_PLAYBACK] = dmapcm_test_take(&dma->chans[0]);
	KUNIT_ASSERT_NOT_NULL(test, pcm.chan[SNDRV_PCM_STREAM_PLAYBACK]);
	dmapcm_release_chans(&pcm);
	KUNIT_EXPECT_EQ(test, dma->frees[0], 2);
	KUNIT_EXPECT_EQ(test, dma->frees[1], 1);
}

/* NO_DT, or a device without a node, means no firmware lookup at all. */
static void dmapcm_test_firmware_lookup_needs_a_node_and_no_no_dt_flag(struct kunit *test)
{
	struct device *dev = kunit_kzalloc(test, sizeof(*dev), GFP_KERNEL);
	const struct snd_dmaengine_pcm_config *config = &dmapcm_test_plain_config;

	KUNIT_ASSERT_NOT_NULL(test, dev);
	KUNIT_EXPECT_NULL(test, dmapcm_fw_dev(dev, config, 0));

	dev->of_node = of_root;
	if (!dev->of_node)
		kunit_skip(test, "no device tree root to stand in for a node");
	KUNIT_EXPECT_PTR_EQ(test, dmapcm_fw_dev(dev, config, 0), dev);
	KUNIT_EXPECT_NULL(test, dmapcm_fw_dev(dev, config, SND_DMAENGINE_PCM_FLAG_NO_DT));
}

/*
 * The platform's preallocation size is used as given; without one, the
 * module parameter's default of 512 KiB (the lab never changes it).
 */
static void dmapcm_test_prealloc_size_is_the_platforms_else_512_kib(struct kunit *test)
{
	struct snd_dmaengine_pcm_config config = { .prealloc_buffer_size = 12345 };

	KUNIT_EXPECT_EQ(test, dmapcm_prealloc_bytes(&config), 12345);
	config.prealloc_buffer_size = 0;
	KUNIT_EXPECT_EQ(test, dmapcm_prealloc_bytes(&config), 512 * 1024);
}

/* The buffer may grow to the platform's limit, or without limit. */
static void dmapcm_test_max_buffer_follows_pcm_hardware(struct kunit *test)
{
	static const struct snd_pcm_hardware hw = { .buffer_bytes_max = 65536 };
	struct snd_dmaengine_pcm_config config = {};

	KUNIT_EXPECT_EQ(test, dmapcm_max_buffer_bytes(&config), SIZE_MAX);
	config.pcm_hardware = &hw;
	KUNIT_EXPECT_EQ(test, dmapcm_max_buffer_bytes(&config), 65536);
}

/* A period holds at least eight bursts of 8 bytes, or 256 bytes if no burst. */
static void dmapcm_test_min_period_follows_burst(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, dmapcm_period_bytes_min(0), 256);
	KUNIT_EXPECT_EQ(test, dmapcm_period_bytes_min(1), 8);
	KUNIT_EXPECT_EQ(test, dmapcm_period_bytes_min(16), 128);
}

/* The derived description allows mmap, interleaving and two or more periods. */
static void dmapcm_test_derived_hw_is_mmap_interleaved(struct kunit *test)
{
	struct snd_dmaengine_dai_dma_data dma_data = { .maxburst = 4, .fifo_size = 64 };
	struct snd_pcm_hardware hw;

	dmapcm_base_hw(&hw, &dma_data, 65536, false);
	KUNIT_EXPECT_TRUE(test, hw.info & SNDRV_PCM_INFO_MMAP);
	KUNIT_EXPECT_TRUE(test, hw.info & SNDRV_PCM_INFO_MMAP_VALID);
	KUNIT_EXPECT_TRUE(test, hw.info & SNDRV_PCM_INFO_INTERLEAVED);
	KUNIT_EXPECT_EQ(test, hw.periods_min, 2);
	KUNIT_EXPECT_EQ(test, hw.period_bytes_min, 32);
	KUNIT_EXPECT_EQ(test, hw.period_bytes_max, 65536);
	KUNIT_EXPECT_EQ(test, hw.fifo_size, 64);
	KUNIT_EXPECT_EQ(test, hw.formats, 0);
}

/* Only a stream whose position is counted in periods is marked BATCH. */
static void dmapcm_test_derived_hw_is_batch_only_when_counting_periods(struct kunit *test)
{
	struct snd_dmaengine_dai_dma_data dma_data = {};
	struct snd_pcm_hardware hw;

	dmapcm_base_hw(&hw, &dma_data, 4096, false);
	KUNIT_EXPECT_FALSE(test, hw.info & SNDRV_PCM_INFO_BATCH);
	dmapcm_base_hw(&hw, &dma_data, 4096, true);
	KUNIT_EXPECT_TRUE(test, hw.info & SNDRV_PCM_INFO_BATCH);
}

static struct kunit_case dmapcm_test_cases[] = {
	KUNIT_CASE(dmapcm_test_channels_are_named_tx_and_rx_by_default),
	KUNIT_CASE(dmapcm_test_half_duplex_asks_for_one_rx_tx_channel),
	KUNIT_CASE(dmapcm_test_custom_channel_names_win),
	KUNIT_CASE(dmapcm_test_release_gives_a_shared_channel_back_once),
	KUNIT_CASE(dmapcm_test_release_gives_each_distinct_channel_back),
	KUNIT_CASE(dmapcm_test_firmware_lookup_needs_a_node_and_no_no_dt_flag),
	KUNIT_CASE(dmapcm_test_prealloc_size_is_the_platforms_else_512_kib),
	KUNIT_CASE(dmapcm_test_max_buffer_follows_pcm_hardware),
	KUNIT_CASE(dmapcm_test_min_period_follows_burst),
	KUNIT_CASE(dmapcm_test_derived_hw_is_mmap_interleaved),
	KUNIT_CASE(dmapcm_test_derived_hw_is_batch_only_when_counting_periods),
	{}
};

static struct kunit_suite dmapcm_test_suite = {
	.name = "snd_soc_generic_dmaengine_pcm",
	.test_cases = dmapcm_test_cases,
};

kunit_test_suite(dmapcm_test_suite);

MODULE_DESCRIPTION("KUnit tests of the ASoC generic dmaengine PCM");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
