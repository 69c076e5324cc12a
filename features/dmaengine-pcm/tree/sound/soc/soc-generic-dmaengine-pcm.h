/* SPDX-License-Identifier: GPL-2.0+ */
/*
 * The generic dmaengine PCM's internal helpers that its KUnit suite
 * (tests/snd_soc_generic_dmaengine_pcm_kunit.c, a module of its own)
 * calls. They are static unless KUnit is built, and then exported only
 * to the EXPORTED_FOR_KUNIT_TESTING namespace.
 */
#ifndef __SOUND_SOC_GENERIC_DMAENGINE_PCM_H
#define __SOUND_SOC_GENERIC_DMAENGINE_PCM_H

#if IS_ENABLED(CONFIG_KUNIT)
#include <sound/dmaengine_pcm.h>
#include <sound/pcm.h>

const char *dmapcm_chan_name(const struct snd_dmaengine_pcm_config *config,
			     unsigned int flags, int stream);
void dmapcm_release_chans(struct dmaengine_pcm *pcm);
struct device *dmapcm_fw_dev(struct device *dev,
			     const struct snd_dmaengine_pcm_config *config,
			     unsigned int flags);
size_t dmapcm_period_bytes_min(u32 maxburst);
void dmapcm_base_hw(struct snd_pcm_hardware *hw,
		    const struct snd_dmaengine_dai_dma_data *dma_data,
		    unsigned int max_seg_size, bool period_counting);
size_t dmapcm_prealloc_bytes(const struct snd_dmaengine_pcm_config *config);
size_t dmapcm_max_buffer_bytes(const struct snd_dmaengine_pcm_config *config);
#endif

#endif /* __SOUND_SOC_GENERIC_DMAENGINE_PCM_H */
