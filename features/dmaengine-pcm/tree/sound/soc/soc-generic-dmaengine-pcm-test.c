// SPDX-License-Identifier: GPL-2.0+
/*
 * KUnit tests of the generic dmaengine PCM's pure helpers. Included at the
 * end of soc-generic-dmaengine-pcm.c so the static functions are reachable;
 * everything that needs a channel or a card is tested in a QEMU guest with
 * the virtual DMA controller and loopback I2S fixtures instead.
 */

#include <kunit/test.h>

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

/* A channel both streams hold is released through playback only. */
static void dmapcm_test_shared_channel_is_released_once(struct kunit *test)
{
	struct dma_chan *chan = kunit_kzalloc(test, sizeof(*chan), GFP_KERNEL);
	struct dmaengine_pcm pcm = {};

	KUNIT_ASSERT_NOT_NULL(test, chan);
	pcm.chan[SNDRV_PCM_STREAM_PLAYBACK] = chan;
	pcm.chan[SNDRV_PCM_STREAM_CAPTURE] = chan;
	KUNIT_EXPECT_FALSE(test, dmapcm_chan_is_shared(&pcm, SNDRV_PCM_STREAM_PLAYBACK));
	KUNIT_EXPECT_TRUE(test, dmapcm_chan_is_shared(&pcm, SNDRV_PCM_STREAM_CAPTURE));
}

/* Two distinct channels are each released. */
static void dmapcm_test_distinct_channels_are_both_released(struct kunit *test)
{
	struct dma_chan *chans = kunit_kcalloc(test, 2, sizeof(*chans), GFP_KERNEL);
	struct dmaengine_pcm pcm = {};

	KUNIT_ASSERT_NOT_NULL(test, chans);
	pcm.chan[SNDRV_PCM_STREAM_PLAYBACK] = &chans[0];
	pcm.chan[SNDRV_PCM_STREAM_CAPTURE] = &chans[1];
	KUNIT_EXPECT_FALSE(test, dmapcm_chan_is_shared(&pcm, SNDRV_PCM_STREAM_CAPTURE));
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

/* The platform's preallocation size is used as given, else the parameter. */
static void dmapcm_test_prealloc_size_is_platform_or_module_parameter(struct kunit *test)
{
	struct snd_dmaengine_pcm_config config = { .prealloc_buffer_size = 12345 };

	KUNIT_EXPECT_EQ(test, dmapcm_prealloc_bytes(&config), 12345);
	config.prealloc_buffer_size = 0;
	KUNIT_EXPECT_EQ(test, dmapcm_prealloc_bytes(&config),
			(size_t)prealloc_buffer_size_kbytes * 1024);
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
	KUNIT_CASE(dmapcm_test_shared_channel_is_released_once),
	KUNIT_CASE(dmapcm_test_distinct_channels_are_both_released),
	KUNIT_CASE(dmapcm_test_firmware_lookup_needs_a_node_and_no_no_dt_flag),
	KUNIT_CASE(dmapcm_test_prealloc_size_is_platform_or_module_parameter),
	KUNIT_CASE(dmapcm_test_max_buffer_follows_pcm_hardware),
	KUNIT_CASE(dmapcm_test_min_period_follows_burst),
	KUNIT_CASE(dmapcm_test_derived_hw_is_mmap_interleaved),
	KUNIT_CASE(dmapcm_test_derived_hw_is_batch_only_when_counting_periods),
	{}
};

static struct kunit_suite dmapcm_test_suite = {
	.name = "snd-soc-generic-dmaengine-pcm",
	.test_cases = dmapcm_test_cases,
};

kunit_test_suite(dmapcm_test_suite);
