-- Fine-tuning (`python -m pipeline finetune`, pipeline/finetune/): what was trained on what, how, and
-- where the tuned model is, so that it is evaluated like any other model (generate --model PATH) and
-- the before/after comparison (marts.finetune_comparison) can be read from the warehouse alone.

-- One fine-tuning run. finetune_id is its cache key: base model (+ weights hash), recipe,
-- hyper-parameters and the training data's hash; the checkpoints live under output_dir/checkpoints,
-- so a killed run resumes from its last complete checkpoint.
CREATE TABLE core.finetune_runs (
    finetune_id  TEXT PRIMARY KEY,
    recipe       TEXT NOT NULL,          -- culturemix_sft | zno_paligemma | plain
    source       TEXT NOT NULL,          -- the paper section the recipe follows, or 'project'
    base_model   TEXT NOT NULL,          -- as named (folder or hub id)
    base_weights_hash TEXT,              -- of a local folder
    method       TEXT NOT NULL CHECK (method IN ('full', 'lora')),
    hyperparameters JSON NOT NULL,       -- optimizer, learning rate, batch, accumulation, epochs, seed, LoRA
    data         JSON NOT NULL,          -- tasks, language, variant, split rule, sampling, counts
    data_sha256  TEXT NOT NULL,          -- of the ordered training examples (prompts, images, answers)
    output_dir   TEXT NOT NULL,
    status       TEXT NOT NULL CHECK (status IN ('running', 'done')),
    resumed_from TEXT,                   -- the checkpoint the last (re)run started from
    train_steps  INTEGER,                -- optimizer steps done
    first_loss   DOUBLE,                 -- training loss of the first and last logged step
    last_loss    DOUBLE,
    seconds      DOUBLE,                 -- wall time of the last (re)run
    started_at   TIMESTAMP NOT NULL,
    finished_at  TIMESTAMP,
    base_tiny_random BOOLEAN NOT NULL DEFAULT false   -- the base is a tiny random test model (`tiny-model`)
);

-- Every example of a run with its split: train rows in the order they were trained on (the
-- curriculum), test rows are what the tuned model is compared on.
CREATE TABLE core.finetune_examples (
    finetune_id  TEXT NOT NULL,
    item_id      TEXT NOT NULL,
    lang         TEXT NOT NULL,
    variant      TEXT NOT NULL,
    split        TEXT NOT NULL CHECK (split IN ('train', 'test')),
    position     INTEGER NOT NULL,       -- training order (train) or listing order (test)
    stage        TEXT,                   -- curriculum stage (CultureMix subtask SF/MF/SFB/MFB)
    group_key    TEXT,                   -- what the split keeps together (the CultureMix SF food)
    country      TEXT,                   -- what the split balances
    answer       TEXT NOT NULL,          -- the target text trained on
    PRIMARY KEY (finetune_id, item_id, variant)
);

-- The models a run saved: one per epoch asked for (ZNO-Vision reports 1, 2 and 4 epochs).
CREATE TABLE core.finetune_models (
    finetune_id  TEXT NOT NULL,
    epoch        INTEGER NOT NULL,
    model_path   TEXT NOT NULL,          -- a complete model folder: generate --backend transformers --model PATH
    weights_hash TEXT NOT NULL,
    PRIMARY KEY (finetune_id, epoch)
);

-- The training loss as the Trainer logged it.
CREATE TABLE core.finetune_losses (
    finetune_id  TEXT NOT NULL,
    step         INTEGER NOT NULL,
    epoch        DOUBLE NOT NULL,
    loss         DOUBLE NOT NULL,
    PRIMARY KEY (finetune_id, step)
);
