"""The finetune stage: a model tuned on a task's items (transformers' Trainer, LoRA where it fits), resumable from
its last checkpoint and recorded in the warehouse, then evaluated like any other model."""
