"""Tiny random image models, built offline, so every imagine step runs on CPU through the real
`from_pretrained` path: a FLUX-shaped text-to-image pipeline (FluxPipeline: flux transformer, KL
VAE, CLIP and T5 text encoders with a locally trained tokenizer) and a DINOv2 image encoder with
its image processor. Weights are seeded, so two builds are identical. They draw noise and embed
it: they test plumbing, never fidelity. Each folder holds a marker file so pages can say plainly
that a tiny random model produced what they show.
"""

from __future__ import annotations

from pathlib import Path

from pipeline.tiny.language import _tokenizer
from pipeline.tiny.marker import SEED, write_marker

IMAGE_SIZE = 32  # generated images are IMAGE_SIZE x IMAGE_SIZE
ENCODER_IMAGE_SIZE = 28  # DINOv2 input (2x2 patches of 14 pixels)


def build_text_to_image(out: Path) -> Path:
    """A tiny random FluxPipeline saved with `save_pretrained` (about 1 MB)."""
    import torch
    from diffusers import AutoencoderKL, FlowMatchEulerDiscreteScheduler, FluxPipeline, FluxTransformer2DModel
    from transformers import CLIPTextConfig, CLIPTextModel, T5Config, T5EncoderModel

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    clip_tokenizer, t5_tokenizer = _tokenizer(False), _tokenizer(False)
    clip_tokenizer.model_max_length, t5_tokenizer.model_max_length = 77, 128
    vocab = len(clip_tokenizer)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(SEED)
        clip = CLIPTextModel(
            CLIPTextConfig(
                vocab_size=vocab, hidden_size=32, intermediate_size=37, num_hidden_layers=2, num_attention_heads=4,
                projection_dim=32, max_position_embeddings=77, eos_token_id=clip_tokenizer.eos_token_id,
                pad_token_id=clip_tokenizer.pad_token_id, bos_token_id=clip_tokenizer.pad_token_id,
            )
        )  # fmt: skip
        t5 = T5EncoderModel(
            T5Config(
                vocab_size=vocab, d_model=32, d_kv=8, d_ff=37, num_layers=2, num_heads=4, decoder_start_token_id=0,
                pad_token_id=t5_tokenizer.pad_token_id, eos_token_id=t5_tokenizer.eos_token_id,
            )
        )  # fmt: skip
        transformer = FluxTransformer2DModel(
            patch_size=1, in_channels=16, num_layers=1, num_single_layers=1, attention_head_dim=16,
            num_attention_heads=2, joint_attention_dim=32, pooled_projection_dim=32, guidance_embeds=True,
            axes_dims_rope=(4, 6, 6),
        )  # fmt: skip
        vae = AutoencoderKL(
            sample_size=IMAGE_SIZE, in_channels=3, out_channels=3, block_out_channels=(4,), layers_per_block=1,
            latent_channels=4, norm_num_groups=1, use_quant_conv=False, use_post_quant_conv=False,
            shift_factor=0.0609, scaling_factor=1.5035,
        )  # fmt: skip
    pipeline = FluxPipeline(
        scheduler=FlowMatchEulerDiscreteScheduler(),
        vae=vae,
        text_encoder=clip,
        tokenizer=clip_tokenizer,
        text_encoder_2=t5,
        tokenizer_2=t5_tokenizer,
        transformer=transformer,
    )
    pipeline.save_pretrained(out)
    write_marker(out, "text-to-image")
    return out


def build_image_encoder(out: Path) -> Path:
    """A tiny random Dinov2Model with its (PIL) image processor, saved with `save_pretrained`."""
    import torch
    from transformers import Dinov2Config, Dinov2Model
    from transformers.models.bit.image_processing_pil_bit import BitImageProcessorPil

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(SEED)
        model = Dinov2Model(
            Dinov2Config(
                hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
                image_size=ENCODER_IMAGE_SIZE, patch_size=14,
            )
        )  # fmt: skip
    model.save_pretrained(out)
    # DINOv2's own preprocessing (resize shortest edge, centre crop, ImageNet mean/std), scaled down.
    BitImageProcessorPil(
        size={"shortest_edge": ENCODER_IMAGE_SIZE},
        crop_size={"height": ENCODER_IMAGE_SIZE, "width": ENCODER_IMAGE_SIZE},
        do_convert_rgb=True,
        image_mean=[0.485, 0.456, 0.406],
        image_std=[0.229, 0.224, 0.225],
    ).save_pretrained(out)
    write_marker(out, "image-encoder")
    return out
