"""Tiny random image models, built offline, so every imagine step runs on CPU through the real `from_pretrained`
path: a FLUX-shaped text-to-image pipeline (FluxPipeline: flux transformer, KL VAE, CLIP and T5 text encoders
with a locally trained tokenizer), a DINOv2 image encoder with its image processor, and a FLUX.1-Kontext
image-edit pipeline (CultureMix's harmonising step). Weights are seeded, so two builds are identical. They
draw noise and embed it: they test plumbing, never fidelity. Each folder holds a marker file so pages can say
plainly that a tiny random model produced what they show.
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

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(SEED)
        encoders = _text_encoders()
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
    pipeline = FluxPipeline(scheduler=FlowMatchEulerDiscreteScheduler(), vae=vae, transformer=transformer, **encoders)
    pipeline.save_pretrained(out)
    write_marker(out, "text-to-image")
    return out


def _text_encoders() -> dict:
    """Tiny CLIP and T5 text encoders with the local tokenizer, as both FLUX pipelines take them (the caller seeds)."""
    from transformers import CLIPTextConfig, CLIPTextModel, T5Config, T5EncoderModel

    clip_tokenizer, t5_tokenizer = _tokenizer(False), _tokenizer(False)
    clip_tokenizer.model_max_length, t5_tokenizer.model_max_length = 77, 128
    vocab = len(clip_tokenizer)
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
    return {"text_encoder": clip, "tokenizer": clip_tokenizer, "text_encoder_2": t5, "tokenizer_2": t5_tokenizer}


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


def build_image_edit(out: Path) -> Path:
    """A FluxKontextPipeline with tiny random weights (transformer, VAE, and the CLIP and T5 encoders of the
    text-to-image model), saved with `save_pretrained`: the real loading and editing path, offline, in about a
    second on a CPU. It draws noise, not photographs."""
    import torch
    from diffusers import AutoencoderKL, FlowMatchEulerDiscreteScheduler, FluxKontextPipeline, FluxTransformer2DModel

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(SEED)  # seeded like the other tiny models: two builds are identical
        encoders = _text_encoders()
        vae = AutoencoderKL(
            sample_size=32, in_channels=3, out_channels=3,
            # four blocks: the image is downscaled 8 times, as by FLUX's own VAE (tokens stay few)
            down_block_types=("DownEncoderBlock2D",) * 4, up_block_types=("UpDecoderBlock2D",) * 4,
            block_out_channels=(4, 4, 4, 4), layers_per_block=1, latent_channels=1, norm_num_groups=1,
            use_quant_conv=False, use_post_quant_conv=False, shift_factor=0.0609, scaling_factor=1.5035,
        )  # fmt: skip
        transformer = FluxTransformer2DModel(
            patch_size=1, in_channels=4, num_layers=1, num_single_layers=1, attention_head_dim=16,
            num_attention_heads=2, joint_attention_dim=32, pooled_projection_dim=32, axes_dims_rope=[4, 4, 8],
        )  # fmt: skip
    edit = FluxKontextPipeline(
        scheduler=FlowMatchEulerDiscreteScheduler(), vae=vae, transformer=transformer, **encoders
    )
    target = out / "tiny-flux-kontext"
    edit.save_pretrained(target)
    write_marker(target, "image-edit")
    return target
