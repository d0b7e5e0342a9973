"""The OpenAI-compatible client against the real llama.cpp server (started here, stopped by
its PID), compared with the embedded client on the same GGUF."""

from __future__ import annotations

import pytest

from koplc import cli
from koplc.kopl.errors import KoplcError
from koplc.llm.lm.embedded import LlamaCppLM
from koplc.llm.lm.openai_lm import OpenAICompatibleLM
from koplc.llm.lm.server import free_port, local_server
from llama_reference import reference_score

pytestmark = pytest.mark.model

PROMPT = ("Question: who directed Blade Runner\nEntities: Blade Runner\n"
          "Step 1: Find(Blade Runner)\nStep 2: Relate(directed_by, forward)\n"
          "Step 3: QueryName()\nDone\n\nQuestion: who directed Heat\nEntities: Heat\n")


@pytest.fixture(scope="module")
def server():
    with local_server(threads=2, n_ctx=2048) as url:
        yield url


@pytest.fixture(scope="module")
def embedded():
    return LlamaCppLM()


@pytest.mark.server
def test_greedy_completion_matches_the_embedded_model(server, embedded):
    served = OpenAICompatibleLM(server, timeout=120)
    stop = ["\nQuestion:", "\n\n"]
    got = served.generate(PROMPT, 1, 0.0, 1, stop, max_tokens=48)
    assert got == embedded.generate(PROMPT, 1, 0.0, 1, stop, max_tokens=48)
    assert got[0].startswith("Step 1: Find(Heat)")


@pytest.mark.server
def test_a_looping_completion_is_cut_as_the_embedded_model_cuts_it(server, embedded):
    served = OpenAICompatibleLM(server, timeout=120)
    loop = "Find(Heat)\nRelate(directed_by, forward)\n" * 4
    got = served.generate(loop, 1, 0.0, 1, (), max_tokens=40, repeats=3)
    assert got == ["Find(Heat)\nRelate(directed_by, forward)\n" * 2]
    assert got == embedded.generate(loop, 1, 0.0, 1, (), max_tokens=40, repeats=3)


@pytest.mark.server
def test_scores_match_the_embedded_model(server, embedded):
    served = OpenAICompatibleLM(server, timeout=120)
    right = served.score("The film Heat was directed by", " Michael Mann")
    wrong = served.score("The film Heat was directed by", " a banana")
    assert right < 0 and wrong < right
    # The server reads a fresh prompt in one batch, as the reference does; the embedded client
    # batches the prompt and the continuation apart (llama_reference.py: that moves it a little).
    assert right == pytest.approx(reference_score(embedded.path, "The film Heat was directed by",
                                                  " Michael Mann"), abs=0.05)
    assert right == pytest.approx(embedded.score("The film Heat was directed by",
                                                 " Michael Mann"), abs=0.6)


@pytest.mark.server
def test_grammar_reaches_the_server(server):
    served = OpenAICompatibleLM(server, timeout=120)
    out = served.generate(PROMPT, 1, 0.0, 1, (), grammar='root ::= "Step 1: " [A-Z]+ "\\n"',
                          max_tokens=12)
    assert out[0].startswith("Step 1: ") and out[0][8:].strip().isupper()


def test_unreachable_server_is_a_clear_error(tmp_path, capsys):
    dead = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(KoplcError, match="cannot reach the LM server"):
        OpenAICompatibleLM(dead, timeout=2, retries=1).generate("hi")
    question = tmp_path / "q.txt"
    question.write_text("who directed Blade Runner\n")
    # --no-reuse: a pool question phrased the same way would answer with no LM call.
    assert cli.main(["compile", str(question), "--lm", dead, "--no-reuse"]) == cli.EXIT_USER_ERROR
    assert "cannot reach the LM server" in capsys.readouterr().err
