"""Tiny randomly initialised models, built offline, for tests and demos of the real loading path.

Model hubs are unreachable here, so a text model (Qwen2) and a vision model (LLaVA: tiny CLIP tower +
the same tiny Qwen2) are made in code with a locally trained byte-level BPE tokenizer and saved with
`save_pretrained`; everything downstream then goes through the ordinary `from_pretrained`. Weights
are seeded, so two builds are byte-identical (same `local_weights_hash`). Each folder is well under
1 MB. The outputs are random text: these models test plumbing, not answers.
"""

from __future__ import annotations

from pathlib import Path

from pipeline.tiny.marker import write_marker

SEED = 1234
IMAGE_SIZE = 32
PATCH_SIZE = 8
IMAGE_TOKEN = "<image>"
SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
VOCAB_SIZE = 640
# With the usual 0.02 a model this small answers every prompt with the same token ("\n\n\n..."); wider
# weights make the (random) answers depend on the prompt and contain visible text.
INIT_RANGE = 0.3

# ChatML as in Qwen2; content is a string or a list of parts ({"type": "image"} / {"type": "text"}),
# an image part becoming one <image> placeholder (the processor expands it to the patch tokens).
CHAT_TEMPLATE = (
    "{%- for message in messages -%}"
    "{{- '<|im_start|>' + message['role'] + '\\n' -}}"
    "{%- if message['content'] is string -%}{{- message['content'] -}}"
    "{%- else -%}{%- for part in message['content'] -%}"
    "{%- if part['type'] == 'image' -%}{{- '<image>' -}}"
    "{%- elif part['type'] == 'text' -%}{{- part['text'] -}}{%- endif -%}"
    "{%- endfor -%}{%- endif -%}"
    "{{- '<|im_end|>\\n' -}}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{- '<|im_start|>assistant\\n' -}}{%- endif -%}"
)

# Training text for the tokenizer: Cyrillic and Latin, with the country and dish words the prompts use.
CORPUS = """
Which country is this dish from? Answer with the name of the country only.
The dish is borscht, a sour soup with beetroot, cabbage, potatoes and sour cream.
Dumplings, pancakes, porridge, pilaf, kebab, sushi, pizza, pasta, paella, tacos, curry, noodles.
Countries: Ukraine, Russia, Belarus, Poland, Georgia, Armenia, Azerbaijan, Kazakhstan, Uzbekistan,
Moldova, Lithuania, Latvia, Estonia, Germany, France, Italy, Spain, Portugal, Greece, Turkey, Japan,
China, Korea, India, Thailand, Vietnam, Mexico, Brazil, Argentina, Peru, the United States, Canada,
the United Kingdom, Ireland, Sweden, Norway, Finland, Denmark, Hungary, Romania, Bulgaria, Serbia.
Из какой страны это блюдо? Ответь только названием страны.
Борщ это кислый суп со свёклой, капустой, картофелем и сметаной. Пельмени, блины, каша, плов, шашлык.
Страны: Украина, Россия, Беларусь, Польша, Грузия, Армения, Азербайджан, Казахстан, Узбекистан,
Молдова, Литва, Латвия, Эстония, Германия, Франция, Италия, Испания, Португалия, Греция, Турция,
Япония, Китай, Корея, Индия, Таиланд, Вьетнам, Мексика, Бразилия, Аргентина, Перу, США, Канада.
З якої країни ця страва? Відповідай лише назвою країни.
Борщ це кислий суп з буряком, капустою, картоплею та сметаною. Вареники, млинці, каша, голубці, сало.
Країни: Україна, Росія, Білорусь, Польща, Грузія, Вірменія, Азербайджан, Казахстан, Узбекистан,
Молдова, Литва, Латвія, Естонія, Німеччина, Франція, Італія, Іспанія, Португалія, Греція, Туреччина,
Японія, Китай, Корея, Індія, Таїланд, В'єтнам, Мексика, Бразилія, Аргентина, Перу, США, Канада.
Look at the photo. Посмотри на фото. Подивись на фото. The answer is Ukraine. Ответ: Россия. Відповідь: Україна.
"""


def build_language_model(kind: str, out: Path) -> Path:
    """A tiny random `text` (Qwen2) or `vision` (LLaVA) model with its tokenizer/processor, saved in `out`."""
    import torch

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    tokenizer = _tokenizer(with_image_token=kind == "vision")
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(SEED)
        model = _text_model(tokenizer) if kind == "text" else _vision_model(tokenizer)
    model.save_pretrained(out)
    if kind == "text":
        tokenizer.save_pretrained(out)
    else:
        _processor(tokenizer).save_pretrained(out)
    write_marker(out, kind)
    return out


def _tokenizer(with_image_token: bool):
    """Byte-level BPE trained on CORPUS (deterministic), wrapped for transformers with a chat template."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    specials = SPECIAL_TOKENS + ([IMAGE_TOKEN] if with_image_token else [])
    core = Tokenizer(models.BPE())
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    core.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=VOCAB_SIZE,
        special_tokens=specials,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    core.train_from_iterator(CORPUS.strip().splitlines(), trainer=trainer)
    return PreTrainedTokenizerFast(
        tokenizer_object=core,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        padding_side="left",
        chat_template=CHAT_TEMPLATE,
        extra_special_tokens={"image_token": IMAGE_TOKEN} if with_image_token else {},
    )


def _text_config(tokenizer):
    from transformers import Qwen2Config

    return Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=512,
        tie_word_embeddings=True,
        initializer_range=INIT_RANGE,
        bos_token_id=None,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )


def _text_model(tokenizer):
    from transformers import Qwen2ForCausalLM

    model = Qwen2ForCausalLM(_text_config(tokenizer))
    _set_generation_tokens(model, tokenizer)
    return model


def _vision_model(tokenizer):
    from transformers import CLIPVisionConfig, LlavaConfig, LlavaForConditionalGeneration

    vision = CLIPVisionConfig(
        image_size=IMAGE_SIZE,
        patch_size=PATCH_SIZE,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        projection_dim=32,
    )
    config = LlavaConfig(
        vision_config=vision,
        text_config=_text_config(tokenizer),
        image_token_index=tokenizer.convert_tokens_to_ids(IMAGE_TOKEN),
        vision_feature_select_strategy="default",
        vision_feature_layer=-1,
        image_seq_length=(IMAGE_SIZE // PATCH_SIZE) ** 2,
        tie_word_embeddings=True,
    )
    model = LlavaForConditionalGeneration(config)
    _set_generation_tokens(model, tokenizer)
    return model


def _set_generation_tokens(model, tokenizer) -> None:
    """Stop at <|im_end|> and pad with <|endoftext|>, as a chat model's generation_config does."""
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.generation_config.bos_token_id = None
    model.generation_config.do_sample = False


def _processor(tokenizer):
    """LLaVA processor with the PIL CLIP image processor (no torchvision needed)."""
    from transformers import LlavaProcessor
    from transformers.models.clip.image_processing_pil_clip import CLIPImageProcessorPil

    images = CLIPImageProcessorPil(
        size={"shortest_edge": IMAGE_SIZE},
        crop_size={"height": IMAGE_SIZE, "width": IMAGE_SIZE},
    )
    return LlavaProcessor(
        image_processor=images,
        tokenizer=tokenizer,
        patch_size=PATCH_SIZE,
        vision_feature_select_strategy="default",
        num_additional_image_tokens=1,  # the CLS token, dropped by the "default" strategy
        image_token=IMAGE_TOKEN,
        chat_template=CHAT_TEMPLATE,
    )
