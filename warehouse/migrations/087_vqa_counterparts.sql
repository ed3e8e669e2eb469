-- BORSch Table 4 and Figs. 9/16 pair a text model's dish descriptions with the VQA answers of its
-- vision counterpart (§4.1: Qwen2-72B-Instruct with Qwen2-VL-72B-Instruct, Llama-3.1-70B-Instruct with
-- Llama-3.2-90B-Vision-Instruct). A pairing declared for a describer (`imagine --vqa-model`, a run
-- configuration's `vqa_models`) is kept here; without one the mart uses the paper's pairs, and a
-- describer the paper does not pair answers for itself (warehouse/marts/borsch_table4.py).
CREATE TABLE core.vqa_counterparts (
    describer     TEXT PRIMARY KEY,
    vision_model  TEXT NOT NULL
);
