"""Fast greedy decoding and scoring for llama.cpp: prompt states kept between calls, drafts
(hints, or text looked up in the prompt) checked by the model several tokens per forward pass,
and logits computed only where they are read (Gemma's output layer spans 262k tokens).

A drafted token is kept only when it is the model's own argmax at that position, so the output
is the model's greedy output. The logits come from batches, whose arithmetic can break a
near-tie the other way than one token per pass does. Programs copy much of their text from the
prompt (the question's entity, the demonstrations' relations and call shapes), so most drafts
hold and a 20-token program costs one or two forward passes instead of 20.

How a prompt is batched moves its logits: llama.cpp's CPU kernels give a token other numbers in
a batch of another size (a logit by up to 1.4 on this model), and its saved state of more than
Gemma 3's 512-token sliding window loses window cells, so what is read on from it differs from
the prompt read whole. An answer would then depend on what was read before it. So every prompt
is read the same way whatever came before: from position 0 in stretches that end at multiples
of BLOCK, the last where the call's reading ends (all but the prompt's last token). Between
calls the context holds only what was read so; a call keeps of it the whole stretches it shares
(and a last short one only when it ends exactly there), and a saved state is kept only of at
most the window, at a stretch's end. Then a prompt's logits are the same bit for bit from an
empty context, after any other prompt, and from a saved state (tests/test_llm_speculative.py).
"""

from __future__ import annotations

import tempfile
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from koplc.llm.lm import llama_adapter
from koplc.llm.lm.repeats import before_repeat

# Prompts are read in stretches ending at multiples of BLOCK positions (see above). Against
# llama.cpp's 512-token batches, 128-token ones read 3 % slower on 2 cores, 64-token ones 15 %;
# a call re-reads up to BLOCK - 1 tokens of a stretch it shares only in part.
BLOCK = 128
# How prompts are read, in the names of what depends on it (kept states, cached responses).
READING = f"read in stretches of {BLOCK}"
# Without a hint, a draft is the text that followed the longest recent match of the last few
# tokens.
MAX_NGRAM = 4
DRAFT = 12
# After a mismatch a hint is picked up again where the completion's last ALIGN characters fit
# it with at most MAX_EDITS edits, else after the longest suffix of the completion (of
# MIN_RESYNC to MAX_RESYNC characters) that it holds.
ALIGN, MAX_EDITS = 12, 1
MIN_RESYNC, MAX_RESYNC = 4, 32


class PromptStates:
    """Saved KV caches of prompt heads (a kept prefix's first stretches, at most the model's
    sliding window: `head_size`), least recently used dropped first beyond `capacity` bytes; a
    prompt starts from the one sharing most with it when the context holds less. Each is kept
    in an unnamed temporary file, not in the process's memory."""

    def __init__(self, capacity: int = 512 << 20):
        self.capacity = capacity
        self.states: OrderedDict[tuple[int, ...], _Kept] = OrderedDict()

    def best(self, tokens: Sequence[int]) -> tuple[int, tuple[int, ...], bytes | None]:
        """How many leading tokens the saved prompt sharing most with `tokens` shares, that
        prompt, and its state."""
        length, found = 0, None
        for key in self.states:
            n = common_prefix(key, tokens)
            if n > length:
                length, found = n, key
        if found is None:
            return 0, (), None
        self.states.move_to_end(found)
        return length, found, self.states[found].read()

    def put(self, tokens: Sequence[int], state: bytes) -> None:
        """Keep `state`, the KV cache of exactly `tokens`."""
        key = tuple(tokens)
        if key in self.states:
            self.states.pop(key).close()
        self.states[key] = _Kept(state)
        while sum(s.size for s in self.states.values()) > self.capacity and self.states:
            self.states.popitem(last=False)[1].close()

    @staticmethod
    def load(llm, key: tuple[int, ...], state: bytes) -> bool:
        """Put a saved KV cache back into the context; False when llama.cpp refuses it."""
        llama_adapter.clear(llm)
        if not llama_adapter.set_state(llm, state):
            llm.n_tokens = 0
            return False
        llm.input_ids[:len(key)] = key
        llm.n_tokens = len(key)
        return True


class _Kept:
    """One saved state, in an unnamed temporary file (gone with the process), or in memory
    where no file can be written."""

    def __init__(self, state: bytes):
        self.size = len(state)
        self.state, self.file = state, None
        try:
            file = tempfile.TemporaryFile(prefix="koplc-state-")
        except OSError:
            return
        try:
            file.write(state)
        except OSError:
            file.close()
            return
        self.state, self.file = b"", file

    def read(self) -> bytes:
        if self.file is None:
            return self.state
        self.file.seek(0)
        return self.file.read()

    def close(self) -> None:
        if self.file is not None:
            self.file.close()
            self.file = None


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    """How many leading tokens `a` and `b` share."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def draft(history: Sequence[int], text: str, hints: Sequence[str], tokenize,
          n: int = DRAFT) -> list[int]:
    """What to check next: the rest of the hint that best continues `text` (the completion so
    far, see `resync`) as `tokenize` splits it, else a lookup in `history` (the prompt and the
    completion's tokens)."""
    rest = resync(text, hints)
    return tokenize(rest) if rest else lookup(history, n)


def resync(text: str, hints: Sequence[str]) -> str:
    """The rest of a hint after `text` (the completion so far), "" when none fits: of the
    first hint that begins with `text`; else after the stretch of a hint, ending on the last
    character of `text`, where the last ALIGN characters of `text` fit with at most MAX_EDITS
    edits (and MIN_RESYNC characters more than edits); else after the longest
    suffix of `text` (at least MIN_RESYNC characters) that a hint holds. Among equal fits, the
    one ending nearest to where `text` ends.

    Matching text, not tokens, keeps a hint after the model split a word another way than the
    tokenizer ("Chim|pan|zee" against "Ch|impan|zee"), left out a character ('Find(Ab' for
    'Find("Ab') or put another word in one slot ("backward" for "forward"), where a
    token-level match loses it for the rest.

    >>> resync("Find(Chim", ["Find(Chimpanzee)\\nQueryName()"])
    'panzee)\\nQueryName()'
    >>> resync("Find(Ab", ['Find("Abbott")\\nCount()'])
    'bott")\\nCount()'
    >>> resync("Relate(discovered_by, backward", ["Relate(discovered_by, forward)\\nCount()"])
    ')\\nCount()'
    >>> resync("Find(X", ["Count()"])
    ''
    """
    for hint in hints:
        if len(hint) > len(text) and hint.startswith(text):
            return hint[len(text):]
    tail = text[-ALIGN:]
    fits = [(cost, abs(end - len(text)), end, hint) for hint in hints
            for end, cost in enumerate(_edits(tail, hint))
            if cost <= MAX_EDITS and len(tail) - cost >= MIN_RESYNC and end < len(hint)
            and hint[end - 1] == text[-1]]
    if fits:
        *_, end, hint = min(fits, key=lambda f: f[:2])
        return hint[end:]
    for size in range(min(len(text), MAX_RESYNC), MIN_RESYNC - 1, -1):
        tail = text[-size:]
        ends = [(abs(at + size - len(text)), at + size, hint) for hint in hints
                for at in _occurrences(hint, tail)]
        if ends:
            _, end, hint = min(ends, key=lambda e: e[0])
            if end < len(hint):
                return hint[end:]
    return ""


def _edits(tail: str, hint: str) -> list[int]:
    """For each end position in `hint`, the fewest edits that turn some stretch of `hint`
    ending there into `tail` (the stretch may start anywhere)."""
    row = [0] * (len(hint) + 1)
    for i, c in enumerate(tail, 1):
        new = [i]
        for j, h in enumerate(hint, 1):
            new.append(min(row[j - 1] + (c != h), row[j] + 1, new[j - 1] + 1))
        row = new
    return row


def _occurrences(text: str, part: str) -> list[int]:
    found, at = [], text.find(part)
    while at >= 0:
        found.append(at)
        at = text.find(part, at + 1)
    return found


def lookup(history: Sequence[int], n: int = DRAFT) -> list[int]:
    """Up to `n` tokens that followed the latest earlier occurrence of the longest suffix of
    `history` (at most MAX_NGRAM tokens) found earlier in it; empty when none is found."""
    h = np.asarray(history, dtype=np.int64)
    for size in range(min(MAX_NGRAM, len(h) - 1), 0, -1):
        tail = h[-size:]
        windows = np.lib.stride_tricks.sliding_window_view(h[:-1], size)
        hits = np.nonzero((windows == tail).all(axis=1))[0]
        if len(hits):
            start = int(hits[-1]) + size
            return h[start:start + n].tolist()
    return []


def empty(llm) -> None:
    """Drop everything the context holds (its tokens and their KV)."""
    llm.reset()
    llama_adapter.clear(llm)


def read(llm, tokens: list[int]) -> None:
    """Evaluate `tokens` into an empty context, with no logits."""
    _decode(llm, tokens, 0, None)


def head_size(llm, n: int) -> int:
    """How many of a prefix's `n` tokens a saved state may hold: its whole stretches within
    the model's sliding window (all of them for a model without one), whose saved state
    llama.cpp loads back exactly."""
    return min(n, llama_adapter.restorable(llm)) // BLOCK * BLOCK


def keep(llm, n: int) -> bool:
    """Cut the context back to its first `n` tokens; False when llama.cpp cannot drop the KV
    past them."""
    llm.n_tokens = n
    return llama_adapter.drop_after(llm, n)


def reusable(held: Sequence[int], tokens: Sequence[int], end: int) -> int:
    """How many of `held` (what the context or a saved state holds, read in stretches) a call
    reading `tokens` up to `end` keeps: the whole stretches both share, and `held` whole when
    the call's reading ends exactly where it does or it ends at a stretch's end."""
    shared = common_prefix(held, tokens)
    if shared == len(held) and (end == shared or (shared % BLOCK == 0 and end >= shared)):
        return shared
    return min(shared, end) // BLOCK * BLOCK


def prepare(llm, tokens: list[int], end: int, states: PromptStates | None) -> None:
    """Make the context hold exactly `tokens[:end]`, read in stretches from position 0 (the
    module's note): what it holds of them, or a saved state, and the rest read now."""
    held = reusable(llm.input_ids[:llm.n_tokens].tolist(), tokens, end)
    if states is not None:
        _, key, state = states.best(tokens)
        saved = reusable(key, tokens, end)
        if state is not None and saved > held:
            held = saved if states.load(llm, key, state) else 0
    if held and not keep(llm, held):
        held = 0
    if not held:
        empty(llm)
    if end > held:
        _decode(llm, tokens[held:end], held, None)


def greedy(llm, prompt: str, stop: Sequence[str], max_tokens: int,
           states: PromptStates | None = None, hints: Sequence[str] = (),
           repeats: int = 0) -> str:
    """The greedy completion of `prompt` up to the first `stop` string, end of text,
    `max_tokens` tokens or (with `repeats`) a line written for the `repeats`-th time; `hints`
    are likely completions, checked first as drafts. The context keeps the prompt but its last
    token afterwards, for the scores after it (a repair scores its candidates after the
    generation prompt) and for later prompts."""
    tokens = llm.tokenize(prompt.encode(), add_bos=True)
    if len(tokens) + max_tokens + DRAFT + 1 > llm.n_ctx():
        raise ValueError(f"prompt of {len(tokens)} tokens leaves no room in the "
                         f"{llm.n_ctx()}-token context")
    prepare(llm, tokens, len(tokens) - 1, states)
    text = _complete(llm, tokens, tokens[-1:], stop, max_tokens, hints, repeats)
    keep(llm, len(tokens) - 1)
    return text


def _complete(llm, tokens: list[int], pending: list[int], stop: Sequence[str],
              max_tokens: int, hints: Sequence[str], repeats: int) -> str:
    """The speculative loop: the context holds `tokens` but `pending`."""
    def tokenize(part: str) -> list[int]:
        return llm.tokenize(part.encode(), add_bos=False)

    out: list[int] = []
    text = ""
    while len(out) < max_tokens:
        guess = draft(tokens + out, text, hints, tokenize)[: max_tokens - len(out) - 1]
        best = _decode(llm, pending + guess, llm.n_tokens, logits_from=len(pending) - 1)
        accepted = [int(best[0])]
        for i, token in enumerate(guess):
            if token != accepted[-1] or llama_adapter.is_end(llm, token):
                break
            accepted.append(int(best[i + 1]))
        # Keep the KV of what was checked and held; the last accepted token is not in it yet.
        keep(llm, llm.n_tokens - (len(guess) - (len(accepted) - 1)))
        ended = False
        for token in accepted:
            if llama_adapter.is_end(llm, token) or len(out) >= max_tokens:
                ended = True
                break
            out.append(token)
        text = llm.detokenize(out, prev_tokens=tokens).decode("utf-8", errors="ignore")
        cut = [text.index(s) for s in stop if s in text]
        if cut:
            return text[: min(cut)]
        looped = before_repeat(text, repeats)
        if len(looped) < len(text):
            return looped
        if ended:
            break
        pending = [out[-1]]
    return text


def score(llm, prompt: str, continuation: str, states: PromptStates | None = None) -> float:
    """log P(continuation | prompt): the prompt's KV comes from the context (the generation
    prompt of a repair score is kept there) or a saved state, and only the continuation's rows
    get logits."""
    head = llm.tokenize(prompt.encode(), add_bos=True)
    full = llm.tokenize((prompt + continuation).encode(), add_bos=True)
    start = common_prefix(head, full)
    if start == 0 or start >= len(full):
        raise ValueError("cannot score an empty continuation")
    if len(full) > llm.n_ctx():
        raise ValueError(f"{len(full)} tokens do not fit the {llm.n_ctx()}-token context")
    prepare(llm, full, start - 1, states)
    # Then the prompt's last token and the continuation, the same way for every candidate.
    rows = _decode(llm, full[start - 1:-1], start - 1, logits_from=0,
                   reduce=lambda r: r.astype(np.float64))
    keep(llm, start - 1)
    top = rows.max(axis=1, keepdims=True)
    logprobs = rows - top - np.log(np.exp(rows - top).sum(axis=1, keepdims=True))
    return float(logprobs[np.arange(len(rows)), full[start:]].sum())


def _argmax(rows: np.ndarray) -> np.ndarray:
    return rows.argmax(axis=1)


def _decode(llm, batch: list[int], n_past: int, logits_from: int | None,
            reduce=_argmax) -> np.ndarray:
    """Evaluate `batch` after `n_past` tokens, in stretches ending at multiples of BLOCK
    positions; `reduce` of the logit rows of the positions from `logits_from` on (by default
    the argmax token of each; nothing when None)."""
    out = []
    lo = 0
    while lo < len(batch):
        hi = min(len(batch), (n_past + lo) // BLOCK * BLOCK + BLOCK - n_past)
        chunk = batch[lo:hi]
        wanted = [logits_from is not None and lo + i >= logits_from for i in range(len(chunk))]
        rows = llama_adapter.decode(llm, chunk, n_past + lo, wanted)
        llm.input_ids[n_past + lo:n_past + lo + len(chunk)] = chunk
        llm.n_tokens = n_past + lo + len(chunk)
        if len(rows):
            out.append(reduce(rows))
        lo = hi
    return np.concatenate(out) if out else np.zeros(0, dtype=np.int64)
