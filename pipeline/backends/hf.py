"""The `transformers` backend: a local folder or hub id run in-process with `generate`.

Text models load with `AutoModelForCausalLM` + `AutoTokenizer`; models whose config has a vision tower
load with `AutoModelForImageTextToText` + `AutoProcessor`. Requests are batched with left padding and
decoded greedily by default; each batch is generated to the largest `max_tokens` in it and every row is
cut at its own limit, which is exactly what greedy decoding would have produced with that limit alone.

A temperature above 0 (the backend's `temperature` setting, or the task's: ZNO-Vision §4 runs every
generation at temperature 1) samples instead, from the whole distribution at that temperature (no top-k or
top-p cut: the paper names none), seeded with the `seed` setting at each batch: the same requests, batch
size and seed give the same answers. A task that asks for temperature 0 stays greedy.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import torch
from PIL import Image

from pipeline.backends.base import (
    BackendError,
    Message,
    ModelIdentity,
    Request,
    Response,
    local_weights_hash,
    register,
)
from pipeline.backends.embedded import converted_path, is_embedded

DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


def resolve_device(device: str) -> str:
    """`auto` is the GPU when there is one, else the CPU."""
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise BackendError(f"device {device!r} asked for, but no CUDA GPU is available")
    return device


def resolve_dtype(dtype: str, device: str) -> str:
    """`auto` is bfloat16 on a GPU and float32 on the CPU (half precision is slow there)."""
    if dtype == "auto":
        return "float32" if device == "cpu" else "bfloat16"
    if dtype not in DTYPES:
        raise BackendError(f"unknown dtype {dtype!r}; known: auto, {', '.join(DTYPES)}")
    return dtype


def looks_like_path(model: str) -> bool:
    """A local folder rather than a hub id (`org/name`)."""
    return model.startswith(("/", ".", "~")) or model.count("/") > 1 or Path(model).exists()


def chat_messages(messages: Sequence[Message], vision: bool) -> list[dict]:
    """Messages in the chat-template format: plain strings for text models, content parts (images
    first, as `Message` promises) for vision models."""
    if not vision:
        return [{"role": m.role, "content": m.text} for m in messages]
    return [
        {"role": m.role, "content": [{"type": "image"} for _ in m.images] + [{"type": "text", "text": m.text}]}
        for m in messages
    ]


def load_images(messages: Sequence[Message]) -> list[Image.Image]:
    """All images of a conversation in order, as RGB; ValueError naming the file that cannot be read."""
    images = []
    for message in messages:
        for path in message.images:
            try:
                with Image.open(path) as image:
                    images.append(image.convert("RGB"))
            except Exception as error:
                raise ValueError(f"cannot read image {path}: {error}") from error
    return images


def cut_at_stop(ids: list[int], stop_ids: set[int], max_tokens: int) -> tuple[list[int], str]:
    """The generated ids up to and including the first stop token, at most `max_tokens` of them, and
    why generation ended there (`stop` or `length`)."""
    for index, token in enumerate(ids[:max_tokens]):
        if token in stop_ids:
            return ids[: index + 1], "stop"
    return ids[:max_tokens], "length"


@register("transformers")
class TransformersBackend:
    """In-process Hugging Face model; loads lazily so cache lookups need only the config."""

    def __init__(
        self,
        model: str,
        device: str = "auto",
        dtype: str = "auto",
        batch_size: int = 8,
        max_new_tokens: int | None = None,
        threads: int | None = None,
        temperature: float = 0.0,
        seed: int = 0,
    ) -> None:
        """`threads`: CPU threads for torch's operations (None: torch's default, one per core). A tiny
        model's operations are too small to share: on a busy 2-core machine two threads each made the
        demo's tiny vision model 10-40x slower than one (OpenMP threads waiting on each other)."""
        self.model_id = str(model)
        if is_embedded(self.model_id):  # a real small model shipped by a package (pipeline/backends/embedded.py)
            self.path = str(converted_path(self.model_id))
        elif looks_like_path(self.model_id) and not Path(self.model_id).expanduser().is_dir():
            raise BackendError(f"model folder not found: {self.model_id}")
        else:
            self.path = str(Path(self.model_id).expanduser()) if looks_like_path(self.model_id) else self.model_id
        self.device = resolve_device(device)
        self.dtype = resolve_dtype(dtype, self.device)
        self.batch_size = max(1, int(batch_size))
        self.max_new_tokens = max_new_tokens
        if threads is not None and int(threads) < 1:
            raise BackendError(f"threads must be at least 1, not {threads!r}")
        self.threads = None if threads is None else int(threads)
        self.temperature = float(temperature)
        if self.temperature < 0:
            raise BackendError(f"temperature must be 0 (greedy) or more, not {temperature!r}")
        self.seed = int(seed)
        self.config = self._load_config()
        self.is_vision = hasattr(self.config, "vision_config")
        self._model = None
        self._processor = None  # AutoProcessor for vision models, AutoTokenizer for text models

    def _load_config(self):
        from transformers import AutoConfig

        try:
            return AutoConfig.from_pretrained(self.path)
        except Exception as error:
            raise BackendError(f"cannot load model config from {self.model_id!r}: {error}") from error

    def identity(self) -> ModelIdentity:
        local = looks_like_path(self.model_id) or is_embedded(self.model_id)
        return ModelIdentity(
            model_id=self.model_id,
            revision=None if local else getattr(self.config, "_commit_hash", None),
            weights_hash=local_weights_hash(Path(self.path)) if local else None,
            is_vision=self.is_vision,
        )

    def settings(self) -> dict:
        """Greedy runs keep the keys they always had; a sampling backend adds its temperature, any non-zero
        seed is named (a task's own temperature is part of the cache key too: answers/generate.py)."""
        settings = {"dtype": self.dtype, "do_sample": self.temperature > 0, "max_new_tokens": self.max_new_tokens}
        if self.temperature > 0:
            settings["temperature"] = self.temperature
        if self.seed:
            settings["seed"] = self.seed
        return settings

    # -- loading ---------------------------------------------------------------------------------

    def _load(self) -> None:
        if self._model is not None:
            return
        from transformers import AutoModelForCausalLM, AutoModelForImageTextToText, AutoProcessor, AutoTokenizer

        auto_model = AutoModelForImageTextToText if self.is_vision else AutoModelForCausalLM
        if self.threads is not None and self.device == "cpu":
            torch.set_num_threads(self.threads)
        try:
            processor = (AutoProcessor if self.is_vision else AutoTokenizer).from_pretrained(self.path)
            model = auto_model.from_pretrained(self.path, dtype=DTYPES[self.dtype])
        except Exception as error:
            raise BackendError(f"cannot load model {self.model_id!r}: {error}") from error
        tokenizer = self._tokenizer_of(processor)
        tokenizer.padding_side = "left"  # generation continues on the right of every row
        if tokenizer.pad_token is None:
            tokenizer.pad_token = tokenizer.eos_token
        self._processor = processor
        self._model = model.to(self.device).eval()

    @staticmethod
    def _tokenizer_of(processor):
        return getattr(processor, "tokenizer", processor)

    def _stop_ids(self) -> set[int]:
        ids = self._model.generation_config.eos_token_id
        ids = set(ids if isinstance(ids, list) else [ids] if ids is not None else [])
        eos = self._tokenizer_of(self._processor).eos_token_id
        return ids | ({eos} if eos is not None else set())

    # -- inputs ----------------------------------------------------------------------------------

    def _prompt(self, request: Request) -> tuple[str, list[Image.Image]]:
        """The templated prompt and its images; ValueError for a request this model cannot take."""
        images = load_images(request.messages)
        if images and not self.is_vision:
            raise ValueError(f"{self.model_id} is a text-only model and cannot take images")
        prompt = self._processor.apply_chat_template(
            chat_messages(request.messages, self.is_vision), tokenize=False, add_generation_prompt=True
        )
        return prompt, images

    def _encode(self, prompts: list[str], images: list[Image.Image]):
        if self.is_vision:
            inputs = self._processor(text=prompts, images=images or None, return_tensors="pt", padding=True)
        else:
            inputs = self._processor(prompts, return_tensors="pt", padding=True, add_special_tokens=False)
        inputs = inputs.to(self.device)
        if "pixel_values" in inputs:
            inputs["pixel_values"] = inputs["pixel_values"].to(DTYPES[self.dtype])
        return inputs

    def _limit(self, request: Request) -> int:
        return self.max_new_tokens or request.max_tokens

    def _temperature(self, request: Request) -> float:
        """The task's temperature where it declares one, else the backend's."""
        return self.temperature if request.temperature is None else float(request.temperature)

    def _generate_kwargs(self, max_new_tokens: int, temperature: float = 0.0) -> dict:
        tokenizer = self._tokenizer_of(self._processor)
        if temperature > 0:  # seeded by the caller (`_seeded`)
            sampling = {"do_sample": True, "temperature": temperature, "top_p": 1.0, "top_k": 0}
        else:
            sampling = {"do_sample": False, "temperature": None, "top_p": None, "top_k": None}
        return {"max_new_tokens": max_new_tokens, **sampling, "pad_token_id": tokenizer.pad_token_id}

    def _seeded(self, temperature: float) -> None:
        if temperature > 0:
            torch.manual_seed(self.seed)

    # -- generation ------------------------------------------------------------------------------

    def generate(self, requests: Sequence[Request]) -> Iterator[Response]:
        """Responses for all requests, batch by batch; a bad request yields an error Response.

        Images are read one batch at a time, so a long run never holds all of them in memory."""
        self._load()
        # one temperature per batch; similar limits share a batch
        ordered = sorted(requests, key=lambda r: (self._temperature(r), self._limit(r)))
        batches: list[list[Request]] = []
        for request in ordered:
            last = batches[-1] if batches else None
            if last and len(last) < self.batch_size and self._temperature(last[0]) == self._temperature(request):
                last.append(request)
            else:
                batches.append([request])
        for requests_of_batch in batches:
            ready: list[tuple[Request, str, list[Image.Image]]] = []
            for request in requests_of_batch:
                try:
                    ready.append((request, *self._prompt(request)))
                except Exception as error:
                    yield Response(key=request.key, text=None, finish_reason="error", error=str(error))
            if ready:
                yield from self._run_batch(ready)

    def _run_batch(self, batch: list[tuple[Request, str, list[Image.Image]]]) -> Iterator[Response]:
        """One batch; if it fails as a whole, each request is retried alone to isolate the culprit."""
        try:
            responses = self._generate_batch(batch)
        except Exception as error:
            if len(batch) == 1:
                request = batch[0][0]
                message = f"generation failed: {type(error).__name__}: {error}"
                yield Response(key=request.key, text=None, finish_reason="error", error=message)
                return
            for item in batch:
                yield from self._run_batch([item])
            return
        yield from responses

    def _generate_batch(self, batch: list[tuple[Request, str, list[Image.Image]]]) -> list[Response]:
        started = time.perf_counter()
        inputs = self._encode([prompt for _, prompt, _ in batch], [image for *_, images in batch for image in images])
        limits = [self._limit(request) for request, _, _ in batch]
        temperature = self._temperature(batch[0][0])  # one per batch (`generate`)
        self._seeded(temperature)
        with torch.inference_mode():
            output = self._model.generate(**inputs, **self._generate_kwargs(max(limits), temperature))
        prompt_length = inputs["input_ids"].shape[1]
        share_ms = (time.perf_counter() - started) * 1000 / len(batch)
        tokenizer = self._tokenizer_of(self._processor)
        stop_ids = self._stop_ids()
        responses = []
        for row, ((request, _, _), limit) in enumerate(zip(batch, limits, strict=True)):
            ids, reason = cut_at_stop(output[row, prompt_length:].tolist(), stop_ids, limit)
            text = tokenizer.decode(ids, skip_special_tokens=True)
            responses.append(
                Response(
                    key=request.key,
                    text=text or None,
                    finish_reason=reason,
                    tokens_in=int(inputs["attention_mask"][row].sum()),
                    tokens_out=len(ids),
                    latency_ms=share_ms,
                )
            )
        return responses

    def stream(self, request: Request) -> Iterator[str]:
        """Text pieces from a generation running in a thread; its error, if any, is raised at the end.

        A reader that stops early (a dashboard user who left mid-answer) stops the generation at its
        next token and waits for it, so the model is free when the next question in the shared probe
        queue starts."""
        from transformers import StoppingCriteria, StoppingCriteriaList, TextIteratorStreamer

        self._load()
        try:
            prompt, images = self._prompt(request)
        except Exception as error:
            raise BackendError(str(error)) from error
        inputs = self._encode([prompt], images)
        tokenizer = self._tokenizer_of(self._processor)
        streamer = TextIteratorStreamer(tokenizer, skip_prompt=True, skip_special_tokens=True)
        failure: list[BaseException] = []
        abandoned = threading.Event()

        class Abandoned(StoppingCriteria):
            def __call__(self, input_ids, scores, **kwargs):
                return torch.full((input_ids.shape[0],), abandoned.is_set(), dtype=torch.bool, device=input_ids.device)

        def run() -> None:
            try:
                with torch.inference_mode():
                    self._seeded(self._temperature(request))
                    self._model.generate(
                        **inputs, **self._generate_kwargs(self._limit(request), self._temperature(request)),
                        streamer=streamer,
                        stopping_criteria=StoppingCriteriaList([Abandoned()]),
                    )  # fmt: skip
            except BaseException as error:
                failure.append(error)
                streamer.end()

        thread = threading.Thread(target=run, name="hf-stream", daemon=True)
        thread.start()
        try:
            for piece in streamer:
                if piece:
                    yield piece
        finally:
            abandoned.set()
            thread.join()
        if failure:
            raise BackendError(f"generation failed: {failure[0]}") from failure[0]

    def close(self) -> None:
        """Drop the model and give its memory back (GPU memory too)."""
        self._model = None
        self._processor = None
        gc.collect()
        if torch.cuda.is_available():
            torch.cuda.empty_cache()
