"""TransformersLM on a tiny randomly initialised GPT-2 built offline in a temp folder."""

from __future__ import annotations

import math

import pytest

from koplc.kopl.errors import KoplcError
from koplc.llm.lm.transformers_lm import TransformersLM


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    folder = tmp_path_factory.mktemp("tiny-gpt2")
    words = "step find relate queryname done question who directed heat blade runner ( ) : ,"
    vocab = {w: i for i, w in enumerate(["[UNK]", "[EOS]", *dict.fromkeys(words.split())])}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", eos_token="[EOS]")
    fast.save_pretrained(folder)
    config = GPT2Config(vocab_size=len(vocab), n_positions=128, n_embd=32, n_layer=2, n_head=2,
                        eos_token_id=1, bos_token_id=1)
    GPT2LMHeadModel(config).save_pretrained(folder)
    return folder


@pytest.mark.model
def test_generates_and_scores(tiny_model):
    lm = TransformersLM(tiny_model, device="cpu")
    greedy = lm.generate("question who directed heat", 1, 0.0, max_tokens=5)
    assert greedy == lm.generate("question who directed heat", 1, 0.0, max_tokens=5)
    assert len(lm.generate("question who", 2, 0.7, 5, max_tokens=4)) == 2
    value = lm.score("question who directed", " heat")
    assert value < 0 and math.isfinite(value)
    assert lm.score("question who directed", " heat heat") < value


def test_missing_folder_is_a_clear_error(tmp_path):
    with pytest.raises(KoplcError, match="cannot load"):
        TransformersLM(tmp_path)
