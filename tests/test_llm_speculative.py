"""Speculative greedy decoding on the embedded model: drafts and kept prompt states change the
speed, not the text (against llama.cpp's own greedy sampling, one token per pass)."""

from __future__ import annotations

import pytest

from koplc.llm.lm import speculative
from koplc.llm.lm.embedded import LlamaCppLM
from koplc.llm.lm.repeats import before_repeat
from koplc.llm.lm.speculative import PromptStates, draft, lookup, resync
from llama_reference import reference_score

STOP = ("\nQuestion:", "\n\n")
SHOTS = ("Question: who directed Heat\nEntities: Heat\nFind(Heat)\n"
         "Relate(directed_by, forward)\nQueryName()\n\n"
         "Question: which films did Tom Hanks act in\nEntities: Tom Hanks\nFind(Tom Hanks)\n"
         "Relate(starred_actors, backward)\nQueryName()\n\n")
QUESTIONS = (("who directed Blade Runner", "Blade Runner"),
             ("which films did Meg Ryan act in", "Meg Ryan"), ("what genre is Heat", "Heat"))


def prompt(question: tuple[str, str]) -> str:
    return f"{SHOTS}Question: {question[0]}\nEntities: {question[1]}\n"


def test_lookup_continues_the_latest_match_of_the_longest_suffix():
    history = [1, 2, 3, 9, 1, 2, 3, 4, 5, 6, 1, 2, 3]
    assert lookup(history, 2) == [4, 5]
    assert lookup([7, 8, 9], 3) == []
    assert lookup([5, 1, 5], 4) == [1, 5]


def test_draft_prefers_a_hint_that_the_output_begins():
    hints = ["abc", "defg"]

    def tokenize(text):
        return [ord(c) for c in text]

    assert draft([9, 4, 5], "de", hints, tokenize) == [ord("f"), ord("g")]
    assert draft([9, 1], "a", hints, tokenize) == [ord("b"), ord("c")]
    assert draft([8, 1, 9, 8], "x", hints, tokenize) == [1, 9, 8]  # no hint fits: lookup


def test_resync_picks_the_hint_up_after_a_mismatch():
    hint = "Find(Heat)\nRelate(directed_by, forward)\nRelate(directed_by, backward)\nCount()"
    # Another word in one slot: the hint goes on after the longest suffix it holds, at the
    # occurrence nearest to where the text ends.
    assert resync("Find(Heat)\nRelate(written_by, forward", [hint]) == \
        ")\nRelate(directed_by, backward)\nCount()"
    assert resync("Find(Heat)\nRelate(directed_by, forward)\nRelate(written_by, ",
                  [hint]) == "backward)\nCount()"
    assert resync("Find(Heat)\nCou", ["Count()", hint]) == "nt()"  # nearer end wins
    assert resync("Find(Heat)\nQ", [hint]) == ""  # fewer than MIN_RESYNC characters


def wipe_and_count_reads(lm, monkeypatch) -> list[int]:
    """Empty `lm`'s context (its kept states stay); the list then fills with the length of
    every batch llama.cpp is given."""
    speculative.empty(lm._model)
    return count_reads(monkeypatch)


def count_reads(monkeypatch) -> list[int]:
    """A list that fills with the length of every batch given to llama.cpp from now on."""
    read = []
    decode = speculative._decode
    monkeypatch.setattr(speculative, "_decode",
                        lambda llm, batch, *a, **k: read.append(len(batch)) or
                        decode(llm, batch, *a, **k))
    return read


@pytest.fixture(scope="module")
def models():
    return LlamaCppLM(speculative=False), LlamaCppLM()


@pytest.mark.model
def test_without_drafts_the_loop_is_llama_cpp_greedy(models, monkeypatch):
    # Same batches as llama.cpp's own loop from an empty context (the prompt in one, then a
    # token a pass): the bookkeeping of the speculative loop must give exactly its text.
    # (Other batchings move logits by up to about 1 on this CPU build, enough to flip a
    # near-tie, so both contexts start empty.)
    plain, fast = models
    monkeypatch.setattr(speculative, "draft", lambda *args, **kwargs: [])
    for question in QUESTIONS:
        p = prompt(question)
        for model in (fast._model, plain._model):
            speculative.empty(model)
        assert speculative.greedy(fast._model, p, STOP, 40) == \
            plain.generate(p, 1, 0.0, 1, STOP, max_tokens=40)[0]


@pytest.mark.model
def test_speculative_greedy_matches_llama_cpp_greedy(models):
    plain, fast = models
    for question in QUESTIONS:
        p = prompt(question)
        expected = plain.generate(p, 1, 0.0, 1, STOP, max_tokens=40)
        assert expected[0].startswith("Find(")
        hint = "Find(Blade Runner)\nRelate(directed_by, forward)\nQueryName()\n\n"
        assert fast.generate(p, 1, 0.0, 1, STOP, max_tokens=40, hints=[hint]) == expected
        assert fast.generate(p, 1, 0.0, 1, STOP, max_tokens=40) == expected
    # A wrong hint costs a rejected draft, not a different text.
    p = prompt(QUESTIONS[0])
    wrong = ["Count()\n\n", "Find(Blade Runner)\nRelate(has_genre, backward)\n"]
    assert fast.generate(p, 1, 0.0, 1, STOP, max_tokens=40, hints=wrong) == \
        plain.generate(p, 1, 0.0, 1, STOP, max_tokens=40)


@pytest.mark.model
def test_a_hint_with_one_wrong_word_still_drafts_the_rest(models, monkeypatch):
    plain, fast = models
    p = prompt(QUESTIONS[0])
    expected = plain.generate(p, 1, 0.0, 1, STOP, max_tokens=40)
    assert expected == ["Find(Blade Runner)\nRelate(directed_by, forward)\nQueryName()"]
    speculative.empty(fast._model)
    speculative.greedy(fast._model, p, STOP, 40)  # reads the prompt, kept in the context
    read = count_reads(monkeypatch)
    hint = "Find(Blade Runner)\nRelate(directed_by, backward)\nQueryName()\n\n"
    assert speculative.greedy(fast._model, p, STOP, 40, hints=[hint]) == expected[0]
    # The question's last token and the hint, rejected at "backward"; then the hint's rest
    # after it (")", "QueryName()", the blank line), accepted whole.
    assert len(read) == 2


@pytest.mark.model
def test_max_tokens_and_the_stretches_a_new_prompt_reads(models, monkeypatch):
    plain, fast = models
    speculative.empty(fast._model)
    p = prompt(QUESTIONS[1])
    assert fast.generate(p, 1, 0.0, 1, (), max_tokens=3) == \
        plain.generate(p, 1, 0.0, 1, (), max_tokens=3)
    # A new question after more shots: the context keeps the whole stretches it shares with
    # the last prompt and reads the rest, then the question's last token with the first draft.
    long = SHOTS * 3 + "Question: which films did Meg Ryan act in\nEntities: Meg Ryan\n"
    fast.generate(long, 1, 0.0, 1, STOP, max_tokens=3)
    read = count_reads(monkeypatch)
    new = SHOTS * 3 + "Question: who wrote Heat\nEntities: Heat\n"
    tokens = fast._model.tokenize(new.encode(), add_bos=True)
    fast.generate(new, 1, 0.0, 1, STOP, max_tokens=40)
    shared = speculative.common_prefix(tokens, fast._model.tokenize(long.encode(), add_bos=True))
    kept = shared // speculative.BLOCK * speculative.BLOCK
    assert kept and read[0] == len(tokens) - 1 - kept


def test_states_are_kept_on_disk_and_in_memory_where_no_file_can_be_written(monkeypatch):
    import tempfile

    states = PromptStates(capacity=25)
    states.put([1, 2, 3], b"first state")
    states.put([1, 2, 4], b"second one")
    assert states.states[(1, 2, 3)].file is not None  # a file, not the process's memory
    assert states.best([1, 2, 3, 5]) == (3, (1, 2, 3), b"first state")

    def refused(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(tempfile, "TemporaryFile", refused)
    states.put([7], b"in memory")  # past the capacity: the least recently used goes
    assert list(states.states) == [(1, 2, 3), (7,)]
    assert states.states[(7,)].file is None
    assert states.best([7, 8]) == (1, (7,), b"in memory")


@pytest.mark.model
def test_prompt_too_long_for_the_context_is_a_clear_error(models):
    from koplc.kopl.errors import KoplcError

    _, fast = models
    with pytest.raises(KoplcError, match="no room"):
        fast.generate("word " * 5000, 1, 0.0, 1, STOP, max_tokens=8)



@pytest.mark.model
def test_scores_read_only_the_continuation_after_a_kept_prompt(models, monkeypatch):
    _, fast = models
    speculative.empty(fast._model)
    p = prompt(QUESTIONS[0])
    fast.generate(p, 1, 0.0, 1, STOP, max_tokens=40)  # keeps the prompt in the context
    read = count_reads(monkeypatch)
    continuation = "Find(Blade Runner)\nRelate(directed_by, forward)\nQueryName()\n\n"
    right = fast.score(p, continuation)
    wrong = fast.score(p, "Find(Blade Runner)\nRelate(has_genre, forward)\nCount()\n\n")
    assert wrong < right < 0
    # The prompt's last token and the continuation but its last token, not the ~100 tokens
    # before them; the second continuation is read the same way on the same prompt KV.
    assert read == [len(fast._model.tokenize(continuation.encode(), add_bos=False)), read[1]]
    assert read[1] < 20
    assert right == pytest.approx(reference_score(fast.path, p, continuation), abs=0.5)


@pytest.mark.model
def test_scores_of_one_prompt_are_batched_alike_whatever_the_context_held(models):
    _, fast = models
    p, continuation = "The film Heat was directed by", " Michael Mann"
    speculative.empty(fast._model)
    first = fast._score(p, continuation)
    fast._score(p, " a banana")
    assert fast._score(p, continuation) == first


@pytest.mark.model
def test_a_prompt_reads_alike_whatever_was_read_before(models, tmp_path, monkeypatch):
    """A score and a completion of one prompt are the same, bit for bit, from an empty
    context, after another prompt that shares its first shots or all but its question, and
    from the kept state of its head (the prompt is about 800 tokens, past Gemma 3's
    512-token sliding window). Without this an answer depends on the questions asked before
    it: the cause of most endpoint-against-memory differences of the llm front end."""
    _, fast = models
    model = fast._model
    long = SHOTS * 12 + "Question: who directed Blade Runner\nEntities: Blade Runner\n"
    assert len(model.tokenize(long.encode())) > 700
    continuation = "Find(Blade Runner)\nRelate(directed_by, forward)\nQueryName()\n\n"
    speculative.empty(model)
    alone = (speculative.score(model, long, continuation),
             speculative.greedy(model, long, STOP, 30))
    monkeypatch.setenv("KOPLC_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(fast, "_states", PromptStates())
    monkeypatch.setattr(fast, "_kept_prefix", None)
    fast.keep_prefix(SHOTS * 12)
    [(key, _)] = fast._states.states.items()
    assert len(key) == 512  # the window's whole stretches
    for before in (SHOTS * 5 + "Question: what genre is Heat\n", SHOTS * 12 + "Question:",
                   "Question: what genre is Heat\n"):
        speculative.empty(model)
        speculative.greedy(model, before, STOP, 8, fast._states)
        assert (speculative.score(model, long, continuation, fast._states),
                speculative.greedy(model, long, STOP, 30, fast._states)) == alone
        speculative.empty(model)  # from the kept state of the head
        assert speculative.score(model, long, continuation, fast._states) == alone[0]
    assert fast.generate(long, 1, 0.0, 1, STOP, max_tokens=30) == [alone[1]]


@pytest.mark.model
def test_reading_speed_reads_the_whole_text_and_leaves_the_context_empty(models, monkeypatch):
    _, fast = models
    read = wipe_and_count_reads(fast, monkeypatch)
    text = "Question: who directed Heat\n" * 20
    speed = fast.reading_speed(text, repeats=2)
    assert read == [len(fast._model.tokenize(text.encode(), add_bos=True))] * 2
    assert speed > 0 and fast._model.n_tokens == 0


@pytest.mark.model
def test_a_kept_prefix_is_read_once_across_processes(tmp_path, monkeypatch):
    from koplc.llm.lm import kept_prefix

    monkeypatch.setenv("KOPLC_CACHE_DIR", str(tmp_path))
    prefix = SHOTS * 4
    first = LlamaCppLM()
    read = wipe_and_count_reads(first, monkeypatch)
    first.keep_prefix(prefix)
    n = len(first._model.tokenize(prefix.encode(), add_bos=True))
    head = n // speculative.BLOCK * speculative.BLOCK
    assert 0 < head < n and read == [head]
    [saved] = (tmp_path / "kv-states").iterdir()
    # A new process (here: a new model) loads the state instead of reading the head, and
    # reads only the rest of the prompt before its completion, the one read from nothing.
    p = prefix + "Question: which films did Meg Ryan act in\nEntities: Meg Ryan\n"
    speculative.empty(first._model)
    alone = speculative.greedy(first._model, p, STOP, 40)
    second = LlamaCppLM()
    read = wipe_and_count_reads(second, monkeypatch)
    second.keep_prefix(prefix)
    assert read == []
    assert second.generate(p, 1, 0.0, 1, STOP, max_tokens=40) == [alone]
    assert read[0] == len(second._model.tokenize(p.encode(), add_bos=True)) - 1 - head
    # A damaged file is read again and rewritten, never loaded.
    data = bytearray(saved.read_bytes())
    data[-1] ^= 0xFF
    saved.write_bytes(bytes(data))
    assert kept_prefix.read_state(saved) is None
    third = LlamaCppLM()
    read = wipe_and_count_reads(third, monkeypatch)
    third.keep_prefix(prefix)
    assert read == [head] and kept_prefix.read_state(saved) is not None


@pytest.mark.model
def test_a_looping_completion_ends_before_a_line_said_a_third_time(models):
    plain, fast = models
    p = "Find(Heat)\nRelate(directed_by, forward)\n" * 4
    whole = plain.generate(p, 1, 0.0, 1, (), max_tokens=40)[0]
    assert whole.count("Find(Heat)\n") >= 3  # the model goes on with the loop
    cut = before_repeat(whole, 3)
    assert cut == "Find(Heat)\nRelate(directed_by, forward)\n" * 2
    for model in models:
        assert model.generate(p, 1, 0.0, 1, (), max_tokens=40, repeats=3) == [cut]
    # Without `repeats` the loop runs on to max_tokens.
    assert fast.generate(p, 1, 0.0, 1, (), max_tokens=40) == [whole]
