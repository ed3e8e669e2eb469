"""Corpus scan benchmark: a synthetic Cyrillic corpus with a known number of planted mentions.

    python bench/corpus.py --size-gb 1 [--warehouse W] [--baseline-mb 5]
    python bench/corpus.py --size-gb 0.15 --whole-process    # `python -m pipeline corpus scan` timed as a user runs it

Builds (unless --warehouse is given) a temporary warehouse with BORSch ingested from the shared data, writes
JSON Lines shards of Ukrainian-looking filler (pseudo-words that are no dish or country surface) with planted,
inflected dish mentions, some next to a true-origin country and some next to another country, scans them with
:func:`pipeline.corpus.scan.scan_corpus`, checks every count exactly (planted dishes and zero everywhere else), and
prints the scanner's MB/s (wall and per CPU-second) next to a Python ``re`` alternation baseline
(``\\b(?:name1|name2|...)\\b`` with re.IGNORECASE) timed on a sample and extrapolated per MB, and next to the same
alternation written as a trie (``борщ(?:у|ем)?``: the same matches, checked, without trying every name at every
position: `re` at its fastest), timed on ``--trie-baseline-mb``.

``--whole-process`` also times the command a user runs, ``python -m pipeline corpus scan``, as separate processes
(wall seconds and the CPU seconds of the process):
a first invocation on a one-document shard with an empty pattern cache (inflecting every name and compiling the
database), two more on new one-document shards that find the compiled database in the cache (the third is the fixed
cost every later scan pays), the third shard again (nothing new: skipped, nothing published), and one over the whole
generated corpus (end-to-end MB/s, interpreter start, imports and publishing included).

``--matchers`` (issue 50) compares compiled multi-pattern matchers side by side on the same folded text: the first
``--matchers-mb`` MB of the generated corpus folded once by the scanner's kernel, and the scanner's own literals
(whole-word, framed by spaces) given to each matcher; every matcher must report the same (literal, end) pairs as the
scanner's Hyperscan database, and each is timed in CPU-seconds, in turns, ``--repeats`` times (the best counts; the
machine may be shared). Matchers that are not installed are named and skipped: `pyahocorasick` is a project
dependency; the Rust bindings are not, install them beside the project for the comparison, e.g.
``pip install --target /tmp/matchers ahocorasick-rs==1.0.3 daachorse==0.5.0`` and ``--matchers-path /tmp/matchers``.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import duckdb  # noqa: E402

from pipeline.corpus.patterns import COUNTRY, DISH, build_patterns  # noqa: E402
from pipeline.corpus.scan import scan_corpus  # noqa: E402
from tests.pipeline.corpus.test_matching_real import trie_pattern  # noqa: E402
from warehouse.db import migrate  # noqa: E402

_SYLLABLES = [
    "ка",
    "ко",
    "ку",
    "ми",
    "мо",
    "на",
    "но",
    "ра",
    "ро",
    "ли",
    "ле",
    "та",
    "то",
    "ва",
    "во",
    "ді",
    "ні",
    "рі",
    "ти",
    "си",
    "зи",
    "жи",
    "ша",
    "шо",
    "пі",
    "по",
    "бу",
    "бо",
    "го",
    "гу",
    "да",
    "до",
    "ди",
    "ре",
    "пе",
    "те",
    "ме",
    "ве",
    "ло",
    "ла",
    "мі",
    "сі",
    "ві",
    "ча",
    "чо",
    "хо",
    "ха",
    "ю",
    "я",
    "є",
    "ї",
    "ць",
    "ть",
    "ль",
    "ст",
    "пр",
    "кр",
    "тр",
    "ск",
    "зн",
    "дн",
    "вн",
    "мн",
]
_PUNCT = (" ", " ", " ", " ", " ", ", ", ". ", " — ", "; ", "! ")
N_PLANTED_DISHES = 200
DOC_CHARS = 2000


def default_data() -> Path:
    return Path(os.environ.get("DATA") or REPO.parent / "shared" / "data").resolve()


def make_warehouse(tmp: Path) -> Path:
    path = tmp / "wh" / "warehouse.duckdb"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pipeline",
            "--warehouse",
            str(path),
            "ingest",
            "borsch",
            "--source",
            str(default_data() / "borsch"),
        ],
        cwd=REPO,
        check=True,
        capture_output=True,
    )
    return path.with_name("warehouse.work.duckdb")


def filler_words(rng: random.Random, forbidden: set[str], n: int = 5000) -> list[str]:
    words: set[str] = set()
    while len(words) < n:
        word = "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(1, 4)))
        if len(word) > 1 and word not in forbidden:
            words.add(word)
    return sorted(words)


def filler_chunk(rng: random.Random, words: list[str], chars: int) -> str:
    out, size = [], 0
    while size < chars:
        word = rng.choice(words)
        if rng.random() < 0.1:
            word = word.capitalize()
        sep = rng.choice(_PUNCT)
        out.append(word + sep)
        size += len(word) + len(sep)
    return "".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size-gb", type=float, default=1.0)
    parser.add_argument("--warehouse", type=Path, help="working database with BORSch ingested (else a temporary one)")
    parser.add_argument("--baseline-mb", type=float, default=5.0)
    parser.add_argument("--trie-baseline-mb", type=float, default=3.0, help="MB the trie alternation is timed on")
    parser.add_argument("--shards", type=int, default=8)
    parser.add_argument("--lang", default="uk")
    parser.add_argument("--whole-process", action="store_true", help="also time `python -m pipeline corpus scan`")
    parser.add_argument("--workers", type=int, help="threads scanning shards (default: one per core available)")
    parser.add_argument("--matchers", action="store_true", help="also compare multi-pattern matchers side by side")
    parser.add_argument("--matchers-mb", type=float, default=40.0, help="MB of the corpus the matchers compare on")
    parser.add_argument("--matchers-path", help="a folder of matcher packages installed beside the project")
    parser.add_argument("--repeats", type=int, default=3, help="rounds of the matcher comparison")
    args = parser.parse_args()
    rng = random.Random(7)
    with tempfile.TemporaryDirectory(prefix="corpus-bench-") as tmp_name:
        tmp = Path(tmp_name)
        work = args.warehouse or make_warehouse(tmp)
        bench_db = tmp / "bench.duckdb"
        bench_db.write_bytes(Path(work).read_bytes())
        con = duckdb.connect(str(bench_db))
        migrate(con)
        patterns = build_patterns(con, args.lang)
        tokens = {tok for s in patterns.surfaces for tok in re.split(r"[ '\-]", s) if tok}
        words = filler_words(rng, tokens)
        # dishes whose forms name that dish only (among dishes), and countries by unambiguous surfaces
        dish_forms: dict[int, list[str]] = {}
        country_forms: dict[int, list[str]] = {}
        for index, (surface, targets) in enumerate(zip(patterns.surfaces, patterns.pattern_targets, strict=True)):
            dishes = [t for t in targets if patterns.targets[t].kind == DISH]
            countries = [t for t in targets if patterns.targets[t].kind == COUNTRY]
            if len(dishes) == 1 and not countries and not set(surface) & set(" '-"):
                dish_forms.setdefault(dishes[0], []).append(surface)
            if len(countries) == 1 and not dishes and " " not in surface and not patterns.case_sensitive[index]:
                country_forms.setdefault(countries[0], []).append(surface)
        # a dish whose every surface is its own (no form shared with another dish)
        own = {t for t in dish_forms}
        for targets in patterns.pattern_targets:
            dishes = [t for t in targets if patterns.targets[t].kind == DISH]
            if len(dishes) > 1:
                own -= set(dishes)
        candidates = sorted(
            t for t in own if patterns.origins.get(t) and any(o in country_forms for o in patterns.origins[t])
        )
        planted = rng.sample(candidates, min(N_PLANTED_DISHES, len(candidates)))
        all_countries = sorted(country_forms)
        expected = {t: [0, 0, 0] for t in planted}
        chunks = [filler_chunk(rng, words, DOC_CHARS // 2) for _ in range(2000)]
        corpus = tmp / "corpus"
        corpus.mkdir()
        target_bytes = int(args.size_gb * 1e9)
        per_shard = target_bytes // args.shards
        began = time.perf_counter()
        n_docs, written = 0, 0
        for shard in range(args.shards):
            with open(corpus / f"shard-{shard:03d}.jsonl", "wb") as out:
                size, block = 0, []
                while size < per_shard:
                    a, b = rng.choice(chunks), rng.choice(chunks)
                    roll = rng.random()
                    middle = " "
                    if roll < 0.3:
                        dish = rng.choice(planted)
                        form = rng.choice(dish_forms[dish])
                        form = form.capitalize() if rng.random() < 0.3 else form
                        counts = expected[dish]
                        counts[0] += 1
                        if roll < 0.1:
                            true = [o for o in patterns.origins[dish] if o in country_forms]
                            middle = f" {form} з {rng.choice(country_forms[rng.choice(true)])}. "
                            counts[1] += 1
                            counts[2] += 1
                        elif roll < 0.2:
                            other = rng.choice([c for c in all_countries if c not in patterns.origins[dish]])
                            middle = f" {form}, {rng.choice(country_forms[other])}; "
                            counts[2] += 1
                        else:
                            middle = f" {form} "
                    line = ('{"id": ' + str(n_docs) + ', "text": "' + a + middle + b + '"}\n').encode("utf-8")
                    block.append(line)
                    size += len(line)
                    n_docs += 1
                    if len(block) >= 4096:
                        out.write(b"".join(block))
                        block = []
                out.write(b"".join(block))
                written += size
        print(
            f"generated {written / 1e9:.2f} GB, {n_docs} docs, {args.shards} shards "
            f"in {time.perf_counter() - began:.1f}s; planted {len(planted)} dishes"
        )
        cpu0, wall0 = time.process_time(), time.perf_counter()
        summary = scan_corpus(con, args.lang, str(corpus), run_id="bench", workers=args.workers)
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
        mb = summary.n_bytes / 1e6
        got = {
            key: (a, b, c)
            for key, a, b, c in con.execute(
                "SELECT dish_key, docs_with_dish, docs_with_true_country, docs_with_any_country "
                "FROM core.corpus_dish_counts WHERE corpus_id = ?",
                [summary.corpus_id],
            ).fetchall()
        }
        wrong = [
            (patterns.targets[t].key, tuple(e), got.get(patterns.targets[t].key))
            for t, e in expected.items()
            if tuple(e) != got.get(patterns.targets[t].key)
        ]
        planted_keys = {patterns.targets[t].key for t in planted}
        stray = [(k, v) for k, v in got.items() if k not in planted_keys and any(v)]
        assert summary.n_docs == n_docs, (summary.n_docs, n_docs)
        # baseline: one big re alternation over a sample
        names = sorted({s for s in patterns.surfaces}, key=len, reverse=True)
        regex = re.compile(r"\b(?:" + "|".join(map(re.escape, names)) + r")\b", re.IGNORECASE)
        sample = (corpus / "shard-000.jsonl").read_bytes()[: int(args.baseline_mb * 1e6)].decode("utf-8", "ignore")
        t0 = time.perf_counter()
        n_base = sum(1 for _ in regex.finditer(sample))
        base_s = time.perf_counter() - t0
        base_mbps = len(sample.encode()) / 1e6 / base_s
        # the same alternation written as a trie (tests/pipeline/corpus/test_matching_real.py): `re` at its best
        trie = re.compile(r"\b(?:" + trie_pattern(names) + r")\b", re.IGNORECASE)
        assert sum(1 for _ in trie.finditer(sample)) == n_base  # the same matches as the flat alternation
        trie_sample = (corpus / "shard-000.jsonl").read_bytes()[: int(args.trie_baseline_mb * 1e6)]
        trie_text = trie_sample.decode("utf-8", "ignore")
        t0, c0 = time.perf_counter(), time.process_time()
        n_trie = sum(1 for _ in trie.finditer(trie_text))
        trie_s, trie_cpu = time.perf_counter() - t0, time.process_time() - c0
        trie_mbps, trie_per_cpu = len(trie_sample) / 1e6 / trie_s, len(trie_sample) / 1e6 / trie_cpu
        print(f"patterns: {len(patterns.surfaces)} surfaces, {len(patterns.targets)} targets ({args.lang})")
        print(f"{'':24}{'MB/s':>10}")
        print(f"{'scanner (wall)':24}{mb / wall:>10.1f}   {mb:.0f} MB in {wall:.1f}s, incl. building the patterns")
        print(
            f"{'scanner (shards only)':24}{summary.mb_per_s:>10.1f}   {summary.seconds:.1f}s reading+matching+counting"
        )
        print(
            f"{'scanner (per core)':24}{mb / cpu:>10.1f}   MB per CPU-second ({cpu:.1f} CPU-s, patterns included); "
            f"goal 100 MB/s per core: {mb / cpu / 100:.2f}x"
        )
        print(
            f"{'re alternation':24}{base_mbps:>10.2f}   {len(sample) and args.baseline_mb} MB sample, {n_base} matches"
        )
        print(
            f"{'re alternation as a trie':24}{trie_mbps:>10.2f}   {len(trie_sample) / 1e6:.1f} MB sample, {n_trie} "
            f"matches ({trie_per_cpu:.2f} MB per CPU-s)"
        )
        print(f"speed-up: {mb / wall / base_mbps:.0f}x (wall), {summary.mb_per_s / base_mbps:.0f}x (shards only)")
        print(
            f"speed-up against the trie: {mb / wall / trie_mbps:.1f}x (wall), "
            f"{mb / cpu / trie_per_cpu:.1f}x (per CPU-s)"
        )
        print(f"counts: {len(expected)} planted dishes checked, {len(wrong)} wrong, {len(stray)} stray")
        if wrong or stray:
            print("WRONG", wrong[:5], "STRAY", stray[:5])
            sys.exit(1)
        if args.matchers:
            compare_matchers(patterns, corpus, args.matchers_mb, args.repeats, args.matchers_path)
        con.close()
        if args.whole_process:
            whole_process(Path(work), corpus, tmp, mb, base_mbps, (trie_mbps, trie_per_cpu))


def folded_sample(patterns, corpus: Path, mb: float) -> tuple[bytes, int, float]:
    """(the folded text of the corpus's first `mb` MB of documents, their UTF-8 bytes, CPU-s of the fold)."""
    import json

    import pyarrow as pa

    from pipeline.corpus.compiled import Folder
    from pipeline.corpus.matching import fold_column

    docs, size = [], 0
    for shard in sorted(corpus.glob("*.jsonl")):
        with open(shard, encoding="utf-8") as lines:
            for line in lines:
                docs.append(json.loads(line)["text"])
                size += len(docs[-1].encode())
                if size >= mb * 1e6:
                    break
        if size >= mb * 1e6:
            break
    folder = Folder(patterns.literals.alphabet)
    column = pa.array(docs)
    fold_column(folder, column[:10])  # the kernel loaded
    began = time.process_time()
    batch = fold_column(folder, column)
    return batch.folded.text.tobytes(), size, time.process_time() - began


def matchers(literals: list[bytes]) -> dict[str, object]:
    """name -> a function from folded text to its (literal, end) pairs (ends exclusive); each built here."""
    import numpy as np

    found = {}

    def pairs(ids, ends):
        return np.array(ids, dtype=np.int64) << 32 | np.array(ends, dtype=np.int64)

    import hyperscan

    database = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    database.compile(expressions=literals, ids=list(range(len(literals))), elements=len(literals),
                     flags=[0] * len(literals), literal=True)  # fmt: skip
    scratch = hyperscan.Scratch(database)

    def hyperscan_scan(text):
        ids, ends = [], []

        def on_match(literal, _from, to, _flags, _context):
            ids.append(literal)
            ends.append(to)

        database.scan(text, match_event_handler=on_match, scratch=scratch)
        return pairs(ids, ends)

    found["hyperscan (the scanner's)"] = hyperscan_scan
    try:
        import ahocorasick
    except ImportError:
        print("  pyahocorasick: not installed")
    else:
        automaton = ahocorasick.Automaton()
        for index, literal in enumerate(literals):
            automaton.add_word(literal.decode("latin-1"), index)
        automaton.make_automaton()

        def pyahocorasick_scan(text):
            hits = list(automaton.iter(text.decode("latin-1")))  # every overlapping match: (last index, literal)
            return pairs([h[1] for h in hits], [h[0] + 1 for h in hits])

        found["pyahocorasick"] = pyahocorasick_scan
    try:
        import ahocorasick_rs
    except ImportError:
        print("  ahocorasick-rs: not installed (see --matchers-path)")
    else:
        rs = ahocorasick_rs.BytesAhoCorasick(literals, matchkind=ahocorasick_rs.MatchKind.Standard)

        def ahocorasick_rs_scan(text):
            hits = rs.find_matches_as_indexes(text, overlapping=True)
            return pairs([h[0] for h in hits], [h[2] for h in hits])

        found["ahocorasick-rs"] = ahocorasick_rs_scan
    try:
        import daachorse
    except ImportError:
        print("  daachorse: not installed (see --matchers-path)")
    else:
        daac = daachorse.DoubleArrayAhoCorasick(literals, match_kind=daachorse.MATCH_KIND_STANDARD)

        def daachorse_scan(text):
            hits = daac.find_overlapping(text)
            return pairs([h[2] for h in hits], [h[1] for h in hits])

        found["daachorse"] = daachorse_scan
    return found


def compare_matchers(patterns, corpus: Path, mb: float, repeats: int, path: str | None) -> None:
    """Each matcher on the same folded text, in turns: identical matches, CPU-s (see the module docstring)."""
    import numpy as np

    from pipeline.corpus.patterns import folded_literals

    if path:
        sys.path.insert(0, path)
    literals = [key[0] for key in folded_literals(patterns, patterns.literals.alphabet)]
    assert len(literals) == len(patterns.literals.length)  # the scanner's literal ids
    text, size, fold_cpu = folded_sample(patterns, corpus, mb)
    print(
        f"\nmatchers on {size / 1e6:.1f} MB of the corpus folded to {len(text) / 1e6:.1f} MB "
        f"(the fold: {fold_cpu:.2f} CPU-s), {len(literals):,} literals, best of {repeats} rounds in turns:"
    )
    found = matchers(literals)
    seconds: dict[str, list[float]] = {name: [] for name in found}
    reference = None
    for _ in range(repeats):
        for name, scan in found.items():
            began = time.process_time()
            got = np.sort(scan(text))
            seconds[name].append(time.process_time() - began)
            if reference is None:
                reference = got
            assert np.array_equal(got, reference), f"{name} finds other matches than Hyperscan"
    base = min(seconds["hyperscan (the scanner's)"])
    for name, times in seconds.items():
        best = min(times)
        print(f"  {name:<28}{best:>7.2f} CPU-s  {size / 1e6 / best:>8.1f} MB of text per CPU-s  "
              f"{best / base:>6.2f}x Hyperscan's time   rounds: {', '.join(f'{t:.2f}' for t in times)}")  # fmt: skip
    print(f"  every matcher: the same {len(reference):,} (literal, end) matches")


def whole_process(work: Path, corpus: Path, tmp: Path, mb: float, base_mbps: float, trie: tuple[float, float]) -> None:
    """Time the user's command as separate processes on a copy of the warehouse; see the module docstring."""
    published = work.with_name(work.name.replace(".work", ""))
    target = tmp / "whole" / "warehouse.duckdb"
    target.parent.mkdir()
    target.with_name("warehouse.work.duckdb").write_bytes(work.read_bytes())
    if published.exists():
        target.write_bytes(published.read_bytes())
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp / "cache")}  # an empty pattern cache to start from
    # as installed code runs: bytecode cached (PYTHONDONTWRITEBYTECODE recompiles every module on every start)
    env.pop("PYTHONDONTWRITEBYTECODE", None)

    def scan(source: Path) -> tuple[float, float]:
        """(wall seconds, CPU seconds of the process and its threads): on a shared machine the CPU time is the
        steadier figure, and the wall time of an idle one lies between it and the wall time measured."""
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        began = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "pipeline", "--warehouse", str(target), "corpus", "scan", "--lang", "uk",
             "--source", str(source)],
            cwd=REPO, env=env, check=True, capture_output=True,
        )  # fmt: skip
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        return time.perf_counter() - began, cpu

    one_doc = []
    for name in ("first", "second", "third"):
        path = tmp / f"{name}.jsonl"
        path.write_text('{"text": "Борщ з України."}\n', encoding="utf-8")
        one_doc.append(scan(path))
    unchanged = scan(tmp / "third.jsonl")
    (wall, cpu) = end_to_end = scan(corpus)
    cores = len(os.sched_getaffinity(0))
    print(f"load average after the whole-process runs: {os.getloadavg()[0]:.1f} ({cores} cores)")
    print(f"{'whole process':24}{'seconds':>10}{'CPU-s':>8}")
    fixed = one_doc[2][0]
    rows = [
        ("1 doc, empty cache", one_doc[0], "inflecting + compiling the patterns, publishing"),
        ("1 doc, cached patterns", one_doc[2], "the fixed cost of every later invocation (a third new 1-doc shard); "
         f"goal < 2 s: {fixed / 2:.2f}x of it"),
        ("nothing new", unchanged, "the same shard again: skipped, nothing published"),
        ("whole corpus", end_to_end, f"{mb / wall:.1f} MB/s end to end ({mb / wall / base_mbps:.0f}x the re "
         f"alternation at {base_mbps:.2f} MB/s, {mb / wall / trie[0]:.1f}x the trie at {trie[0]:.2f} "
         f"MB/s, {mb / cpu / trie[1]:.1f}x per CPU-s); "
         f"goal 50 MB/s: {mb / wall / 50:.2f}x; "
         f"{mb / cpu:.1f} MB per CPU-second (goal 100 per core: {mb / cpu / 100:.2f}x)"),
    ]  # fmt: skip
    for label, (seconds, cpu_seconds), what in rows:
        print(f"{label:24}{seconds:>10.1f}{cpu_seconds:>8.1f}   {what}")


if __name__ == "__main__":
    main()
