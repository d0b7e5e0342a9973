"""Numbers and quantities read from question text (kopl/quantities_in_text.py), and the BYOKG
search's cues that use them."""

from __future__ import annotations

import pytest

from koplc.kopl.quantities_in_text import numbers_in, quantities_in
from koplc.llm.byokg.ops import cues

# (text, [(value, unit), ...]): one example per way of writing a number.
SAID = [
    # digits with thousands separators
    ("Which countries have more than 100,000,000 inhabitants?", [("100000000", "")]),
    ("Name a lake of 2\u2009500 hectares.", [("2500", "hectares")]),
    ("Which files are over 1_048_576 bytes?", [("1048576", "bytes")]),
    ("Is the tower 1,234.5 feet tall?", [("1234.5", "feet")]),
    # words, scale words, "k"
    ("Which rivers are longer than fifty-five kilometres?", [("55", "kilometres")]),
    ("Which films grossed over ten million?", [("10000000", "")]),
    ("Which bridges were finished in two thousand and five?", [("2005", "")]),
    ("Which towns have 10 million residents?", [("10000000", "")]),
    ("Which books sold 2.5 billion copies?", [("2500000000", "")]),
    ("Which channels have over 1.5k subscribers?", [("1500", "")]),
    ("Which videos have 40k views?", [("40000", "")]),
    ("Which ships were launched in nineteen forty-two?", [("1942", "")]),
    ("Who weighs a hundred and twenty kilograms?", [("120", "kilograms")]),
    # a noun that is a number in WordNet, said with an article
    ("Does the plane seat more than a dozen people?", [("12", "")]),
    ("Which ships carry a gross of crates?", [("144", "")]),
    # decimals, percent, units
    ("Which metals are 0.5 percent of the crust?", [("0.5", "percent")]),
    ("Which parties won more than 12.75% of the vote?", [("12.75", "%")]),
    # a share said as a fraction in words, in percent; a fraction of an amount is no share
    ("Which parties won more than a third of the seats?", [("33.33", "%")]),
    ("Which isotopes make up over three-quarters of the element?", [("75", "%")]),
    ("Which towns lost half their people?", [("50", "%")]),
    ("Which firms are worth half a million?", [("500000", "")]),
    ("Which states cover 300 square miles?", [("300", "square miles")]),
    ("Which trains run at 250 kilometres per hour?", [("250", "kilometres per hour")]),
    ("Which fossils are older than 1,000,000 years?", [("1000000", "years")]),
    ("Which stars are hotter than 6000K?", [("6000", "K")]),
    ("Which poles are 2m high?", [("2", "m")]),
    ("Which trails are 12km long?", [("12", "km")]),
    ("Which firms are worth $3 million?", [("3000000", "$")]),
    ("Which cars cost over forty thousand dollars?", [("40000", "dollars")]),
    # signs
    ("Which gases boil below -40 degrees?", [("-40", "degrees")]),
    ("Which seas lie at minus 28 metres?", [("-28", "metres")]),
    ("Which liquids freeze at minus forty?", [("-40", "")]),
    # years stay as they are
    ("Which poets died in 1998?", [("1998", "")]),
    ("Which museums opened before 2005.", [("2005", "")]),
    ("Which bands formed between 1965 and 1970?", [("1965", ""), ("1970", "")]),
    # several numbers, in order
    ("Which pairs weigh 3 or four tonnes?", [("3", ""), ("4", "tonnes")]),
    # one unit said with an article, or half of one, after a comparison; no other article
    ("Does it weigh more than a kilo?", [("1", "kilo")]),
    ("Which trains take under half an hour?", [("0.5", "hour")]),
    ("How many hours a day does it sleep?", []),
    # a number inside a name is returned; the caller decides
    ("Who flew on Apollo 11?", [("11", "")]),
    ("What decays faster than carbon-14?", [("14", "")]),
]


@pytest.mark.parametrize(("text", "expected"), SAID, ids=[t for t, _ in SAID])
def test_numbers_as_people_write_them(text, expected):
    assert [(q.value, q.unit) for q in quantities_in(text)] == expected


NOT_NUMBERS = [
    "Which one is the tallest?",
    "Who is the one that sang it?",
    "Which one flows through the capital?",
    "Which one of them is bigger?",
    "Which is older, the first one?",
    "Who came 2nd in the race?",
    "Which king was the 21st of his line?",
    "What happened in the twenty-first century?",
    "Who was the one hundred and first mayor?",
    "Which aircraft is N10156?",
]


@pytest.mark.parametrize("text", NOT_NUMBERS)
def test_positions_and_pronouns_are_no_numbers(text):
    assert numbers_in(text) == ()


def test_one_counts_as_a_value_where_it_is_one():
    assert numbers_in("Which stars have more than one planet?") == ("1",)
    assert numbers_in("Which cells have at least one nucleus?") == ("1",)
    assert numbers_in("Which countries have one official language?") == ("1",)
    assert numbers_in("Which have one or more moons?") == ("1",)
    assert [(q.value, q.unit) for q in quantities_in("Which lasted under one second?")] == [
        ("1", "second")]
    assert numbers_in("Count the ones between one and five") == ("1", "5")


def test_spans_cover_the_words_that_say_the_number():
    text = "Which lakes are deeper than minus ten million metres or 1,500 feet?"
    spans = [text[q.start:q.end] for q in quantities_in(text)]
    assert spans == ["minus ten million", "1,500"]


def test_byokg_cues_read_numbers_written_with_separators_and_in_words():
    cue = cues("Which planets are more than 100,000,000 miles or ten million km away?")
    assert cue.numbers == ("100000000", "10000000")
    assert cue.units == ("miles", "km")
    assert cue.comparators == (">",)
    assert cues("Which one is heavier?").numbers == ()
