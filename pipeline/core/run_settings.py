"""What a run was asked to do, in one home: `Options` is the run's settings, parsed once by the command line or a
run configuration (pipeline/flow/runconfig.py) and only read by the steps; its per-stage sections are the records
above it (one `generate` call, one imagine run, one fine-tuning run, where the Ray executor runs). Every stage takes
its section from here, so a setting is declared once, beside the others, whatever stage reads it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_GENERATOR = "black-forest-labs/FLUX.1-dev"  # imagine: BORSch §5's text-to-image model
DEFAULT_ENCODER = "facebook/dinov2-giant"  # imagine: BORSch §5's image encoder ([CLS])


@dataclass(frozen=True)
class GenerationSpec:
    """One `generate` call: what `generate` takes on the command line."""

    task: str
    lang: str
    backend: str
    model: str
    limit: int | None = None
    images: Path | None = None
    subset: str = "full"
    prompts: Path | None = None
    variants: tuple[str, ...] | None = None
    max_tokens: int | None = None
    settings: dict = field(default_factory=dict)
    chunk_size: int = 64


@dataclass(frozen=True)
class RayOptions:
    """Where and how wide the Ray executor runs."""

    address: str | None = None  # None: RAY_ADDRESS, else a local Ray on this machine
    workers: int | None = None  # model or scanner actors (None: one per CPU the cluster has, capped by the work)
    work_dir: Path | None = None  # corpus: per-shard Parquet counts (None: beside the working database)


@dataclass(frozen=True)
class ImagineSpec:
    """One imagine run: what `python -m pipeline imagine` takes on the command line."""

    dataset: str
    lang: str
    describer: str
    generator: str = DEFAULT_GENERATOR
    encoder: str = DEFAULT_ENCODER
    backend: str = "transformers"
    translator: str | None = None  # default: the describer, through the same backend
    translator_backend: str | None = None
    vqa_model: str | None = None  # whose VQA answers Table 4 pairs with (default: the paper's counterpart, §4.1)
    limit: int | None = None
    images: Path | None = None  # real photos laid out like BORSch (RU/images/ID/*), registered before embedding
    variants: tuple[str, ...] = ("1",)  # dish_description prompt variants (one description per dish by default)
    seeds: tuple[int, ...] = (0,)  # one image per seed per description
    steps: int = 28  # FLUX.1-dev's recommended 28 denoising steps, guidance 3.5, 1024 px
    guidance: float = 3.5
    width: int = 1024
    height: int = 1024
    settings: dict = field(default_factory=dict)  # describer backend settings
    translator_settings: dict = field(default_factory=dict)
    generator_settings: dict = field(default_factory=dict)  # batch_size, device, dtype, max_sequence_length
    encoder_settings: dict = field(default_factory=dict)  # batch_size, device, dtype
    chunk_size: int = 16

    @property
    def translator_model(self) -> str:
        return self.translator or self.describer

    @property
    def translator_backend_name(self) -> str:
        return self.translator_backend or self.backend


@dataclass(frozen=True)
class FinetuneSpec:
    """One fine-tuning run as the command line or the run configuration's [finetune] section gives it."""

    model: str  # base model: a local folder or hub id
    tasks: tuple[str, ...]
    lang: str
    out: Path
    recipe: str = "plain"
    variant: str | None = None
    limit: int | None = None  # first N items per task
    images: Path | None = None
    device: str = "auto"
    overrides: dict = field(default_factory=dict)  # learning_rate, batch_size, gradient_accumulation, epochs, ...


@dataclass(frozen=True)
class Options:
    """Everything a command asked for, parsed once by the CLI; steps only read it."""

    datasets: tuple[str, ...] = ()  # ingest: registered dataset names, in order
    source: Path | None = None  # ingest: the folder of the dataset's files (None: shipped with the code)
    data: Path | None = None  # demo: a folder holding borsch/ and worldcuisines/ (None: the sample)
    force: bool = False  # ingest: reload unchanged files
    responses: tuple[Path, ...] = ()  # import: answer files
    response_format: str = "worldcuisines"  # import: worldcuisines | culturemix | uacuisine
    model: str | None = None
    skip_bad_lines: bool = False
    task: str | None = None  # import: the task the answers belong to (None: from the file name)
    max_bad_share: float = 0.01  # import: a file rejecting more of its lines than this fails
    allow_duplicate: bool = False  # import: the same bytes again under another model name
    corpus_lang: str | None = None  # corpus: language and source (None source: UA-GEC)
    corpus_source: str | None = None
    text_field: str = "text"
    skip_corrupt_shards: bool = False  # corpus: record an unreadable shard as corrupt and go on (default: refuse it)
    uagec: bool = False  # corpus: scan UA-GEC (the Ukrainian corpus the ua-gec package ships)
    uagec_dest: Path | None = None
    generations: tuple[GenerationSpec, ...] = ()  # generate
    imagines: tuple[ImagineSpec, ...] = ()  # imagine: one per describer and language
    imagine_steps: tuple[str, ...] = ()  # imagine: its sub-steps to run (empty: all five)
    rescore: bool = False  # score
    compose: dict = field(default_factory=dict)  # compose culturemix: out, backgrounds, per_target, seed, ...
    publish_force: bool = False  # publish even when nothing changed
    executor: str = "local"  # generate, corpus scan: local | ray (pipeline/executors/)
    ray: RayOptions = field(default_factory=RayOptions)  # --executor ray: address, workers, work folder
    finetunes: tuple[FinetuneSpec, ...] = ()  # finetune: one per run
