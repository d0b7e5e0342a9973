"""WordNet relatives of a KB's schema words (koplc.kopl.relatives): what they are, that a KB's are
kept in the user cache, and that the BYOKG search reads a question's general-English words for
the schema's ("kid" for children, "better half" for spouse) on a people KB no dataset shaped."""

from __future__ import annotations

import pytest

from koplc import api
from koplc.kopl import relatives
from koplc.llm.byokg import reasoner
from koplc.llm.byokg.reasoner import ByokgFrontEnd

PEOPLE = """\
Ann Lee|spouse|Bob Lee
Bob Lee|spouse|Ann Lee
Ann Lee|children|Cal Lee
Bob Lee|children|Cal Lee
Dora Kim|children|Ann Lee
Cal Lee|spouse|Fay Lee
Fay Lee|spouse|Cal Lee
Ann Lee|place_of_birth|Springfield
Bob Lee|place_of_birth|Shelbyville
Cal Lee|place_of_birth|Ogdenville
Dora Kim|place_of_birth|North Haverbrook
Fay Lee|place_of_birth|Brockway
Ann Lee|employer|Acme
Bob Lee|employer|Globex
Cal Lee|employer|Initech
Dora Kim|employer|Umbrella
Fay Lee|employer|Vandelay
"""
# (question, its answer): each says a relation only by a WordNet relative of its name.
ASKED = [
    ("Who is Ann Lee's better half?", "Bob Lee"),
    ("Where was Ann Lee's kid born?", "Ogdenville"),
    ("Who is the mate of Ann Lee's kid?", "Fay Lee"),
    ("Who employs the youngster of Bob Lee?", "Initech"),
]


@pytest.fixture(scope="module")
def wordnet():
    return relatives._wordnet()


def test_a_schema_word_gets_the_lemmas_of_its_first_sense(wordnet):
    found = relatives.relatives_of(["children", "spouse", "place_of_birth", "stable"], wordnet)
    assert "kid" in found["children"]
    assert "better half" in found["spouse"]
    assert "birthplace" in found["birth"]  # the whole name's sense, on each of its words
    assert "horse barn" not in found.get("stable", ())  # an adjective before it is a barn


def test_a_run_of_a_names_words_that_wordnet_knows_lends_its_lemmas_to_its_modifiers(wordnet):
    found = relatives.relatives_of(["REM sleep per day", "total sleep per day"], wordnet)
    assert "paradoxical sleep" in found["rem"]  # "REM sleep", within the name
    assert "paradoxical sleep" not in found["sleep"]  # not to the head: total sleep is none


def test_a_kbs_relatives_are_read_from_wordnet_once_then_from_the_cache(tmp_path, user_cache,
                                                                        monkeypatch):
    (tmp_path / "kb.txt").write_text(PEOPLE, encoding="utf-8")
    kb = api.load_kb(tmp_path / "kb.txt")
    first = relatives.schema_relatives(kb)
    assert list((user_cache / "relatives").glob("*.json"))
    monkeypatch.setattr(relatives, "_wordnet", lambda: pytest.fail("WordNet read again"))
    assert relatives.schema_relatives(kb) == first


def test_a_fragments_relatives_are_kept_in_memory_only(tmp_path, user_cache):
    (tmp_path / "kb.txt").write_text(PEOPLE, encoding="utf-8")
    kb = api.load_kb(tmp_path / "kb.txt")
    kb.whole = object()  # a fragment of a larger KB, as endpoint mode fetches one a question
    assert "kid" in relatives.schema_relatives(kb)["children"]
    assert not (user_cache / "relatives").exists()


@pytest.mark.model
def test_the_search_reads_relatives_of_the_schemas_words(tmp_path, user_cache, monkeypatch):
    (tmp_path / "kb.txt").write_text(PEOPLE, encoding="utf-8")
    kb = api.load_kb(tmp_path / "kb.txt")

    def answers():
        frontend = ByokgFrontEnd(None)
        return [(frontend.compile(q, kb).answers or ("",))[0] for q, _ in ASKED]

    assert answers() == [a for _, a in ASKED]
    monkeypatch.setattr(reasoner, "schema_relatives", lambda kb: {})
    without = answers()
    assert sum(got == a for got, (_, a) in zip(without, ASKED, strict=True)) < len(ASKED) / 2


@pytest.mark.parametrize(("noun", "asked", "least", "most"), [
    ("manufacturers", "person", 0.9, 1.0),  # a business: a social group
    ("aircraft", "person", 0.0, 0.0),
    ("species", "person", 0.0, 0.1),  # a taxonomic group, not a social one
    ("planets", "place", 0.9, 1.0),  # a natural object
    ("cities", "place", 0.9, 1.0),
    ("year of discovery", "year date", 0.9, 1.0),  # read before "of": a year
])
def test_a_nouns_share_of_the_kind_a_wh_word_asks_for(noun, asked, least, most):
    from koplc.kopl.lexicon import WH_KINDS

    share = relatives.kind_share(noun, WH_KINDS[asked])
    assert share is not None and least <= share <= most


def test_a_noun_wordnet_lacks_has_no_share():
    from koplc.kopl.lexicon import WH_KINDS

    assert relatives.kind_share("nuclide", WH_KINDS["person"]) is None
