"""The failure classes of real KBs, each shown on a development KB's tune-half question with the
BYOKG search (MiniLM, no LM): numbers with separators and in words, a number with its own
unit, each qualifier op, two constraints, a middle hop named by its role, a relation named by a
urn: IRI, raw identifiers, a name written in the plural or shortened, and a concept named by
another word ("planes" for aircraft), the earliest or latest by a year, a concept named in
pieces ("isotopes ... radioactive") and a superlative over a named group."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from koplc import api
from koplc.llm.byokg.reasoner import ByokgFrontEnd

pytestmark = pytest.mark.model
DEVKBS = Path(__file__).resolve().parent / "fixtures" / "devkbs"
KBS = {"starwars": ("kb.nt", None), "isotopes": ("kb.json", None),
       "flights": ("kb.txt", "schema.json"), "bakeoff": ("kb.json", None),
       "mammals": ("kb.ttl", None), "cars": ("kb.nt", None)}

# (KB, a tune-half question, an op the program must use)
CASES = [
    # an age said with "older": more of it, where of a date it would be earlier
    ("bakeoff", "Which bakers were older than 65?", "FilterNum"),
    ("bakeoff", "Who is older, Edd Kimber or John Whaite?", "SelectBetween"),
    # "the first series" names Series 1, and its "first" is no earliest-time cue
    ("bakeoff", "When did the first series premiere?", "QueryAttr"),
    # a number qualifying an attribute fact: its value under that qualifier
    ("bakeoff", "What was Candice Brown's technical challenge rank in episode 10?",
     "QueryAttrUnderCondition"),
    # the 5 of "series 5" is part of a name, not a value the question states
    ("bakeoff", "Which bakers won series shown on the channel that aired series 5?", "Relate"),
    ("isotopes", "Is carbon-14's half-life more than 5,000 years?", "VerifyNum"),
    ("isotopes", "Does cobalt-60 take longer than 1,000 days to lose half its activity?",
     "VerifyNum"),
    ("isotopes", "Which isotopes of iron have a mass number above fifty-five?", "FilterNum"),
    ("isotopes", "Which isotope of potassium has the longest half-life?", "SelectAmong"),
    # the decay mode stated as the qualifier's value is the linked entity of that name: no
    # entity is left out, so the plain branching ratio no longer reads closer
    ("isotopes", "What is potassium-40's branching ratio for beta-minus decay?",
     "QueryAttrUnderCondition"),
    ("isotopes", "What's the uncertainty on carbon-14's half-life?", "QueryAttrQualifier"),
    ("isotopes", "What fraction of potassium-40 decays are beta-plus decays?",
     "QueryRelationQualifier"),
    ("starwars", "how many humans were born on tatooine?", "And"),
    ("flights", "Where does the airline that runs N905FJ fly to?", "Relate"),
    ("starwars", "How is Luke Skywalker related to Tatooine?", "QueryRelation"),
    # the engines value the question names, not a count of engine types
    ("flights", "How many engines does N854NW have?", "QueryAttr"),
    # "how many years" asks a value of a key named with the unit (stored with none), not a count
    ("starwars", "How many years before the Battle of Yavin was Darth Vader born?", "QueryAttr"),
    # "turbo-jet" in lower case links the entity Turbo-jet: a hyphenated compound is a name
    ("flights", "Which Alaska Airlines planes have turbo-jet engines?", "And"),
    # below the refusal threshold, but the program joins both entities the question names
    ("starwars", "Which humans are from Tatooine?", "And"),
    ("flights", "Which is older, N722TW or N785SW?", "ArgMin"),
    # a qualifier's value only where the question says the qualifier ("uncertain")
    ("isotopes", "How uncertain is the natural abundance of lithium-6?", "QueryAttrQualifier"),
    ("isotopes", "How much does one atom of iron-56 weigh, in daltons?", "QueryAttr"),
    # the humans, not their heights: no query of the attribute just filtered by
    ("starwars", "Which humans are taller than 190 centimetres?", "FilterNum"),
    ("starwars", "What is the homeworld of Luke_Skywalker?", "Relate"),
    ("flights", "Which airports does Delta_Air_Lines_Inc. depart from?", "Relate"),
    ("starwars", "Which planets are Zabraks from?", "Relate"),
    ("flights", "How many aircraft does Delta operate?", "Count"),
    ("flights", "Which planes have more than 400 seats?", "FilterConcept"),
    ("starwars", "How many worlds does the database know about?", "FilterConcept"),
    ("flights", "Which was built more recently, N8329B or N14228?", "ArgMax"),
    ("flights", "What is the oldest plane Delta operates?", "ArgMin"),
    ("isotopes", "How many of beryllium's isotopes are radioactive?", "FilterConcept"),
    ("starwars", "Which droid is the tallest?", "SelectAmong"),
    # the makers counted once each, not once a plane (the engine's Relate keeps one a fact)
    ("flights", "How many different manufacturers built Delta's planes?", "FilterConcept"),
    # "who" asks for a person or a company (WordNet: manufacturers are), not the planes
    ("flights", "Who built the planes that ExpressJet flies?", "Relate"),
    # "where" asks for a place (WordNet: a planet is a natural object), not the characters
    ("starwars", "Where are the Gungans from?", "Relate"),
    ("starwars", "Where do the members of Chewbacca's species come from?", "Relate"),
    # a yes/no question over relations: does the set met with the other entity hold any
    ("starwars", "Is Han Solo from Tatooine?", "Exists"),
    ("flights", "Does Hawaiian fly to Honolulu?", "Exists"),
    # not the plane's model (never a manufacturer in the KB): the plane's maker
    ("flights", "Is N14228 a Boeing?", "Exists"),
    # a yes/no comparison asks of the entity named first: is it the heavier of the two
    ("starwars", "Is Luke Skywalker heavier than Darth Vader?", "ArgMax"),
    # an alternative question is no yes/no question: one of its options answers it
    ("isotopes", "Is the spin state of oxygen-17 of positive or negative parity?",
     "QueryAttrQualifier"),
    # two constraints joined, then an attribute the question says
    ("flights", "When were United's 777-222s built?", "And"),
    # a number the question states ("week five") that a program leaves out costs it fit
    ("bakeoff", "Who was named star baker in week five of series 9?", "QFilterNum"),
    # "more than" right before the number compares it, whatever "before" says after it
    ("starwars", "Which characters were born more than five hundred years before the Battle "
     "of Yavin?", "FilterNum"),
    # "not sure" (a series' viewers, one value an episode) gives way to a key that decides
    ("bakeoff", "Did series 9 have fewer than 9,500,000 viewers on average?", "VerifyNum"),
    # a name written with an inner word left out, two KB names so written: the one with a fact
    # about the other entity the question names (beryllium-11 decays by beta-minus ones)
    ("isotopes", "What share of beryllium-11's decays go through beta-delayed alpha emission?",
     "QueryRelationQualifier"),
    # a noun of a kind (WordNet: a person) that only one concept is of means that concept
    # ("contestants": the bakers); no filter that keeps every one stands for "under 20"
    ("bakeoff", "Which contestants were under 20?", "FilterNum"),
    # no way from all bakers back among bakers ("star baker in" a series some baker competed in)
    ("bakeoff", "How many bakers have been on the show altogether?", "Count"),
    # "youngest" read at its base too (young: a WordNet relative of age), and no superlative
    # that most bakers share (no star baker award) stands for it
    ("bakeoff", "Who was the youngest contestant ever?", "SelectAmong"),
    # a short name in lower case after an article links ("the cow"); "a kilo" after a
    # comparison is one kilogram
    ("mammals", "Does the cow sleep less than five hours a day?", "VerifyNum"),
    ("mammals", "Does the human brain weigh more than a kilo?", "VerifyNum"),
    ("mammals", "Does the owl monkey weigh less than half a kilo?", "VerifyNum"),
    # a word a value's name is made from names it ("insects": insectivore; "domestic":
    # domesticated)
    ("mammals", "Which animals live on insects?", "Relate"),
    ("mammals", "Which domestic animals are heavier than 500 kg?", "FilterNum"),
    # "relate" asks how two things are related, as "related" does
    ("mammals", "How does Homo relate to Primates?", "QueryRelation"),
    # a possessive chain asks for the last thing owned (up the hierarchy: "the orders of Dog")
    ("mammals", "the dog's genus's order?", "Relate"),
    # "how many orders of mammals" counts orders: the noun after "how many", as the answer
    # type of a name question, not the other concept the question says
    ("mammals", "How many orders of mammals are represented?", "Count"),
    # "how many hours" counts the unit of a key in hours: its value, not a count
    ("mammals", "How many hours a day is a giraffe up and about?", "QueryAttr"),
    # "the most expensive car" asks for one car: not the eight tied on the most cylinders; and
    # the noun after the superlative is what "what's" asks for
    ("cars", "What's the most expensive car in the list?", "SelectAmong"),
    # "the Integra": the one name to end with the word
    ("cars", "Who makes the Integra?", "Relate"),
    # "cars" is a sense of the nearest concept it means (car model), not of every concept near
    # it: the makers of those cars are no answer
    ("cars", "Which cars have engines over five litres?", "FilterNum"),
    # money a KB keeps as bare numbers in thousands: "$10,000" is 10 of its prices
    ("cars", "Which cars cost under $10,000?", "FilterNum"),
    # "what's the gas mileage" asks for the gas mileage, as "what is" would
    ("cars", "What's the gas mileage of the Honda Civic around town?", "QueryAttr"),
    # a comparative no table knows ("cheaper"): both directions tried, the one MiniLM reads
    # it as for the key kept (cheaper: nearer "lowest price" than "highest price")
    ("cars", "Which is cheaper, the Honda Accord or the Toyota Camry?", "SelectBetween"),
    # no entity or concept named: everything the number with its comparative keeps, by a key
    # of weights (not by every key whose values all pass: lengths are all under 2000)
    ("cars", "What weighs less than two thousand pounds?", "FilterNum"),
    # a kind named by an entity: "the lightest rodent" is one of what the taxon Rodentia holds,
    # down to its last level (species, not genera), read as "the mammals in Rodentia"
    ("mammals", "What is the lightest rodent?", "SelectAmong"),
    ("mammals", "how many rodents does the data set include", "Count"),
    ("cars", "Which sports car is the cheapest?", "SelectAmong"),
    # "kinds" asks for what WordNet puts right under kind: species (and "different" is no
    # noun counted)
    ("starwars", "How many different kinds of being come from Naboo?", "Count"),
    ("starwars", "Which kinds of being share a home world with Lama Su?", "Relate"),
    # fourth tune set (written 2026-12-01): a request in the imperative asks for the noun
    # after its verb, or what its question word asks ("Tell me where": a place)
    ("bakeoff", "Name the season that ran for only eight episodes.", "FilterNum"),
    ("flights", "List the planes that came off the line in 1979.", "FilterYear"),
    ("starwars", "Tell me where Bossk was born.", "Relate"),
    ("flights", "Name the models that make up SkyWest's fleet.", "Relate"),
    # a fraction after a number in words, and the scale after it
    ("bakeoff", "Did series 10 draw an average audience above nine and a half million?",
     "VerifyNum"),
    # a share said as a fraction in words is a percentage
    ("isotopes", "Which nickel isotopes make up more than a quarter of natural nickel?",
     "FilterNum"),
    # a verb WordNet defines as a comparative ("predate": be earlier) compares
    ("flights", "Does N905FJ predate 1990?", "VerifyYear"),
    # a decade in words, or of an age, is one step of two filters
    ("bakeoff", "How many of the bakers were in their sixties?", "Count"),
    ("flights", "How many planes in the data date from the nineteen-seventies?", "Count"),
    # "more" compares; the "under" of "under the hood" places
    ("cars", "Toyota Celica or Honda Prelude: which has more horses under the hood?",
     "SelectBetween"),
    # "the X of ENT's Y" is a chain of two things, and a species is a kind (WordNet)
    ("starwars", "What are the home worlds of BB8's kind?", "Relate"),
    # "which ones" asks for things by name; a yes/no question of a true-or-false key asks
    # whether it is true
    ("cars", "Which ones hold less than ten and a half gallons of gas?", "FilterNum"),
    ("cars", "Is the Nissan Quest offered with a manual gearbox?", "VerifyStr"),
    # a property asked of an entity holds no other entity ("How many ENT jets does ENT have")
    ("flights", "How many Bombardier jets does Endeavor have?", "And"),
    # the two named with "or" between them are the pair compared, not the third name
    ("isotopes", "Mg-25 or Mg-26: which makes up more of natural magnesium?", "SelectBetween"),
]
# Known failures: a qualifier op the search builds but does not rank first.
KNOWN = [
    ("isotopes", "Which spin-5/2 isotopes of magnesium have positive parity?", "QFilterStr",
     "the program without the parity qualifier reads closer: QFilterStr is built, not chosen"),
]


def _gold(kb: str, question: str) -> dict:
    for line in [line for name in ("questions", "more_questions", "absent_questions",
                                   "fourth_questions")
                 for line in (DEVKBS / kb / f"{name}.jsonl").read_text(encoding="utf-8")
                 .splitlines()]:
        record = json.loads(line)
        if record["question"] == question:
            assert record["half"] == "tune", "tests take tune-half questions only"
            return record
    raise AssertionError(f"not a question of {kb}: {question}")


def _answered_right(frontend, kbs, kb: str, question: str):
    """The question compiled on `kb`, once its answer set is checked against the gold one."""
    compiled = frontend.compile(question, kbs[kb])
    assert sorted(set(compiled.answers)) == _gold(kb, question)["answers"]
    return compiled


@pytest.fixture(scope="module")
def frontend():
    return ByokgFrontEnd(None)


@pytest.fixture(scope="module")
def kbs():
    return {name: api.load_kb(DEVKBS / name / kb, schema=str(DEVKBS / name / schema)
                              if schema else None)
            for name, (kb, schema) in KBS.items()}


@pytest.mark.parametrize(("kb", "question", "op"), [
    *CASES, *(pytest.param(kb, q, op, marks=pytest.mark.xfail(strict=True, reason=why))
              for kb, q, op, why in KNOWN)])
def test_the_search_answers_with_the_shape_the_question_needs(frontend, kbs, kb, question, op):
    gold = _gold(kb, question)
    compiled = frontend.compile(question, kbs[kb])
    assert set(compiled.answers) == set(gold["answers"]), compiled.error
    assert op in {node.op for _, node in compiled.final.walk()}


@pytest.mark.parametrize(("kb", "question"), [
    ("flights", "Who manufactured N999ZZ?"),  # "who" is near no concept of the KB
    ("starwars", "What is the home planet of Jar Jar Abrams?"),  # not Jar Jar Binks
    ("bakeoff", "Who won series 11?"),  # the KB numbers its series 1 to 10
    # a proper name going on past a name the KB has: the KB names Toyota, not its Corolla
    ("cars", "What gas mileage does the Toyota Corolla get?"),
])
def test_a_question_about_what_the_kb_lacks_links_nothing(frontend, kbs, kb, question):
    from koplc.kopl.answering.linking import link_question, links

    assert _gold(kb, question)["answers"] == []
    assert not links(link_question(question, kbs[kb]))
    compiled = frontend.compile(question, kbs[kb])
    assert compiled.failure == "link" and not compiled.answers


@pytest.mark.parametrize(("kb", "question", "entity"), [
    ("starwars", "Which humans are from Tatooine?", "Human"),
    ("starwars", "On which worlds were the droids made?", "Droid"),
])
def test_a_kind_written_in_the_plural_and_in_lower_case_links_its_entity(kbs, kb, question,
                                                                          entity):
    from koplc.kopl.answering.linking import link_question

    _gold(kb, question)
    assert entity in link_question(question, kbs[kb]).entities


def test_a_proper_adjective_links_the_place_it_is_of(kbs):
    from koplc.kopl.answering.linking import link_question

    # WordNet: "American" is of the United States, one of whose names the KB uses ("USA");
    # the KB names no Germany, and "american" in lower case is left alone
    _gold("cars", "Is the Volvo 240 an American or a foreign car?")
    assert link_question("Is the Volvo 240 an American or a foreign car?",
                         kbs["cars"]).entities == ("Volvo_240", "USA")
    assert link_question("Which German cars are there?", kbs["cars"]).entities == ()
    assert "USA" not in link_question("which american cars are there", kbs["cars"]).entities


def test_a_noun_links_the_group_or_class_wordnet_puts_it_in(kbs, frontend):
    from koplc.kopl.answering.linking import link_question

    # WordNet: a minivan is a passenger van, a van; a bat is of the order Chiroptera
    _gold("cars", "Which minivan is the heaviest?")
    compiled = frontend.compile("Which minivan is the heaviest?", kbs["cars"])
    assert compiled.top(None) in _gold("cars", "Which minivan is the heaviest?")["answers"]
    assert link_question("How many bats are in the data?", kbs["mammals"]).entities == (
        "Chiroptera",)
    # a question that names its entity keeps it alone: "the Panthera cats" are not all
    # carnivores (a cat is a feline, a carnivore)
    assert link_question("How endangered are the Panthera cats?",
                         kbs["mammals"]).entities == ("Panthera",)
    # a bare singular is a mass noun, a substance: tritium is a hydrogen, not its class
    assert link_question("Which element is tritium an isotope of?",
                         kbs["isotopes"]).entities == ()
    # WordNet's first sense of a whale is a large person; its second, a cetacean, is of the
    # order Cetacea, which the KB names (a later sense counts by its named groups only: the
    # world as the populace, of the human race, does not link the species Human)
    question = "What's the biggest of the whales and dolphins by weight?"
    _gold("mammals", question)
    assert link_question(question, kbs["mammals"]).entities == ("Cetacea",)
    _answered_right(frontend, kbs, "mammals", question)
    assert link_question("How many worlds does the database know about?",
                         kbs["starwars"]).entities == ()


def test_who_means_the_kbs_one_concept_of_people_after_an_opening_phrase_too(kbs, frontend):
    from koplc.kopl.answering.linking import link_question

    # the bakers are the KB's only people (WordNet); the phrase before the comma narrows
    question = "Among all the runners-up, who won the most technicals?"
    _gold("bakeoff", question)
    assert link_question(question, kbs["bakeoff"]).concepts == ("baker",)
    _answered_right(frontend, kbs, "bakeoff", question)
    # a KB of two concepts of people, or of none, says nothing of "who" on its own
    assert link_question("Who won the most?", kbs["flights"]).concepts == ()


def test_an_entity_links_by_another_name_wordnet_gives_what_it_means(kbs):
    from koplc.kopl.answering.linking import link_question

    # WordNet: a domestic cat is a house cat (its first sense, and the house cat's first too)
    question = "Who naps more, a house cat or a dog?"
    _gold("mammals", question)
    assert link_question(question, kbs["mammals"]).entities == ("Domestic cat", "Dog")
    # a word with a number after it, by its word's other spelling: aluminium-26, sulphur-27
    question = "Is the half-life of aluminium-26 longer than a million years?"
    _gold("isotopes", question)
    assert link_question(question, kbs["isotopes"]).entities == ("aluminum-26",)
    assert "sulfur-27" in link_question("How often does sulphur-27 kick out a proton after "
                                        "its beta-plus decay?", kbs["isotopes"]).entities


@pytest.mark.parametrize(("question", "values"), [
    # "no airbags" reads as the airbag value None read with its relation ("standard airbags
    # None"), nearer than any other value and than any concept
    ("How many cars come with no airbags at all?", ("None",)),
    # a word of the schema alone names its relation, not a value of it
    ("Which cars have airbags?", ()),
    # "how big" asks how much; "smaller" compares: neither names a size class
    ("How big is the engine in the Buick Roadmaster?", ("Buick_Roadmaster",)),
    ("Which has the smaller engine, the BMW 535i or the Lexus ES300?",
     ("BMW_535i", "Lexus_ES300")),
])
def test_a_value_named_in_other_words_links_it(kbs, question, values):
    from koplc.kopl.answering.linking import link_question

    assert link_question(question, kbs["cars"]).entities == values


def test_a_yes_no_question_about_a_fact_the_kb_lacks_is_not_answered_no(kbs):
    from koplc.kopl.ir import Find, Relate
    from koplc.llm.byokg.ops import cues, meetings

    # the KB gives the owl monkey no conservation status: whether it is near threatened is
    # not something the KB can say no to; of the cow, which has one, it can
    kb = kbs["mammals"]
    threatened = Relate(input=Find(name="near threatened"),
                        relation="IUCN conservation status", direction="backward")
    asked = cues("Is the owl monkey near threatened?")
    assert list(meetings(threatened, kb, ("Owl monkey",), asked)) == []
    assert len(list(meetings(threatened, kb, ("Cow",), asked))) == 1


def test_a_plural_that_is_a_word_of_the_schema_links_no_entity(kbs):
    from koplc.kopl.answering.linking import link_question

    # "characters" is the starwars concept's word: the concept, never an entity so named
    assert link_question("Which characters are from Tatooine?", kbs["starwars"]).entities == (
        "Tatooine",)


def test_a_question_asking_who_is_not_answered_with_a_time_or_an_amount(frontend, kbs):
    # "built" reads close to "year built": without the rule the search answers a year
    from koplc.llm.byokg.ops import _time_or_amount

    question = "Who built the planes that ExpressJet flies?"
    _gold("flights", question)
    compiled = frontend.compile(question, kbs["flights"])
    assert compiled.final is not None
    assert not _time_or_amount(compiled.final, kbs["flights"])


def test_who_is_not_answered_with_a_relation_facts_year_either(kbs):
    # the year a nuclide was found is a qualifier of its fact "isotope of" its element: "who
    # discovered it" asks for someone, as of an attribute's year
    from koplc.kopl.ir import Find, QueryRelationQualifier, Relate
    from koplc.llm.byokg.ops import _time_or_amount

    found = Find(name="carbon-14")
    year = QueryRelationQualifier(left=found, right=Relate(input=found, relation="isotope of",
                                                           direction="forward"),
                                  relation="isotope of", qkey="year of discovery")
    assert _time_or_amount(year, kbs["isotopes"])


def test_how_much_is_answered_with_an_amount_not_names(frontend, kbs):
    # the KB holds no prize money: without the rule the search answered the series he won;
    # an amount is the answer's kind (here the viewers of that series: still wrong, a value)
    question = "How much prize money did John Whaite win?"
    assert _gold("bakeoff", question)["answers"] == []
    compiled = frontend.compile(question, kbs["bakeoff"])
    assert compiled.final is None or compiled.final.op != "QueryName"


def test_where_something_is_is_not_answered_with_an_amount(frontend, kbs):
    # the KB holds no headquarters: without the rule the search answers its cars' mileage
    # (since the refusal's threshold fell to 1.0 it answers the cars' origin group instead)
    from koplc.llm.byokg.ops import _time_or_amount

    question = "Where is Honda headquartered?"
    assert _gold("cars", question)["answers"] == []
    compiled = frontend.compile(question, kbs["cars"])
    assert compiled.final is None or not _time_or_amount(compiled.final, kbs["cars"])


def test_no_query_of_an_attribute_filtered_by_anywhere_below(kbs):
    from koplc.kopl.ir import FilterConcept, FilterNum, FindAll, QueryAttr
    from koplc.llm.byokg.space import fits

    planes = FilterConcept(input=FindAll(), concept="aircraft")
    four = FilterNum(input=planes, key="engines", value="4", comparator="=")
    question = "How many planes have four engines?"
    assert not fits(QueryAttr(input=FilterConcept(input=four, concept="aircraft"),
                              key="engines"), True, kbs["flights"], question)
    assert fits(QueryAttr(input=planes, key="engines"), True, kbs["flights"], question)


@pytest.mark.parametrize(("kb", "question", "asked"), [
    ("isotopes", "What is the melting point of iron-56?", "melting point"),
    ("flights", "What colour is N10156?", "colour"),
    ("starwars", "Who is Rey's father?", "father"),
    ("bakeoff", "Who judged the first series?", "judged"),  # a verb the KB has nothing like
    # a property of up to four words, hyphens kept, on or of its entity, or counted as had
    ("isotopes", "What is the neutron capture cross-section of boron-10?",
     "neutron capture cross-section"),
    ("mammals", "How many teeth does a dog have?", "teeth"),
    # the entity's own concept is nothing asked of it: "weapon" reads near "character" (0.48)
    ("starwars", "What weapon does Boba Fett carry?", "weapon"),
    ("mammals", "What predators hunt the chinchilla?", "predators"),
    # a degree adjective is no property: "colour" reads near "light" (of weight, 0.58)
    ("cars", "What colour is the Honda Civic?", "colour"),
    # naming no entity, "which X are P" asks P of the concept's members
    ("bakeoff", "Which bakers are married?", "married"),
    # "how <adjective> is ENT" asks the adjective, and what WordNet says it is a degree of
    ("isotopes", "How dense is neon-20?", "dense"),
    # "how much X does ENT ...": X (before this shape was read, the nearest program's answer,
    # a date, was refused as no energy: kopl/answering/asked_quantity.py)
    ("isotopes", "How much energy does cobalt-60 release when it decays?", "energy"),
])
def test_a_property_the_kb_names_nothing_like_finds_nothing(frontend, kbs, kb, question, asked):
    # without the rule the search answered the nearest property it has (a spin, a model, a
    # gender)
    assert _gold(kb, question)["answers"] == []
    compiled = frontend.compile(question, kbs[kb])
    assert compiled.failure == "unfit" and not compiled.answers
    assert compiled.error == f"nothing found: the KB names nothing like {asked!r}"


@pytest.mark.parametrize(("kb", "question", "name"), [
    ("starwars", "What species is Grogu?", "Grogu"),  # a capitalised word WordNet lacks
    ("flights", "Which airline flies N999AA?", "N999AA"),  # written as the KB's tail numbers
])
def test_a_name_or_identifier_no_entity_has_finds_nothing(frontend, kbs, kb, question, name):
    # without the rule the search answered every species, every airline's destinations
    assert _gold(kb, question)["answers"] == []
    compiled = frontend.compile(question, kbs[kb])
    assert compiled.failure == "link" and not compiled.answers
    assert compiled.error == f"nothing found: the KB has no entity named {name!r}"


@pytest.mark.parametrize(("kb", "question"), [
    ("starwars", "Boba_Fett's weight?"),  # mass, by meaning
    ("starwars", "What's the skin tone of Darth Maul?"),
    ("flights", "What engine types are used in Envoy Air's fleet?"),  # the nearest held: 0.50
    ("cars", "How heavy is the Geo Metro?"),  # heavy: weight
    ("cars", "How much gas does the Ford Aerostar hold?"),  # "how much X does ENT ..."
])
def test_a_property_the_kb_holds_under_another_name_is_asked(kbs, kb, question):
    from koplc.kopl.answering.linking import link_question
    from koplc.kopl.answering.unheld import asked_property, unheld

    _gold(kb, question)
    masked = link_question(question, kbs[kb]).masked()
    assert asked_property(masked) is not None
    assert unheld(kbs[kb], masked) is None


def test_another_front_ends_program_keeps_the_questions_form_or_gives_way(kbs):
    """The llm front end's check: a question that says a qualifier's name asks for the
    qualifier, so the plain attribute gives way to the search's qualifier program."""
    from koplc.kopl.answering.linking import link_question
    from koplc.kopl.ir import Find, QueryAttr, QueryAttrQualifier
    from koplc.llm.byokg.reasoner import ByokgOptions, Reasoner

    question = "How uncertain is the natural abundance of lithium-6?"
    assert _gold("isotopes", question)
    kb = kbs["isotopes"]
    reasoner = Reasoner(kb, None, [], ByokgOptions())
    asked = reasoner.asked(link_question(question, kb))
    plain = QueryAttr(input=Find(name="lithium-6"), key="natural abundance")
    qualified = next(QueryAttrQualifier(input=plain.input, key=key, value=str(value),
                                        qkey="uncertainty")
                     for key, value, said in kb.attributes[kb.name_to_nodes["lithium-6"][0]]
                     if key == "natural abundance" and "uncertainty" in said)
    assert not reasoner.keeps_form(plain, qualified, asked)
    assert reasoner.keeps_form(qualified, plain, asked)


def test_a_noun_of_the_kind_only_one_concept_is_of_means_that_concept(kbs):
    """WordNet: contestants are people, and bakers are the bakeoff KB's only people."""
    from koplc.kopl.answering.linking import link_question

    assert link_question("Which contestants were under 20?", kbs["bakeoff"]).concepts == (
        "baker",)
    # and so does "who", when no concept's name reads near "person"
    assert link_question("Who was under 20?", kbs["bakeoff"]).concepts == ("baker",)


def test_a_filter_that_keeps_every_one_is_no_program(kbs):
    """No baker has 20 star baker awards: "under 20" said of them filters nothing, so the
    program that reads it so is not one the search keeps."""
    from koplc.kopl.ir import FilterConcept, FilterNum, FindAll
    from koplc.llm.byokg.space import admissible

    bakers = FilterConcept(input=FindAll(), concept="baker")
    kept = FilterNum(input=bakers, key="age", value="20", comparator="<")
    everyone = FilterNum(input=bakers, key="star baker awards", value="20", comparator="<")
    assert admissible(kept, kbs["bakeoff"], set()) is not None
    assert admissible(everyone, kbs["bakeoff"], set()) is None


def test_a_name_ending_in_a_full_stop_is_masked_with_it(kbs):
    # "Inc." ends the airline's name: the masked question reads "does ENT have", a shape
    from koplc.kopl.answering.linking import link_question

    linked = link_question("How many employees does United Air Lines Inc. have?",
                           kbs["flights"])
    assert linked.masked() == "How many employees does ENT have?"


def test_a_word_a_values_name_is_made_from_links_it(kbs):
    from koplc.kopl.answering.linking import link_question

    mammals = kbs["mammals"]
    assert link_question("What is the lightest rodent?", mammals).entities == ("Rodentia",)
    assert link_question("Which animals live on insects?", mammals).entities == (
        "insectivore",)
    # a genus is a thing of a concept of 77 members, not a value: "canine" names no Canis;
    # nor, as a group (WordNet: first a tooth, then of Canidae, which the KB lacks), the wider
    # Carnivora
    assert link_question("Which canines sleep most?", mammals).entities == ()


def test_a_superlative_most_of_the_set_share_is_no_program(kbs):
    """72 of the 120 bakers have no star baker award: "the fewest awards" tells none apart."""
    from koplc.kopl.ir import FilterConcept, FindAll, SelectAmong
    from koplc.llm.byokg.space import admissible

    bakers = FilterConcept(input=FindAll(), concept="baker")
    assert admissible(SelectAmong(input=bakers, key="age", comparator="smallest"), kbs["bakeoff"],
                      set()) is not None
    assert admissible(SelectAmong(input=bakers, key="star baker awards", comparator="smallest"),
                      kbs["bakeoff"], set()) is None


@pytest.mark.parametrize(("kb", "question", "fact", "concept", "entity"), [
    # the giraffe has no brain mass: neither its body mass (a "how" question asks for an
    # amount, not for the thing a possessive names) nor the brain mass of the animals that
    # share its diet (a relation followed and straight back that the question never says)
    ("mammals", "How heavy is a giraffe's brain?", "brain mass", "mammals", "Giraffe"),
    ("starwars", "What planet is Yoda from?", "homeworld", "characters", "Yoda"),  # not his birth year
])
def test_a_fact_the_kb_holds_for_others_but_not_the_entity_asked_finds_nothing(
        frontend, kbs, kb, question, fact, concept, entity):
    assert _gold(kb, question)["answers"] == []
    compiled = frontend.compile(question, kbs[kb])
    assert compiled.failure == "unfit" and not compiled.answers, compiled.final
    assert compiled.error == (f"nothing found: the KB holds {fact!r} for {concept} but not "
                              f"for {entity!r}")


@pytest.mark.parametrize(("kb", "question", "asked", "answer"), [
    # the nearest property held is the atomic mass, in daltons: a mass is no energy
    ("isotopes", "What is the binding energy per nucleon of iron-56?", "energy",
     "'atomic mass'"),
])
def test_a_quantity_of_another_kind_than_the_one_asked_finds_nothing(frontend, kbs, kb,
                                                                     question, asked, answer):
    assert _gold(kb, question)["answers"] == []
    compiled = frontend.compile(question, kbs[kb])
    assert compiled.failure == "unfit" and not compiled.answers, compiled.final
    assert compiled.error == (f"nothing found: the question asks for {asked!r}, which the "
                              f"KB's nearest answer, {answer}, is not")


@pytest.mark.parametrize(("kb", "question"), [
    ("isotopes", "What's the mass of one Ni-62 atom?"),  # a mass asked, a mass kept
    ("isotopes", "What is the half-life of carbon-14?"),  # no quantity word asked
    ("mammals", "How heavy is a human brain?"),  # "heavy" names no dimension sympy has
    ("cars", "How big is the engine in the Buick Roadmaster?"),  # bare numbers say nothing
])
def test_a_quantity_of_the_kind_asked_or_of_no_known_kind_is_answered(frontend, kbs, kb,
                                                                      question):
    _answered_right(frontend, kbs, kb, question)


def test_a_which_question_gets_things_of_the_kind_it_asks_for(frontend, kbs):
    # "twin-engined" modifies the noun asked for (it read as the noun before); the aircraft's
    # engine types, the best fit before, are no aircraft: the seats filter's aircraft answer
    question = "Which twin-engined aircraft seat fewer than ten?"
    compiled = frontend.compile(question, kbs["flights"])
    kb = kbs["flights"]
    concept = kb.names.index("aircraft")
    aircraft = {kb.names[n] for n in kb.concept_members[concept]}
    assert compiled.final.op == "QueryName" and set(compiled.answers) <= aircraft
    assert set(_gold("flights", question)["answers"]) <= set(compiled.answers)


def test_a_relation_reads_as_the_attribute_its_values_say(frontend, kbs):
    from koplc.kopl.answering.meant_values import values_say

    # the vehicle classes "Small" and "Large" are sizes in WordNet: a class says a size
    assert values_say(kbs["cars"]) == {"class": ("size",)}
    assert values_say(kbs["starwars"]) == {}
    for question in ("Which size brackets include a car with the same airbag setup as the "
                     "Acura Legend?",
                     "Cars the same size as the Ford Festiva: which wheels do they drive?"):
        _answered_right(frontend, kbs, "cars", question)


def test_a_fact_the_entity_lacks_that_reads_no_nearer_than_what_it_has_is_no_refusal(frontend,
                                                                                     kbs):
    # the Roadmaster lacks an engine type, whose program reads 0.19 nearer than displacement's
    _answered_right(frontend, kbs, "cars", "How big is the engine in the Buick Roadmaster?")


def test_a_loop_counts_as_unsaid_only_when_no_question_word_is_near_its_relation():
    import numpy as np

    from koplc.kopl.ir import Find, QueryAttr, Relate
    from koplc.llm.byokg.fit import unsaid_loops

    def vectors(words):  # "diet" and "eat" alike, every other word apart
        return np.array([[1.0, 0.0] if w in ("diet", "eat") else [0.0, 1.0] for w in words])

    there = Relate(input=Find(name="Giraffe"), relation="diet", direction="forward")
    back = QueryAttr(input=Relate(input=there, relation="diet", direction="backward"),
                     key="brain mass")
    assert unsaid_loops(back, ["heavy", "brain"], vectors) == 1
    assert unsaid_loops(back, ["eat", "heavy", "brain"], vectors) == 0
    assert unsaid_loops(QueryAttr(input=there, key="brain mass"), ["heavy"], vectors) == 0


def test_a_loop_is_said_by_the_kind_wordnet_puts_its_relation_under():
    import numpy as np

    from koplc.kopl.ir import Find, QueryName, Relate
    from koplc.llm.byokg.fit import unsaid_loops

    seen: dict[str, int] = {}

    def apart(words):  # no two words alike: only WordNet can say the loop
        rows = np.zeros((len(words), 64))
        for i, word in enumerate(words):
            rows[i, seen.setdefault(word, len(seen))] = 1.0
        return rows

    there = Relate(input=Find(name="Darth Vader"), relation="species", direction="forward")
    back = QueryName(input=Relate(input=there, relation="species", direction="backward"))
    # "someone of ENT's kind": WordNet has a species as a kind
    assert unsaid_loops(back, ["someone", "kind"], apart) == 0
    assert unsaid_loops(back, ["someone", "home"], apart) == 1


def test_a_relation_between_several_concepts_names_the_set_from_where_it_starts(kbs):
    """"parent taxon" links a mammal to its genus and a genus to its order: from an order it
    reaches genera, though most of the relation's range over the whole KB is mammals."""
    from koplc.kopl.ir import Find, Relate
    from koplc.llm.byokg.reasoner import Reasoner

    reasoner = Reasoner(kbs["mammals"], None, [], ByokgFrontEnd(None).options)
    genera = Relate(input=Find(name="Cetacea"), relation="parent taxon", direction="backward")
    assert reasoner.noun(genera) == "genera"
    mammals = Relate(input=genera, relation="parent taxon", direction="backward")
    assert reasoner.noun(mammals) == "mammals"


def test_a_superlative_reads_as_what_it_is_a_degree_of(kbs):
    """WordNet: "light" is a degree of weight, which reads closer to body mass than to the
    time a mammal is awake (without it, the awake time fit best)."""
    from koplc.kopl.answering.linking import link_question
    from koplc.kopl.syntax.nested import parse
    from koplc.llm.byokg.reasoner import ByokgOptions, Reasoner

    question = "What is the lightest rodent?"
    assert _gold("mammals", question)
    kb = kbs["mammals"]
    reasoner = Reasoner(kb, None, [], ByokgOptions())
    asked = reasoner.asked(link_question(question, kb))
    rodents = ('Relate(Relate(Find("Rodentia"), "parent taxon", "backward"), "parent taxon", '
               '"backward")')
    mass, awake = (parse(f'SelectAmong({rodents}, "{key}", "smallest")').program
                   for key in ("body mass", "awake time per day"))
    fits = reasoner.nearness([mass, awake], asked)
    assert fits[0] > fits[1]


@pytest.mark.parametrize(("kb", "question"), [
    ("mammals", "What ties the house mouse to 'near threatened'?"),
    ("bakeoff", "What's the connection between Jason White and series two?"),
])
def test_a_relation_asked_in_other_words(frontend, kbs, kb, question):
    # "ties", "connection": WordNet's relations between things, not only "related"
    compiled = _answered_right(frontend, kbs, kb, question)
    assert compiled.final is not None and compiled.final.op == "QueryRelation"


def test_what_shares_a_fact_follows_the_relation_there_and_back(frontend, kbs):
    # "the same way as": the loop over how the cars are driven, not over their makers
    question = "Which automakers sell a car that is driven the same way as the Subaru Justy?"
    _answered_right(frontend, kbs, "cars", question)


def test_a_plain_question_with_a_modest_fit_is_answered(frontend, kbs):
    # "hails from" reads far from "homeworld": its fit is under 1.2 but over `min_fit`
    question = "Who hails from Corellia?"
    _answered_right(frontend, kbs, "starwars", question)


def test_a_city_inside_an_airports_name_links_the_airport(frontend, kbs):
    # "Atlanta" is an inner word of one name only: "Hartsfield Jackson Atlanta Intl"
    from koplc.kopl.answering.linking import link_question

    question = "Which airlines go to Atlanta and also to Charlotte?"
    linked = link_question(question, kbs["flights"])
    assert "Hartsfield Jackson Atlanta Intl" in linked.entities
    _answered_right(frontend, kbs, "flights", question)


def test_which_people_is_answered_with_names_not_a_value(frontend, kbs):
    # "natives" is a person in WordNet: the characters' names, not their skin colour
    question = "Which Tatooine natives have blue eyes?"
    compiled = _answered_right(frontend, kbs, "starwars", question)
    assert compiled.final is not None and compiled.final.op == "QueryName"


def test_which_of_a_plural_name_is_answered_however_low_it_fits(frontend, kbs):
    # "Hondas": the cars Honda makes; the one relation from Honda fits under `min_fit`
    question = "Which Hondas are in the data?"
    _answered_right(frontend, kbs, "cars", question)


def test_a_string_value_named_by_what_a_noun_is_a_kind_of_is_stated(frontend, kbs):
    # WordNet: a woman is a kind of female (and of adult): the sex female is stated
    question = "Which planets do the women in the saga come from?"
    compiled = _answered_right(frontend, kbs, "starwars", question)
    assert ("FilterStr", "female") in {(n.op, getattr(n, "value", None))
                                       for _, n in compiled.final.walk()}


def test_each_number_is_compared_by_the_words_right_before_it(frontend, kbs):
    # "under a kilo yet more than 12 hours": one filter below, the other above
    from koplc.llm.byokg.ops import cues

    question = "How many animals weigh under a kilo yet sleep more than 12 hours a day?"
    assert cues(question).bounds == ("<", ">")
    gold = _gold("mammals", question)
    assert list(frontend.compile(question, kbs["mammals"]).answers) == gold["answers"]


def test_an_asked_noun_that_is_a_kind_of_the_answers_concept(frontend, kbs):
    # WordNet: a carmaker is a manufacturer; the makers, not the rear-wheel-drive cars
    question = "Which carmakers have a rear-wheel-drive car in the lineup?"
    _answered_right(frontend, kbs, "cars", question)


def test_a_comparative_of_time_alone_compares_times(frontend, kbs):
    # "newer" says nothing of an amount: the later year built, not the more engines
    question = "Which is newer, N508JB or N365AA?"
    gold = _gold("flights", question)
    compiled = frontend.compile(question, kbs["flights"])
    assert list(compiled.answers) == gold["answers"] and "year_built" in compiled.raw


def test_a_name_is_not_the_noun_a_superlative_picks(frontend, kbs):
    # "Which Alaska Airlines jets": the noun is "jets", plural, so ties are all kept; the
    # airline's name ("Alaska") is no singular noun asking for one
    question = "Which Alaska Airlines jets seat the most passengers?"
    _answered_right(frontend, kbs, "flights", question)


@pytest.mark.parametrize(("kb", "question", "entity"), [
    ("bakeoff", "occupation of baker_3_danny?", "Danny Bryden"),  # a KoPL JSON entity id
    ("mammals", "What does Q1064 eat?", "Laboratory rat"),  # a Wikidata item's IRI
])
def test_a_source_identifier_links_its_entity(frontend, kbs, kb, question, entity):
    from koplc.kopl.answering.linking import link_question

    assert link_question(question, kbs[kb]).entities == (entity,)
    gold = _gold(kb, question)
    assert sorted(set(frontend.compile(question, kbs[kb]).answers)) == gold["answers"]


@pytest.mark.parametrize(("question", "entities"), [
    ("Which lives longer, manganese-53 or Al-26?", ("manganese-53", "aluminum-26")),
    # "how many days" of a half-life kept in years: the value, not a count of decay modes
    ("How many days does it take for half of a P-32 sample to decay?", ("phosphorus-32",)),
])
def test_a_code_joined_to_a_number_links_its_entity(frontend, kbs, question, entities):
    # "Al" and "P" are symbols, a key of codes (one element each); the KB names the isotopes
    # "aluminum-26", "phosphorus-32". Without the rule neither linked.
    from koplc.kopl.answering.linking import link_question

    assert link_question(question, kbs["isotopes"]).entities == entities
    _answered_right(frontend, kbs, "isotopes", question)


@pytest.mark.parametrize(("kb", "question"), [
    ("starwars", "How many characters have no hair at all?"),  # hair_color "none"
    # spin "0", a string value said as a number
    ("isotopes", "Which titanium isotopes have zero spin and make up over six percent of "
                 "natural titanium?"),
])
def test_a_string_value_said_as_none_or_as_a_number_is_stated(frontend, kbs, kb, question):
    # without the rule no filter on the string value was built: every character was counted,
    # the spin left out
    compiled = _answered_right(frontend, kbs, kb, question)
    assert "FilterStr" in compiled.raw


def test_which_kinds_of_something_asks_for_classes_not_an_amount(frontend, kbs):
    # the number of engines read as near as the engine type (1.73 both); "what kinds of"
    # asks for classes by name, so the count of engines gives way
    question = "What kinds of engines power the fleets of the airlines that fly to Dulles?"
    compiled = _answered_right(frontend, kbs, "flights", question)
    assert "engine_type" in compiled.raw


def test_a_person_noun_links_what_who_would_and_its_stated_value_is_kept(frontend, kbs):
    # "women" is near no concept's name; as a person it links what "who" would (character),
    # and the sex it states (female, what WordNet says a woman is) is no longer left out
    question = "Which women have black hair?"
    compiled = _answered_right(frontend, kbs, "starwars", question)
    assert "female" in compiled.raw and "black" in compiled.raw


def test_which_of_a_plural_name_asks_for_things_not_a_value(frontend, kbs):
    # "sale" read as near a price (1.02) as the cars Mazda makes (0.86); "which Mazdas" asks
    # for the cars by name, so no price (and no count) answers it
    compiled = _answered_right(frontend, kbs, "cars", "Which Mazdas were on sale in 1993?")
    assert compiled.program.op == "QueryName"


def test_first_in_a_question_asking_for_a_time_says_which_time(frontend, kbs):
    # "first" read as the earlier of times kept only picks (the isotope of titanium found
    # first); a question asking in what year asks for a time, which a pick does not give
    compiled = _answered_right(frontend, kbs, "isotopes", "In what year was Ti-44 first observed?")
    assert compiled.program.op == "QueryAttr"


def test_a_what_percent_question_asks_for_a_value_kept_in_percent(frontend, kbs):
    # the half-life of the isotopes decaying by electron capture read nearer (1.33) than the
    # branching ratio of gallium-70's decay by it (1.25): "what percent" asks for a value kept
    # in percent, which the branching ratio is
    question = "What percent of gallium-70 atoms decay by electron capture?"
    compiled = _answered_right(frontend, kbs, "isotopes", question)
    assert "branching ratio" in compiled.raw


def test_how_many_different_makers_counts_each_maker_once(frontend, kbs):
    # the makers of the vans repeat a maker per van (a count of facts, not kept); the count of
    # them kept to their concept holds each once and is built in its place
    compiled = _answered_right(frontend, kbs, "cars", "How many different automakers build a minivan?")
    assert "FilterConcept" in compiled.raw


@pytest.mark.parametrize(("kb", "question"), [
    ("starwars", "What rank does Wedge Antilles hold?"),
    ("cars", "What towing capacity does the Ford Aerostar have?"),
    ("flights", "In which country is N102UW registered?"),
    ("cars", "What tyres come on the Subaru Legacy?"),  # the property as the verb's subject
    ("mammals", "How many young does an African elephant have in a litter?"),
])
def test_what_property_an_entity_verbs_that_the_kb_lacks_finds_nothing(frontend, kbs, kb,
                                                                        question):
    # the nearest program read another property (a height, a seating capacity); the noun
    # asked names nothing of the schema, so nothing is found
    compiled = frontend.compile(question, kbs[kb])
    assert compiled.answers == () and "names nothing like" in compiled.error


def test_a_which_noun_held_keeps_a_property_asked_after_it(kbs):
    # "the script for ENT" names nothing of the KB, but "which screenwriter" asks for a
    # writer, which the KB holds (MetaQA's written_by, the bakeoff KB's person concepts)
    from koplc.kopl.answering.unheld import unheld

    assert unheld(kbs["cars"], "Which automaker sold the sunroof for ENT?") is None
    assert unheld(kbs["cars"], "What is the sunroof for ENT?") == "sunroof"


def test_no_count_of_what_one_entity_reaches_one_of(frontend, kbs):
    # a car has one maker: the count of the Accord's makers is 1 whatever is asked; without the
    # rule "how many Honda Accords were sold" answered it
    from koplc.kopl.ir import Count, Find, Relate
    from koplc.llm.byokg.space import fits, one_each

    question = "How many Honda Accords were sold in 1993?"
    maker = Relate(input=Find(name="Honda_Accord"), relation="manufactured_by",
                   direction="forward")
    assert one_each(maker, kbs["cars"])
    assert not fits(Count(input=maker), True, kbs["cars"], question)
    # a maker has several cars: their count is kept
    made = Relate(input=Find(name="Honda"), relation="manufactured_by", direction="backward")
    assert not one_each(made, kbs["cars"])
    assert _gold("cars", question)["answers"] == []
    compiled = frontend.compile(question, kbs["cars"])
    assert not compiled.answers, compiled.final


@pytest.mark.parametrize(("question", "entities"), [
    ("What's the Chevy Caprice's freeway mileage?", ("Chevrolet_Caprice",)),
    ("Which Chevys have no airbags?", ("Chevrolet", "None")),  # a clipped name, plural
    ("Which Hondas are in the data?", ("Honda",)),  # a whole name is no clipped one
])
def test_a_name_with_its_first_word_clipped_links_it(kbs, question, entities):
    from koplc.kopl.answering.linking import link_question

    assert link_question(question, kbs["cars"]).entities == entities


def test_a_clipped_name_is_answered(frontend, kbs):
    _answered_right(frontend, kbs, "cars", "Is there room for more than seven people in a "
                    "Chevy Astro?")


def test_a_decade_is_the_years_it_spans(frontend, kbs):
    # "the 1970s" was read as 1970 (with "s" as its unit), so a year of 1970 matched alone
    compiled = _answered_right(frontend, kbs, "isotopes",
                               "Which fluorine isotopes were discovered in the 1970s?")
    filters = {(n.value, n.comparator) for _, n in compiled.final.walk() if n.op == "FilterYear"}
    assert filters == {("1969", ">"), ("1980", "<")}


def test_a_name_set_beside_an_entitys_in_parentheses_is_not_asked(frontend, kbs):
    # "the hyraxes (Hyracoidea)": the common name glosses the linked one; read as a word of the
    # question, nothing in the KB says it and the right program fit too little to answer
    _answered_right(frontend, kbs, "mammals", "What do the hyraxes (Hyracoidea) eat?")


def test_a_possessive_chain_reads_a_step_for_each_thing_it_names(kbs):
    # "the Civic's maker's lineup": the maker, then what it makes; the maker alone fit best
    from koplc.kopl.answering.linking import link_question
    from koplc.kopl.ir import Find, QueryName, Relate
    from koplc.llm.byokg.reasoner import Reasoner

    question = "the Civic's maker's lineup?"
    _gold("cars", question)
    reasoner = Reasoner(kbs["cars"], None, [], ByokgFrontEnd(None).options)
    maker = Relate(input=Find(name="Honda_Civic"), relation="manufactured_by",
                   direction="forward")
    lineup = Relate(input=maker, relation="manufactured_by", direction="backward")
    asked = reasoner.asked(link_question(question, kbs["cars"]))
    fits = reasoner.nearness([QueryName(input=maker), QueryName(input=lineup)], asked)
    assert fits[1] > fits[0]
