-- Tables no stage ever wrote or read (issue 10): run bookkeeping lives in core.generation_runs and
-- meta.source_files, prompts in pipeline/tasks/*.toml and core.item_prompts. The image tables
-- (generated, composite, embeddings, similarities) stay for the image issues that will fill them.
DROP TABLE IF EXISTS core.prompt_templates;
DROP TABLE IF EXISTS meta.runs;
