"""Supervised fine-tuning on transformers' Trainer: chat-formatted examples, the loss on the answer only,
checkpoints every `save_steps` optimizer steps, a complete model folder saved at every epoch asked for.

Resuming: a rerun into the same folder starts from the last *complete* checkpoint (one whose
`trainer_state.json`, written last, exists; a checkpoint a SIGKILL cut short is removed), with the
optimizer, scheduler, RNG states and data position the Trainer saved. Epoch models are saved at the
epoch's last optimizer step, before that step's checkpoint, so no resume can step over one; each is
written under a temporary name and renamed. LoRA (peft) adapters are merged into a copy of the model
before saving, so every saved folder loads with a plain `from_pretrained` (the transformers backend).
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import torch

from pipeline.backends.hf import chat_messages, load_images
from pipeline.finetune.data import Example
from pipeline.tiny.marker import MARKER

CHECKPOINTS = "checkpoints"
IGNORE = -100  # label of a prompt token: no loss on it


@dataclass
class TrainResult:
    models: dict[int, Path]  # epoch -> complete model folder
    resumed_from: str | None
    steps: int
    losses: list[tuple[int, float, float]] = field(default_factory=list)  # (step, epoch, loss)
    seconds: float = 0.0


def epoch_folder(out: Path, epoch: int) -> Path:
    return out / f"epoch-{epoch}"


def last_complete_checkpoint(folder: Path) -> Path | None:
    """The newest checkpoint the Trainer finished writing; unfinished ones (no trainer_state.json) are removed."""
    if not folder.is_dir():
        return None
    complete = []
    for path in folder.glob("checkpoint-*"):
        if (path / "trainer_state.json").is_file():
            complete.append(path)
        elif path.is_dir():
            shutil.rmtree(path)
    return max(complete, key=lambda p: int(p.name.rsplit("-", 1)[1]), default=None)


class EncodedExamples(torch.utils.data.Dataset):
    """Examples tokenized on demand: prompt (the chat template with the generation prompt, as the backend
    renders it) + answer + end-of-turn token; labels mask the prompt."""

    def __init__(self, examples: list[Example], processor, is_vision: bool, max_length: int) -> None:
        self.examples = examples
        self.processor = processor
        self.tokenizer = getattr(processor, "tokenizer", processor)
        self.is_vision = is_vision
        self.max_length = max_length

    def __len__(self) -> int:
        return len(self.examples)

    def _encode(self, text: str, images: list) -> dict:
        if self.is_vision:
            return self.processor(text=[text], images=images or None, return_tensors="pt")
        return self.tokenizer([text], add_special_tokens=False, return_tensors="pt")

    def __getitem__(self, index: int) -> dict:
        example = self.examples[index]
        prompt = self.processor.apply_chat_template(
            chat_messages(example.messages, self.is_vision), tokenize=False, add_generation_prompt=True
        )
        images = load_images(example.messages)
        full = self._encode(prompt + example.answer + self.tokenizer.eos_token, images)
        prompt_length = self._encode(prompt, images)["input_ids"].shape[1]
        ids = full["input_ids"][0][: self.max_length]
        labels = ids.clone()
        labels[:prompt_length] = IGNORE
        encoded = {"input_ids": ids, "attention_mask": torch.ones_like(ids), "labels": labels}
        if "pixel_values" in full:
            encoded["pixel_values"] = full["pixel_values"][0]
        return encoded


def collate(pad_id: int) -> Callable[[list[dict]], dict]:
    """Right-pads a batch (training needs no left padding); images stacked."""

    def batch(rows: list[dict]) -> dict:
        width = max(len(r["input_ids"]) for r in rows)

        def pad(key: str, value: int) -> torch.Tensor:
            return torch.stack(
                [torch.cat([r[key], torch.full((width - len(r[key]),), value, dtype=r[key].dtype)]) for r in rows]
            )

        out = {"input_ids": pad("input_ids", pad_id), "attention_mask": pad("attention_mask", 0),
               "labels": pad("labels", IGNORE)}  # fmt: skip
        if all("pixel_values" in r for r in rows):
            out["pixel_values"] = torch.stack([r["pixel_values"] for r in rows])
        return out

    return batch


def load_base(model: str, method: str, lora: dict):
    """The base model (float32 weights; mixed precision on a GPU), its processor or tokenizer, and whether it
    sees images; with method `lora`, the model wrapped with peft adapters on every linear layer."""
    from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForImageTextToText, AutoProcessor, AutoTokenizer

    config = AutoConfig.from_pretrained(model)
    is_vision = hasattr(config, "vision_config")
    processor = (AutoProcessor if is_vision else AutoTokenizer).from_pretrained(model)
    network = (AutoModelForImageTextToText if is_vision else AutoModelForCausalLM).from_pretrained(
        model, dtype=torch.float32
    )
    if method == "lora":
        from peft import LoraConfig, get_peft_model

        network = get_peft_model(
            network,
            LoraConfig(
                r=int(lora["r"]),
                lora_alpha=int(lora["alpha"]),
                lora_dropout=float(lora["dropout"]),
                target_modules="all-linear",
                task_type="CAUSAL_LM",
            ),
        )
    return network, processor, is_vision


def save_model(network, processor, path: Path, merged: bool, tiny_marker: Path | None = None) -> Path:
    """A complete model folder at `path`, written under a temporary name and renamed. A tiny random base's
    marker goes along: the tuned model is a test model too (pipeline/tiny/marker.py)."""
    partial = path.with_name(path.name + ".part")
    shutil.rmtree(partial, ignore_errors=True)
    target = copy.deepcopy(network).merge_and_unload() if merged else network
    target.save_pretrained(partial)
    processor.save_pretrained(partial)
    if tiny_marker is not None and tiny_marker.is_file():
        shutil.copyfile(tiny_marker, partial / tiny_marker.name)
    os.replace(partial, path)
    return path


def train(
    base: str,
    out: Path,
    examples: list[Example],
    hyperparameters: dict,
    *,
    device: str = "auto",
    say: Callable[[str], None] = lambda line: None,
) -> TrainResult:
    """Train on `examples` in their order (the curriculum), resuming from `out/checkpoints` when a complete
    checkpoint is there; returns the epoch models and the logged losses."""
    from transformers import PrinterCallback, Trainer, TrainerCallback, TrainingArguments
    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()  # the steps' own lines (`say`) report progress
    started = time.perf_counter()
    hp = hyperparameters
    epochs = sorted({int(e) for e in hp["epochs"]})
    wanted = {e: epoch_folder(out, e) for e in epochs}
    lora = hp["method"] == "lora"
    on_gpu = (device == "auto" and torch.cuda.is_available()) or device.startswith("cuda")
    network, processor, is_vision = load_base(base, hp["method"], hp.get("lora", {}))
    tokenizer = getattr(processor, "tokenizer", processor)
    marker = Path(base) / MARKER
    pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id

    class EpochModels(TrainerCallback):
        """Saves the model at the last optimizer step of every epoch asked for (before that step's checkpoint)."""

        def on_step_end(self, args, state, control, model=None, **kwargs):
            epoch = round(state.epoch or 0)
            if abs((state.epoch or 0) - epoch) < 1e-6 and epoch in wanted and not wanted[epoch].is_dir():
                save_model(model, processor, wanted[epoch], lora, marker)
                say(f"epoch {epoch}: model saved to {wanted[epoch]}")

        def on_log(self, args, state, control, logs=None, **kwargs):
            if logs and "loss" in logs:
                say(f"step {state.global_step}/{state.max_steps} loss {logs['loss']:.4f}")

        def on_save(self, args, state, control, **kwargs):
            say(f"checkpoint {state.global_step} saved")

    checkpoints = out / CHECKPOINTS
    resume = last_complete_checkpoint(checkpoints)
    args = TrainingArguments(
        output_dir=str(checkpoints),
        per_device_train_batch_size=int(hp["batch_size"]),
        gradient_accumulation_steps=int(hp["gradient_accumulation"]),
        learning_rate=float(hp["learning_rate"]),
        num_train_epochs=max(epochs),
        optim=hp["optimizer"],
        lr_scheduler_type=hp.get("scheduler", "linear"),
        seed=int(hp["seed"]),
        data_seed=int(hp["seed"]),
        save_strategy="steps",
        save_steps=int(hp["save_steps"]),
        save_total_limit=2,
        logging_strategy="steps",
        logging_steps=1,
        report_to="none",
        disable_tqdm=True,
        use_cpu=not on_gpu,
        bf16=on_gpu and torch.cuda.is_bf16_supported(),
        dataloader_num_workers=0,
        remove_unused_columns=False,
        train_sampling_strategy="sequential",  # the order is the curriculum (data.arrange)
    )
    trainer = Trainer(
        model=network,
        args=args,
        train_dataset=EncodedExamples(examples, processor, is_vision, int(hp["max_length"])),
        data_collator=collate(pad_id),
        callbacks=[EpochModels()],
    )
    trainer.remove_callback(PrinterCallback)  # its raw dicts would repeat what EpochModels.on_log says
    if resume is not None:
        say(f"resuming from {resume.name}")
    trainer.train(resume_from_checkpoint=str(resume) if resume else None)
    last = max(epochs)
    if not wanted[last].is_dir():  # resumed from the very last checkpoint: the model is the trained one
        save_model(trainer.model, processor, wanted[last], lora, marker)
    missing = [e for e, path in wanted.items() if not path.is_dir()]
    if missing:
        raise ValueError(f"{out}: no saved model for epochs {missing}; remove the folder and train again")
    losses = [
        (int(entry["step"]), float(entry.get("epoch", 0.0)), float(entry["loss"]))
        for entry in trainer.state.log_history
        if "loss" in entry and "step" in entry
    ]
    return TrainResult(
        models=wanted,
        resumed_from=resume.name if resume else None,
        steps=int(trainer.state.global_step),
        losses=losses,
        seconds=time.perf_counter() - started,
    )


def write_marker(out: Path, finetune_id: str, description: dict) -> None:
    """`out/finetune.json`: which run the folder belongs to (a second run is refused the same folder)."""
    out.mkdir(parents=True, exist_ok=True)
    marker = out / "finetune.json"
    if marker.is_file():
        existing = json.loads(marker.read_text(encoding="utf-8")).get("finetune_id")
        if existing != finetune_id:
            raise ValueError(
                f"{out} holds another fine-tuning run ({existing}); choose another --out or remove that folder"
            )
        return
    marker.write_text(json.dumps({"finetune_id": finetune_id, **description}, indent=2, default=str), "utf-8")
