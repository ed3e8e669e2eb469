"""`python -m pipeline demo` decided: which data the demo warehouse is built from (a data folder, else the embedded
bundle of real results, else the hand-written sample), the options of its one pipeline run, and what to do next.

The command line (pipeline/cli.py) only parses `--data` and `--sample`, runs the `demo` pipeline with these options
and prints the next step.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from pipeline.core.output import console, say
from pipeline.core.run_settings import GenerationSpec, Options
from pipeline.core.settings import PROJECT_ROOT, WAREHOUSE_ENV, default_data_dir, default_warehouse
from pipeline.flow import runconfig

CULTUREMIX_RUN = PROJECT_ROOT / "assets" / "culturemix.run.toml"


def demo_options(beside: Path, data: Path | None, sample: bool) -> Options:
    """What the demo loads, said as it is chosen: `data` (or the default data folder when it holds BORSch), else the
    embedded bundle unpacked into `beside`/bundle, else (or with `sample`) the hand-written sample. Files the demo
    needs beside the warehouse (the bundle, the tiny vision model) go into `beside`."""
    from pipeline.datasets import bundle

    source = None if sample else data or (default_data_dir() if (default_data_dir() / "borsch").is_dir() else None)
    if source is None and not sample and bundle.available():
        source = bundle.unpack(beside / "bundle")
        say("No data folder: building the demo on the embedded bundle of real results ({}).", "assets/bundle")
        # Real answers only (the tiny-model CultureMix answers stay with the full data), and the real Ukrainian
        # corpus the ua-gec package ships, for the co-occurrence and code-mixing pages.
        datasets = ("borsch", "worldcuisines", "culturemix")  # CultureMix: its sample's images, no answers are public
        return Options(datasets=datasets, data=source, uagec=True)
    if source is None:
        console.print("[yellow]Building the demo on the hand-written embedded sample (no model answers).[/]")
        return Options(datasets=("sample",))
    source = source.expanduser().resolve()
    say("building the demo from {}", source)
    datasets, generations = ("borsch", "worldcuisines"), ()
    if (source / "culturemix-sample" / "images.csv").is_file():
        # No model answers to CultureMix are public: the tiny random vision model answers the sample,
        # and the Culture mix page says plainly that its answers come from a small test model.
        datasets += ("culturemix",)
        generations = culturemix_demo_answers(beside / "models" / "tiny-vision")
    # a real Ukrainian corpus (UA-GEC) too, so the corpus pages show real counts
    return Options(datasets=datasets, data=source, uagec=True, generations=generations)


def say_next_step(warehouse: Path, *, published: bool) -> None:
    """What to do once the warehouse is built: start the dashboard on it (`make demo` does it next), or, when it was
    not published (`--no-publish`), publish it first."""
    if not published:
        say("Next: `python -m pipeline --warehouse {} publish`, then start the dashboard on it", warehouse)
        return
    env = (
        ""
        if warehouse.expanduser().resolve() == default_warehouse().expanduser().resolve()
        else (f"{WAREHOUSE_ENV}={warehouse} ")
    )
    say("[bold green]The demo warehouse is ready[/] at {}.", warehouse)
    say(
        "Next: start the dashboard with [bold]{}[/] (or [bold]{}[/]) and open {}",
        f"{env}make app",
        f"{env}streamlit run app/main.py",
        "http://127.0.0.1:8501",
    )


def culturemix_demo_answers(model_dir: Path) -> tuple[GenerationSpec, ...]:
    """assets/culturemix.run.toml's generations, with the tiny vision model built next to the warehouse."""
    from pipeline.tiny.build import build_tiny_model

    if not (model_dir / "config.json").is_file():
        build_tiny_model("vision", model_dir)
    plan = runconfig.load(CULTUREMIX_RUN)
    return tuple(dataclasses.replace(spec, model=str(model_dir)) for spec in plan.generations)
