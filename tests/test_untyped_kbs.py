"""The BYOKG front end on KBs written as plain N-Triples with no concept at all (one IRI per
entity, its name as rdfs:label, relations named by their IRIs' local names), as users often
write them: family ties under Freebase-style names, football clubs under `urn:` IRIs, a fleet
of ships under plain local names. The people, clubs, ships and places are made up here; the
answers are read from the triples."""

from __future__ import annotations

import pytest

from koplc.frontends import open_frontend
from koplc.kopl.frontend import Settings
from koplc.kopl.kb.cache import load_kb

pytestmark = [pytest.mark.model, pytest.mark.usefixtures("private_caches")]

LABEL = "<http://www.w3.org/2000/01/rdf-schema#label>"

FAMILY = [  # (subject, Freebase-style relation, object)
    ("Paul Ek", "spouse_s", "Vera Ek"), ("Vera Ek", "spouse_s", "Paul Ek"),
    ("Paul Ek", "children", "Emil Holm"), ("Vera Ek", "children", "Emil Holm"),
    ("Paul Ek", "children", "Max Lind"), ("Vera Ek", "children", "Max Lind"),
    ("Emil Holm", "spouse_s", "Rosa Falk"), ("Rosa Falk", "spouse_s", "Emil Holm"),
    ("Paul Ek", "place_of_birth", "Oslo"), ("Vera Ek", "place_of_birth", "Turku"),
    ("Emil Holm", "place_of_birth", "Oslo"), ("Max Lind", "place_of_birth", "Lund"),
    ("Rosa Falk", "place_of_birth", "Bergen"),
    ("Paul Ek", "nationality", "Norway"), ("Vera Ek", "nationality", "Finland"),
    ("Emil Holm", "nationality", "Norway"), ("Max Lind", "nationality", "Sweden"),
    ("Rosa Falk", "nationality", "Norway"),
    ("Paul Ek", "profession", "Teacher"), ("Vera Ek", "profession", "Physician"),
    ("Emil Holm", "profession", "Engineer"), ("Max Lind", "profession", "Painter"),
    ("Rosa Falk", "profession", "Lawyer"),
]
PATHS = {"spouse_s": "people.person", "children": "people.person",
         "place_of_birth": "people.person", "nationality": "people.person",
         "profession": "people.person"}

CLUBS = {"Lund_FC": "Lund", "Vasa_United": "Vasa", "1._FC_Wendel": "Wendel"}
PLAYERS = [  # (player, club, country, height in cm, position)
    ("Hans_FISCHER", "Lund_FC", "Germany", 181, "defender"),
    ("Dario_BERG", "Lund_FC", "Germany", 176, "forward"),
    ("Alan_GOMEZ", "Lund_FC", "Brazil", 190, "goalkeeper"),
    ("Kurt_COSTA", "Lund_FC", "Norway", 183, "midfielder"),
    ("Jan_GOMEZ", "Vasa_United", "Germany", 188, "goalkeeper"),
    ("Fabio_IVANOV", "Vasa_United", "Spain", 172, "forward"),
    ("Nils_IVANOV", "1._FC_Wendel", "Brazil", 194, "goalkeeper"),
    ("Elio_HORVAT", "1._FC_Wendel", "Germany", 179, "defender"),
    ("Olle_ERIKSEN", "1._FC_Wendel", "Brazil", 185, "midfielder"),
]
INTEGER = "<http://www.w3.org/2001/XMLSchema#integer>"

VESSELS = [  # (vessel, owner, vessel class, berths, year built)
    ("MS Aurora", "Nordic Ferries Ltd.", "Cruise ship", 1200, 1998),
    ("MS Borealis", "Nordic Ferries Ltd.", "Ferry", 450, 2004),
    ("MV Cirrus", "Baltic Sea Shipping", "Ferry", 380, 1991),
    ("MV Dune", "Baltic Sea Shipping", "Cargo ship", 20, 2011),
    ("MS Ember", "Coral Ferries Ltd.", "Ferry", 610, 2015),
    ("MV Fjord", "Coral Ferries Ltd.", "Cargo ship", 12, 1987),
    ("MS Gale", "Nordic Ferries Ltd.", "Cargo ship", 16, 2019),
]
ANIMALS = [  # (animal, diet, native country, weight in kg, keeper): WordNet knows the names
    ("Cheetah", "carnivore", "Kenya", 50, "Ada Moss"),
    ("Lion", "carnivore", "Tanzania", 190, "Ada Moss"),
    ("Giraffe", "herbivore", "Kenya", 800, "Ben Ito"),
    ("Zebra", "herbivore", "Tanzania", 380, "Ben Ito"),
    ("Koala", "herbivore", "Australia", 9, "Cleo Ruiz"),
    ("Kangaroo", "herbivore", "Australia", 85, "Cleo Ruiz"),
    ("Giant panda", "herbivore", "China", 110, "Cleo Ruiz"),
    ("Wolf", "carnivore", "Canada", 45, "Ada Moss"),
    ("Tiger", "carnivore", "India", 220, "Ada Moss"),
    ("Brown bear", "omnivore", "Canada", 300, "Ben Ito"),
]
CALLS = [("Nordic Ferries Ltd.", "Port of Kiel"), ("Nordic Ferries Ltd.", "Port of Tallinn"),
         ("Baltic Sea Shipping", "Port of Kiel"), ("Coral Ferries Ltd.", "Port of Tallinn"),
         ("Coral Ferries Ltd.", "Port of Visby")]


def _iri(name: str, folder: str = "") -> str:
    return f"<http://example.org/{folder}" + name.replace(" ", "_") + ">"


def _labelled_kb(tmp_path_factory, folder: str, facts: list[str], names, iri):
    """The KB of N-Triples `facts` with each of `names` as its IRI's (`iri`) rdfs:label."""
    lines = [*facts, *(f'{iri(n)} {LABEL} "{n}" .' for n in sorted(names))]
    path = tmp_path_factory.mktemp(folder) / "kb.nt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return load_kb(path)


@pytest.fixture(scope="module")
def family(tmp_path_factory):
    lines = [f"{_iri(s)} <http://example.org/__{PATHS[r].replace('.', '__')}__{r}> "
             f"{_iri(o)} ." for s, r, o in FAMILY]
    names = {n for s, _, o in FAMILY for n in (s, o)}
    return _labelled_kb(tmp_path_factory, "family", lines, names, _iri)


@pytest.fixture(scope="module")
def clubs(tmp_path_factory):
    lines = [f"<urn:kb:e:{c}> <urn:kb:r:located_in_city> <urn:kb:e:{city}> ."
             for c, city in CLUBS.items()]
    for player, club, country, height, position in PLAYERS:
        lines += [f"<urn:kb:e:{player}> <urn:kb:r:plays_in_club> <urn:kb:e:{club}> .",
                  f"<urn:kb:e:{player}> <urn:kb:r:is_from_country> <urn:kb:e:{country}> .",
                  f'<urn:kb:e:{player}> <urn:kb:a:height_cm> "{height}"^^{INTEGER} .',
                  f'<urn:kb:e:{player}> <urn:kb:a:position> "{position}" .']
    names = {*CLUBS, *CLUBS.values(), *(n for row in PLAYERS for n in row[:3])}
    return _labelled_kb(tmp_path_factory, "clubs", lines, names, lambda n: f"<urn:kb:e:{n}>")


@pytest.fixture(scope="module")
def ships(tmp_path_factory):
    def ship(name):
        return _iri(name, "ships/")

    lines = []
    for vessel, owner, kind, berths, year in VESSELS:
        lines += [f"{ship(vessel)} <http://example.org/ships/owned_by> {ship(owner)} .",
                  f"{ship(vessel)} <http://example.org/ships/vessel_class> {ship(kind)} .",
                  f'{ship(vessel)} <http://example.org/ships/berths> "{berths}"^^{INTEGER} .',
                  f'{ship(vessel)} <http://example.org/ships/year_built> "{year}"^^{INTEGER} .']
    lines += [f"{ship(a)} <http://example.org/ships/calls_at> {ship(b)} ." for a, b in CALLS]
    names = {n for row in VESSELS for n in row[:3]} | {n for pair in CALLS for n in pair}
    return _labelled_kb(tmp_path_factory, "ships", lines, names, ship)


@pytest.fixture(scope="module")
def zoo(tmp_path_factory):
    def iri(name):
        return _iri(name, "zoo/")

    lines = []
    for animal, diet, country, weight, keeper in ANIMALS:
        lines += [f"{iri(animal)} <http://example.org/zoo/diet> {iri(diet)} .",
                  f"{iri(animal)} <http://example.org/zoo/native_to> {iri(country)} .",
                  f"{iri(animal)} <http://example.org/zoo/keeper> {iri(keeper)} .",
                  f'{iri(animal)} <http://example.org/zoo/weight_kg> "{weight}"^^{INTEGER} .']
    names = {n for row in ANIMALS for n in (*row[:3], row[4])}
    return _labelled_kb(tmp_path_factory, "zoo", lines, names, iri)


@pytest.fixture(scope="module")
def byokg():
    return open_frontend("byokg", Settings())


def _answers(kb, subject, relation, backward=False):
    return {s if backward else o for s, r, o in kb if r == relation
            and (o if backward else s) == subject}


@pytest.mark.parametrize("question, gold", [
    # a kind of spouse (WordNet: a wife is one) names the spouse hop of a 2-hop path
    ("Where was the wife of Paul Ek born?", lambda: _answers(FAMILY, "Vera Ek",
                                                               "place_of_birth")),
    ("What is the nationality of Emil Holm's husband?",
     lambda: _answers(FAMILY, "Rosa Falk", "nationality")),
    # "children" followed backward reads as its other side, the parents
    ("Who are the parents of Max Lind?", lambda: _answers(FAMILY, "Max Lind", "children",
                                                          backward=True)),
    ("Who is the father of Max Lind?", lambda: _answers(FAMILY, "Max Lind", "children",
                                                        backward=True)),
    ("Where were Max Lind's parents born?", lambda: {"Oslo", "Turku"}),
    ("What is the nationality of Emil Holm's mother?", lambda: {"Norway", "Finland"}),
    ("Who are Vera Ek's kids?", lambda: _answers(FAMILY, "Vera Ek", "children")),
    # a possessive chain says its hops first to last: Paul's son's wife, not his wife's son;
    # "son" is a kind of a kind of child (WordNet: a male offspring)
    ("What job does Paul Ek's son's wife have?", lambda: {"Lawyer"}),
    # a chain said with "of" names as many things: three hops, not the spouse of Paul Ek
    ("What is the place of birth of the spouse of the child of Paul Ek?", lambda: {"Bergen"}),
    # a plural's possessive ("parents'") goes on to the next thing of the chain
    ("Emil Holm's parents' professions?", lambda: {"Teacher", "Physician"}),
])
def test_family_ties_under_freebase_names(byokg, family, question, gold):
    compiled = byokg.compile(question, family)
    assert set(compiled.answers) == gold(), compiled.to_json()


def test_a_freebase_path_is_read_by_its_last_segment():
    from koplc.kopl.ir import Find, Relate
    from koplc.llm.byokg.reasoner import reading

    hop = Relate(input=Find(name="Paul Ek"), relation="__people__person__spouse_s",
                 direction="forward")
    born = Relate(input=hop, relation="__people__person__place_of_birth", direction="forward")
    assert reading(born, ("Paul Ek",)) == "What are the place of birth of the spouses of ENT?"


@pytest.mark.parametrize("question, gold", [
    # the club named only by its role: the full path
    ("Where is the club Hans_FISCHER plays for?", {"Lund"}),
    # two constraints joined, in a KB with no concept to say the answer's type
    ("Which players in club Lund_FC are from Germany?", {"Hans_FISCHER", "Dario_BERG"}),
    ("Which players of 1._FC_Wendel come from Brazil?", {"Nils_IVANOV", "Olle_ERIKSEN"}),
    ("Which German players play for Vasa United?", {"Jan_GOMEZ"}),  # a proper adjective
    ("Who plays for Vasa United?", {"Jan_GOMEZ", "Fabio_IVANOV"}),
    # nothing names the players (no concept): they are not outranked by the clubs, which
    # "plays in club" names
    ("Who comes from Brazil?", {"Alan_GOMEZ", "Nils_IVANOV", "Olle_ERIKSEN"}),
    ("Who is from Spain?", {"Fabio_IVANOV"}),
    # a value of an attribute is something the KB holds: no "nothing found" for it
    ("Who are the goalkeepers of 1._FC_Wendel?", {"Nils_IVANOV"}),
    # what else shares a fact: the relation there and straight back
    ("Who plays in the same club as Kurt COSTA?",
     {row[0] for row in PLAYERS if row[1] == "Lund_FC"}),
    # an attribute of the thing a superlative picks
    ("What position does the tallest player of Lund FC play?", {"goalkeeper"}),
    # the clubs of the club's players are the club: no answer (a club, which "who" may ask
    # for) that a relation followed straight back gives
    ("Who plays for the club in Vasa?", {"Jan_GOMEZ", "Fabio_IVANOV"}),
    # two constraints, one of them two hops from its entity (the clubs in Wendel's players)
    ("Which players from Brazil play in Wendel?", {"Nils_IVANOV", "Olle_ERIKSEN"}),
])
def test_clubs_under_urn_iris(byokg, clubs, question, gold):
    compiled = byokg.compile(question, clubs)
    assert set(compiled.answers) == gold, compiled.to_json()


def _kept(rows, keep) -> set[str]:
    """The names (first fields) of the rows whose other fields `keep` keeps."""
    return {row[0] for row in rows if keep(*row[1:])}


@pytest.mark.parametrize("question, gold", [
    # no entity and no concept: everything that holds the key a value or superlative is of
    ("Who is the tallest player?", {max(PLAYERS, key=lambda row: row[3])[0]}),
    ("Which players are taller than 1.86 m?", _kept(PLAYERS, lambda *row: row[2] > 186)),
    ("How many goalkeepers are there?",
     {str(len(_kept(PLAYERS, lambda *row: row[3] == "goalkeeper")))}),
    # a kind the relations' names call their things ("plays in club": clubs, players), each
    # counted once however many facts reach it
    ("How many clubs are there?", {str(len(CLUBS))}),
    ("How many countries do the players come from?", {str(len({row[2] for row in PLAYERS}))}),
])
def test_questions_naming_nothing_start_from_what_holds_the_key(byokg, clubs, question, gold):
    compiled = byokg.compile(question, clubs)
    assert set(compiled.answers) == gold, compiled.to_json()


@pytest.mark.parametrize("question, gold", [
    # "vessel class" is of vessels: its classes are no vessels, nor does "vessels" say it
    ("Which vessels have more than 500 berths?", _kept(VESSELS, lambda *row: row[2] > 500)),
    ("What berths do the vessels of Coral Ferries Ltd. have?",
     {str(row[3]) for row in VESSELS if row[1] == "Coral Ferries Ltd."}),
    ("Which vessels are in the same class as MS Ember?",
     _kept(VESSELS, lambda owner, kind, *_: kind == "Ferry")),
    # "which vessels" asks for the vessels by name, not for a value of theirs
    ("Which vessels does Nordic Ferries Ltd. own?",
     _kept(VESSELS, lambda owner, *_: owner == "Nordic Ferries Ltd.")),
    # "ships" is the kind a cargo ship is one of, not that vessel class
    ("Which ships have more than 500 berths?", _kept(VESSELS, lambda *row: row[2] > 500)),
    ("Which Nordic Ferries ships were built before 2000?",
     _kept(VESSELS, lambda owner, kind, berths, year: owner == "Nordic Ferries Ltd."
           and year < 2000)),
])
def test_ships_under_compound_relation_names(byokg, ships, question, gold):
    compiled = byokg.compile(question, ships)
    assert set(compiled.answers) == gold, compiled.to_json()


def test_a_word_most_names_carry_names_their_kind(byokg, tmp_path_factory):
    # WordNet knows none of the carriers by name; most of their names say "airlines"
    fleet = {"N101": "Alaska Airlines Inc.", "N102": "Mesa Airlines Inc.",
             "N103": "Hawaiian Airlines Inc.", "N104": "Envoy Air", "N105": "Envoy Air"}
    lines = [f"{_iri(plane)} <http://example.org/operated_by> {_iri(carrier)} ."
             for plane, carrier in fleet.items()]
    # things with facts of their own, not values
    lines += [f"{_iri(carrier)} <http://example.org/based_in> {_iri('Seattle')} ."
              for carrier in set(fleet.values())]
    kb = _labelled_kb(tmp_path_factory, "carriers", lines,
                      {*fleet, *fleet.values(), "Seattle"}, _iri)
    compiled = byokg.compile("How many airlines are there?", kb)
    assert set(compiled.answers) == {str(len(set(fleet.values())))}, compiled.to_json()


def test_a_word_several_names_share_names_none_of_them(ships):
    from koplc.kopl.answering.linking import link_question

    # "ferry" is in two owners' names and is a vessel class: the question names the port only
    linked = link_question("How many ferry companies call at the Port of Kiel?", ships)
    assert linked.entities == ("Port of Kiel",)


@pytest.mark.parametrize("question, gold", [
    # no concept says what the things are; WordNet does, by their names: the animals are
    # placentals, so "animals" and "mammals" are things the KB holds ...
    ("Which animals come from Australia?", _kept(ANIMALS, lambda d, country, *_: country
                                                   == "Australia")),
    ("Which mammals does Ada Moss look after?", _kept(ANIMALS, lambda *row: row[3]
                                                      == "Ada Moss")),
    # ... the diets are values, named by common nouns: "carnivore" as a diet is no animal,
    # and the countries the herbivores come from are asked, not the herbivores
    ("Which countries are the herbivores from?",
     {row[2] for row in ANIMALS if row[1] == "herbivore"}),
    # a question naming nothing counts the things of the kind it names
    ("How many animals does the zoo keep?", {str(len(ANIMALS))}),
])
def test_things_named_by_what_wordnet_says_they_are(byokg, zoo, question, gold):
    compiled = byokg.compile(question, zoo)
    assert set(compiled.answers) == gold, compiled.to_json()


def test_the_sides_of_a_kb_with_no_concepts_get_wordnet_kinds(zoo):
    from koplc.kopl.answering.thing_kinds import of_kind, role_kinds, value_sides

    kinds = {(relation, direction): kind for relation, direction, kind, _ in role_kinds(zoo)}
    assert kinds[("native_to", "forward")] == "country"  # proper names: things, not values
    assert of_kind("animals", kinds[("diet", "backward")])  # carnivores, placentals ...
    assert ("diet", "forward") in value_sides(zoo) and ("diet", "forward") not in kinds


def test_the_llm_front_end_starts_where_byokg_does(zoo):
    # a question naming nothing but a kind the KB holds goes on to the model and the search
    llm = open_frontend("llm", Settings())
    compiled = llm.compile("How many animals does the zoo keep?", zoo)
    assert set(compiled.answers) == {str(len(ANIMALS))}, compiled.to_json()


def test_a_fact_things_like_an_entity_have_and_it_lacks_is_not_found(byokg, tmp_path_factory):
    # no concept says what the okapi is like: the things that play every part it plays (a
    # diet and a keeper: the animals) have a native country, and it has none
    def iri(name):
        return _iri(name, "zoo/")

    lines = [f"{iri('Okapi')} <http://example.org/zoo/diet> {iri('herbivore')} .",
             f"{iri('Okapi')} <http://example.org/zoo/keeper> {iri('Ben Ito')} ."]
    for animal, diet, country, _, keeper in ANIMALS:
        lines += [f"{iri(animal)} <http://example.org/zoo/diet> {iri(diet)} .",
                  f"{iri(animal)} <http://example.org/zoo/native_to> {iri(country)} .",
                  f"{iri(animal)} <http://example.org/zoo/keeper> {iri(keeper)} ."]
    names = {"Okapi"} | {n for row in ANIMALS for n in (*row[:3], row[4])}
    kb = _labelled_kb(tmp_path_factory, "okapi", lines, names, iri)
    compiled = byokg.compile("What country is the okapi from?", kb)
    assert compiled.answers == () and compiled.error == (
        "nothing found: the KB holds 'native_to' for things like 'Okapi' but not for 'Okapi'")
    compiled = byokg.compile("What country is the koala from?", kb)
    assert set(compiled.answers) == {"Australia"}, compiled.to_json()


def test_things_asked_as_the_verbs_subject_are_asked_by_name(byokg, tmp_path_factory):
    # "which ... aircraft were built": the aircraft, not a value of theirs that "aircraft"
    # reads near (engines)
    planes = [("N101", "Alpine Air", 2, 1996), ("N102", "Alpine Air", 2, 2008),
              ("N103", "Alpine Air", 4, 1989), ("N104", "Coastal Air", 2, 2012)]
    lines = []
    for plane, carrier, engines, year in planes:
        lines += [f"{_iri(plane)} <http://example.org/operated_by> {_iri(carrier)} .",
                  f'{_iri(plane)} <http://example.org/engines> "{engines}"^^{INTEGER} .',
                  f'{_iri(plane)} <http://example.org/year_built> "{year}"^^{INTEGER} .']
    kb = _labelled_kb(tmp_path_factory, "planes", lines,
                      {name for row in planes for name in row[:2]}, _iri)
    compiled = byokg.compile("Which Alpine Air aircraft were built before 2000?", kb)
    assert set(compiled.answers) == {"N101", "N103"}, compiled.to_json()


def test_a_program_leaving_out_a_named_entity_gives_way_to_one_joining_both(
        byokg, tmp_path_factory):
    # "Which Alpine Air planes are A320s?" names two things: the carrier's destinations
    # ("flies to" reads near "planes") leave the A320 out, the planes of both join them
    planes = [("N101", "Alpine Air", "A320"), ("N102", "Alpine Air", "737-800"),
              ("N103", "Alpine Air", "A320"), ("N104", "Coastal Air", "A320")]
    lines = [f"{_iri('Alpine Air')} <http://example.org/flies_to> {_iri('Zurich Airport')} .",
             f"{_iri('Coastal Air')} <http://example.org/flies_to> {_iri('Nice Airport')} ."]
    for plane, carrier, model in planes:
        lines += [f"{_iri(plane)} <http://example.org/operated_by> {_iri(carrier)} .",
                  f"{_iri(plane)} <http://example.org/model> {_iri(model)} ."]
    names = {"Zurich Airport", "Nice Airport"} | {name for row in planes for name in row}
    kb = _labelled_kb(tmp_path_factory, "fleet", lines, names, _iri)
    compiled = byokg.compile("Which Alpine Air planes are A320s?", kb)
    assert set(compiled.answers) == {"N101", "N103"}, compiled.to_json()
