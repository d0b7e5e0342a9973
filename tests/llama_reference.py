"""log P(continuation | prompt) the plain way, as llama.cpp's server computes it for a fresh
prompt: one batch, logits for every token. (Other batchings of the same tokens move Gemma's
log-probabilities by up to about 0.5 on CPU builds: its BOS token's huge activations amplify the
kernels' rounding.)"""

from __future__ import annotations

import numpy as np


def reference_score(path, prompt: str, continuation: str) -> float:
    from llama_cpp import Llama

    llm = Llama(model_path=str(path), n_ctx=1024, logits_all=True, verbose=False)
    head = llm.tokenize(prompt.encode(), add_bos=True)
    full = llm.tokenize((prompt + continuation).encode(), add_bos=True)
    llm.eval(full)
    rows = np.asarray(llm.scores[len(head) - 1:len(full) - 1], dtype=np.float64)
    top = rows.max(axis=1, keepdims=True)
    logprobs = rows - top - np.log(np.exp(rows - top).sum(axis=1, keepdims=True))
    return float(sum(logprobs[i, t] for i, t in enumerate(full[len(head):])))
