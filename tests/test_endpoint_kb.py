"""Front ends on a KB that lives in a SPARQL endpoint (koplc.endpoint_mode, sparql_backend's
endpoint_kb, fragments and name_table), against Oxigraph's server started here with the
development KBs (tests/fixtures/devkbs) exported in the wikidata and plain encodings.

Each front end must give the answers it gives on the KB in memory; an endpoint that is down,
slow, answers nonsense or refuses fails the question with an error naming the endpoint and
what the query was for, and `koplc eval` goes on; nothing koplc sends changes the endpoint.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

import pytest

from koplc import api
from koplc.endpoint_mode import OnEndpoint, name_table, ranked_like
from koplc.kopl.answering.memory_access import MemoryAccess
from koplc.kopl.errors import BackendError
from koplc.kopl.kb.access import KBAccess
from koplc.sparql_backend.encodings import encoding_named
from koplc.sparql_backend.endpoint_kb import EndpointKB, require_read_only
from koplc.sparql_backend.export import write_ntriples
from koplc.sparql_backend.fragments import fragment_of
from misbehaving_endpoint import serve
from test_wikidata_model import OXIGRAPH, _wait_for
from virtuoso_server import free_port

pytestmark = pytest.mark.server
DEVKBS = Path(__file__).resolve().parent / "fixtures" / "devkbs"
KBS = {"starwars": ("kb.nt", None), "isotopes": ("kb.json", None),
       "flights": ("kb.txt", "schema.json")}
# (KB, encoding): the plain encoding cannot say qualifiers, so isotopes goes as wikidata only.
SERVED = [("starwars", "wikidata"), ("starwars", "plain"), ("isotopes", "wikidata"),
          ("flights", "wikidata")]


def load(name: str):
    kb_file, schema = KBS[name]
    folder = DEVKBS / name
    return api.load_kb(folder / kb_file, schema=str(folder / schema) if schema else None)


def questions(name: str, n: int) -> list[str]:
    """The first `n` tune-half questions of a dev KB."""
    lines = (DEVKBS / name / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines if line.strip()]
    return [r["question"] for r in records if r["half"] == "tune"][:n]


@pytest.fixture(scope="module")
def kbs():
    return {name: load(name) for name in KBS}


@pytest.fixture(scope="module")
def endpoints(kbs, tmp_path_factory):
    """(KB, encoding) -> the URL of an Oxigraph server holding it; a user cache of its own."""
    folder = tmp_path_factory.mktemp("endpoint-kbs")
    exported = {}
    for name, encoding in SERVED:
        path = folder / f"{name}-{encoding}.nt"
        write_ntriples(kbs[name], encoding_named(encoding), path)
        exported[f"{name}-{encoding}"] = path
    # isotopes again with no property declared (no wikibase:directClaim, qualifier, ...).
    undeclared = folder / "isotopes-undeclared.nt"
    undeclared.write_text("".join(
        line for line in exported["isotopes-wikidata"].open(encoding="utf-8")
        if "<http://wikiba.se/ontology#" not in line.split(" ")[1]), encoding="utf-8")
    exported["isotopes-undeclared"] = undeclared
    for graph, path in exported.items():
        subprocess.run([OXIGRAPH, "load", "--location", str(folder / "db"), "--file", str(path),
                        "--graph", f"urn:koplc:test:{graph}"], check=True, capture_output=True,
                       timeout=300)
    port = free_port()
    process = subprocess.Popen([OXIGRAPH, "serve-read-only", "--location", str(folder / "db"),
                                "--bind", f"127.0.0.1:{port}"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, start_new_session=True)
    url = f"http://127.0.0.1:{port}/query"
    try:
        _wait_for(url, process)
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("KOPLC_CACHE_DIR", str(folder / "user-cache"))
            yield {(name, encoding): f"{url}?default-graph-uri=urn:koplc:test:{name}-{encoding}"
                   for name, encoding in [*SERVED, ("isotopes", "undeclared")]}
    finally:
        os.kill(process.pid, signal.SIGTERM)
        process.wait(timeout=30)


def endpoint_kb(endpoints, name: str, encoding: str) -> EndpointKB:
    return api.load_kb(endpoints[(name, encoding)], encoding=encoding)


# The access protocol: both implementations say the same about the same KB.

@pytest.mark.parametrize("served", SERVED, ids="-".join)
def test_the_endpoint_lists_the_names_and_schema_the_kb_in_memory_has(served, kbs, endpoints):
    name, encoding = served
    on_endpoint, in_memory = endpoint_kb(endpoints, *served), MemoryAccess(kbs[name])
    assert isinstance(on_endpoint, KBAccess) and isinstance(in_memory, KBAccess)
    on_endpoint.page = 50  # several pages
    assert sorted(x for page in on_endpoint.names() for x in page) == \
        sorted(x for page in in_memory.names() for x in page)
    mine, theirs = on_endpoint.schema(), in_memory.schema()
    assert mine.concepts == theirs.concepts
    assert set(mine.attributes) == set(theirs.attributes)
    assert {r for r, _ in mine.relations} == {r for r, _ in theirs.relations}
    assert set(mine.qualifiers) == set(theirs.qualifiers)


def test_declared_properties_are_counted_by_batch_with_the_schema_a_full_scan_gives(
        endpoints):
    declared = endpoint_kb(endpoints, "isotopes", "wikidata")
    undeclared = api.load_kb(endpoints[("isotopes", "undeclared")], encoding="wikidata")
    counting = _Counting(declared.endpoint)
    declared.endpoint, declared._cache = counting, type(declared._cache)(None)
    assert declared.schema() == undeclared.schema()
    assert any("VALUES ?p" in query for query in counting.asked)
    assert not any("STRSTARTS" in query for query in counting.asked)


def test_a_fragment_holds_the_facts_around_its_seeds(kbs, endpoints):
    kb = kbs["starwars"]
    on_endpoint = endpoint_kb(endpoints, "starwars", "wikidata")
    luke = kb.ids[kb.name_to_nodes["Luke Skywalker"][0]]
    fragment = fragment_of(on_endpoint, [on_endpoint.encoding.node(luke)], hops=1)
    assert sorted(fragment.concept_names()) == sorted(kb.concept_names())
    expected = shapes(MemoryAccess(kb).patterns([luke]))
    assert shapes(MemoryAccess(fragment).patterns([luke])) == expected
    assert len(fragment.ids) < len(kb.ids)
    assert shapes(on_endpoint.patterns([luke])) == expected


def test_a_fragment_grows_by_the_seeds_read_from_it(kbs, endpoints):
    """`grow` reads more seeds from the fragment; their facts join it, and what was fetched
    is not fetched again."""
    kb = kbs["starwars"]
    on_endpoint = endpoint_kb(endpoints, "starwars", "wikidata")
    node = on_endpoint.encoding.node
    luke, leia = (kb.ids[kb.name_to_nodes[n][0]] for n in ("Luke Skywalker", "Leia Organa"))
    asked: list[str] = []
    real_select = on_endpoint.select

    def select(query, purpose, cached=True):
        asked.append(query)
        return real_select(query, purpose, cached)

    on_endpoint.select = select
    grown = fragment_of(on_endpoint, [node(luke)], hops=1, grow=lambda f: [node(leia)])
    on_endpoint.select = real_select
    alone = fragment_of(on_endpoint, [node(leia)], hops=1)
    assert shapes(MemoryAccess(grown).patterns([leia])) == \
        shapes(MemoryAccess(alone).patterns([leia]))
    assert {luke, leia} <= grown.expanded
    assert len(asked) == len(set(asked))  # the grown cut asked nothing twice


def test_a_fragment_reads_the_nodes_near_its_seeds_one_hop_only(kbs, endpoints):
    """`near` (a concept's sampled members beside a named entity) brings those nodes' own
    facts, not the neighbourhood the seeds get."""
    kb = kbs["starwars"]
    on_endpoint = endpoint_kb(endpoints, "starwars", "wikidata")
    node = on_endpoint.encoding.node
    luke, leia = (kb.ids[kb.name_to_nodes[n][0]] for n in ("Luke Skywalker", "Leia Organa"))
    near = fragment_of(on_endpoint, [node(luke)], hops=1, near=[node(leia)])
    alone = fragment_of(on_endpoint, [node(leia)], hops=1)
    assert shapes(MemoryAccess(near).patterns([leia])) == \
        shapes(MemoryAccess(alone).patterns([leia]))
    def entities(fragment) -> set[str]:
        return {i for i in fragment.expanded
                if i in kb.id_to_node and not kb.is_concept(kb.id_to_node[i])}

    assert len(entities(fragment_of(on_endpoint, [node(luke), node(leia)], hops=2))) > 2
    assert entities(near) == {luke, leia}  # as seeds they would bring their neighbours' too


def test_a_chunk_that_reaches_the_row_bound_is_read_again_in_halves(kbs, endpoints):
    """Each seed's own facts are all there though one query of all of them would pass the
    bound on rows (a chunk's rows come cut otherwise, the nodes read last losing theirs)."""
    kb = kbs["starwars"]
    on_endpoint = endpoint_kb(endpoints, "starwars", "wikidata")
    node = on_endpoint.encoding.node
    people = [kb.ids[n] for n in kb.concept_members[kb.name_to_nodes["character"][0]]][:12]
    roomy = fragment_of(on_endpoint, [node(i) for i in people], hops=1)
    tight = fragment_of(on_endpoint, [node(i) for i in people], hops=1, per_query=60)
    for person in people:
        assert shapes(MemoryAccess(tight).patterns([person])) == \
            shapes(MemoryAccess(roomy).patterns([person]))
    assert sum(len(tight.attributes[tight.id_to_node[i]]) for i in people) > 60


def test_chunks_are_read_two_at_once_in_their_order_and_one_at_a_time_on_the_helper():
    """A listing's chunks are read on the caller's thread and the KB's helper at once, and
    come back in order; on the helper itself (which cannot wait on itself) one at a time."""
    import threading

    from koplc.sparql_backend.fragments import _Cut

    cut = _Cut(EndpointKB("http://127.0.0.1:9/sparql", cache=False, version="1"), 2000)
    threads: dict[str, str] = {}

    def read(chunk):
        threads[chunk[0]] = threading.current_thread().name
        return [{"n": c} for c in chunk]

    chunks = [[f"{i}a", f"{i}b"] for i in range(5)]
    rows = cut.two_at_once(read, chunks)
    assert [r["n"] for r in rows] == [c for chunk in chunks for c in chunk]
    assert not cut.kb.on_helper()
    assert len(set(threads.values())) == 2
    threads.clear()
    rows = cut.kb.helper.submit(cut.two_at_once, read, chunks).result(timeout=10)
    assert [r["n"] for r in rows] == [c for chunk in chunks for c in chunk]
    assert len(set(threads.values())) == 1


def test_the_facts_pointing_at_a_hop_are_asked_for_the_nodes_of_the_smallest_concepts_last():
    """A genre of a few dozen members has thousands of films pointing at it: asked for after
    a director's, those fill the query's bound, not the director's films."""
    from koplc.sparql_backend.fragments import _Cut

    cut = _Cut(EndpointKB("http://127.0.0.1:9/sparql", cache=False, version="1"), 2000)
    cut.sizes = {"genre": 24, "person": 16000, "film": 21000}
    cut.kinds = {"drama": ["genre"], "director": ["person"], "heat": ["film"],
                 "actor": ["person", "genre"]}
    assert cut.hubs_last(["drama", "director", "unknown", "heat", "actor"]) == \
        ["unknown", "heat", "director", "actor", "drama"]


@pytest.mark.parametrize(("name", "encoding"), [("isotopes", "wikidata"),
                                              ("flights", "wikidata"), ("starwars", "plain")])
def test_an_endpoint_says_which_relations_reach_one_thing_from_each_as_memory_does(
        kbs, endpoints, name, encoding):
    """Whether a count of what a relation reaches says nothing (an isotope's element is one
    for every isotope) is asked of the endpoint, with memory's answer for every relation."""
    from koplc.llm.byokg.space import ONE_EACH_HOLDERS, _reaches_one

    kb, on_endpoint = kbs[name], endpoint_kb(endpoints, name, encoding)
    asked = {(r, d): on_endpoint.reaches_one(r, d, ONE_EACH_HOLDERS)
             for r in kb.out_objects for d in ("forward", "backward")}
    assert asked == {(r, d): _reaches_one(kb, r, d) for r, d in asked}
    assert any(asked.values()) and not all(asked.values())


@pytest.mark.parametrize("name", ["starwars", "flights"])
def test_an_endpoint_lists_the_values_a_question_may_name_as_memory_reads_them(kbs, endpoints,
                                                                               name):
    """The values `meant_values` reads ("no airbags" for the value None) are the same listed
    from the endpoint as counted in memory, and a fragment reads the whole KB's."""
    from koplc.kopl.answering.meant_values import MOST_VALUES, _values

    on_endpoint = endpoint_kb(endpoints, name, "wikidata")
    assert on_endpoint.values(MOST_VALUES)
    assert list(_values(on_endpoint)[0]) == list(_values(kbs[name])[0])
    some = on_endpoint.values(MOST_VALUES)[0][0]
    fragment = fragment_of(on_endpoint, [on_endpoint.encoding.node(some)], hops=1)
    assert _values(fragment) is _values(on_endpoint)


def test_an_endpoint_lists_the_codes_memory_reads_and_a_fragment_holds_what_one_names(
        kbs, endpoints):
    """"Al-26" is aluminum-26 on the endpoint as in memory: the codes (an element's symbol)
    are listed from it, and the question's fragment is cut around the isotope."""
    from koplc.kopl.answering.linking import _codes, link_question

    on_endpoint = endpoint_kb(endpoints, "isotopes", "wikidata")
    assert on_endpoint.codes(5) == _codes(kbs["isotopes"]) != {}
    question = "Which lives longer, manganese-53 or Al-26?"
    fragment = OnEndpoint(_Inner()).fragment(question, on_endpoint)
    assert _codes(fragment) == _codes(kbs["isotopes"])
    assert link_question(question, fragment).entities == \
        link_question(question, kbs["isotopes"]).entities == ("manganese-53", "aluminum-26")


def test_a_hop_expands_first_what_several_seeds_reach(kbs, endpoints):
    """Under a tight bound a hop, the neighbour two seeds share is expanded before the first
    seed's others (what two entities of a question share is what it asks about most often)."""
    kb = kbs["starwars"]
    on_endpoint = endpoint_kb(endpoints, "starwars", "wikidata")
    node = on_endpoint.encoding.node
    human, stewjon = (kb.name_to_nodes[n][0] for n in ("Human", "Stewjon"))

    def neighbours(n: int) -> set[int]:
        return {o for table in (kb.out_objects, kb.in_objects) for per in table.values()
                for o in per.get(n, ())}

    shared = {kb.ids[n] for n in neighbours(human) & neighbours(stewjon)}  # Obi-Wan Kenobi
    assert shared and len(neighbours(human) - neighbours(stewjon)) > 30  # the other humans
    fragment = fragment_of(on_endpoint, [node(kb.ids[human]), node(kb.ids[stewjon])], hops=2,
                           per_hop=2)
    assert shared & fragment.expanded


def test_a_hop_keeps_the_few_neighbours_of_one_seed_beside_the_many_of_another(kbs, endpoints):
    """A hop's bound shares the seeds' reach as a walk from them would (each seed's mass
    spread evenly over its neighbours): a seed with two neighbours has both expanded beside a
    hub with dozens, whichever comes first (a film's cast beside its genre); unless only the
    hub is at the centre."""
    kb = kbs["starwars"]
    on_endpoint = endpoint_kb(endpoints, "starwars", "wikidata")
    node = on_endpoint.encoding.node

    def neighbours(n: int) -> set[int]:
        return {o for table in (kb.out_objects, kb.in_objects) for per in table.values()
                for o in per.get(n, ())} - {n}

    hub = kb.name_to_nodes["Human"][0]
    few = next(n for n in sorted(kb.entity_nodes, key=lambda n: kb.ids[n])
               if len(neighbours(n)) == 2 and not neighbours(n) & (neighbours(hub) | {hub}))
    assert len(neighbours(hub)) > 30
    seeds = [node(kb.ids[hub]), node(kb.ids[few])]
    fragment = fragment_of(on_endpoint, seeds, hops=2, per_hop=3)
    assert {kb.ids[n] for n in neighbours(few)} <= fragment.expanded
    # with the hub alone at the centre (the one a linker takes), its neighbours go first
    centred = fragment_of(on_endpoint, seeds, hops=2, per_hop=3, centre=seeds[:1])
    assert not {kb.ids[n] for n in neighbours(few)} & centred.expanded


def shapes(patterns) -> list[tuple]:
    """The patterns less their samples (which depend on the order facts come in)."""
    return [(p.name, p.direction, p.count) for p in patterns]


def test_the_name_table_links_names_and_raw_identifiers(endpoints, kbs):
    on_endpoint = endpoint_kb(endpoints, "starwars", "wikidata")
    mode = OnEndpoint(_Inner())
    table = mode.names(on_endpoint)
    kb = kbs["starwars"]
    luke = kb.ids[kb.name_to_nodes["Luke Skywalker"][0]]
    assert luke in table.seeds("What is the homeworld of luke skywalker?")
    assert luke in table.seeds("What is the homeworld of Luke_Skywalker?")
    assert luke in table.seeds("Where is Luke Skywalker's home?")
    assert luke in table.seeds("Where is Luke's home?")  # a name's leading word, possessive
    assert table.path.parent == on_endpoint.folder  # in the user cache


def test_the_name_table_tells_the_names_a_linker_would_take_from_common_words(endpoints, kbs):
    """A proper name the question says seeds a fragment's centre; an entity that a common word
    in small letters names (the species Human for "human") is a seed outside it, as the
    mention linker would not take the word for that name."""
    table = OnEndpoint(_Inner()).names(endpoint_kb(endpoints, "starwars", "wikidata"))
    kb = kbs["starwars"]
    human, tatooine = (kb.ids[kb.name_to_nodes[n][0]] for n in ("Human", "Tatooine"))
    taken, others = table.taken_and_not("Which human was born on Tatooine?")
    assert tatooine in taken and human in others
    taken, others = table.taken_and_not("Which Human was born on Tatooine?")
    assert {tatooine, human} <= set(taken)
    assert table.seeds("Which human was born on Tatooine?")[0] == tatooine


class _Inner:
    """A front end that answers nothing (for tests of the endpoint side alone)."""

    name, ranking = "none", "none"

    def compile(self, question, kb):
        from koplc.kopl.frontend import Compiled

        return Compiled(question, self.name, failure="empty")


def test_ranked_like_keeps_the_fragments_order_first():
    assert ranked_like(("b", "a"), ["a", "c", "b"]) == ("b", "a", "c")


def test_ranked_like_sorts_the_whole_set_of_a_front_end_that_sorts_its_answers():
    # the fragment held one of the five half-lives the endpoint gives: memory sorts all five
    assert ranked_like(("139 yoctosecond",), ["294 yoctosecond", "12.32 year",
                                              "139 yoctosecond"]) == (
        "12.32 year", "139 yoctosecond", "294 yoctosecond")


def test_a_second_run_asks_the_endpoint_only_for_its_version(endpoints):
    from koplc.sparql_backend.endpoint import Endpoint

    url = endpoints[("starwars", "wikidata")]
    first = EndpointKB(url, "wikidata")
    first.schema()
    names = name_table(first).db.execute("SELECT * FROM names ORDER BY id, key").fetchall()
    counting = _Counting(Endpoint(url))
    second = EndpointKB(url, "wikidata", endpoint=counting)
    assert second.schema() == first.schema()
    assert name_table(second).db.execute(
        "SELECT * FROM names ORDER BY id, key").fetchall() == names
    assert len(counting.asked) == 1 and "COUNT(*)" in counting.asked[0]
    assert second.folder == first.folder and second.folder.parent.name == "endpoints"


def test_names_page_by_key_not_by_offset(endpoints):
    from koplc.sparql_backend.endpoint import Endpoint

    url = endpoints[("starwars", "wikidata")]
    counting = _Counting(Endpoint(url))
    kb = EndpointKB(url, "wikidata", endpoint=counting, page=40)
    names = [x for page in kb.names() for x in page]
    listings = [q for q in counting.asked if "?name" in q]
    assert len(listings) > 2 and len(names) == len(set(names))  # several pages, no repeats
    assert not any("OFFSET" in q for q in listings)
    assert all('FILTER(STR(?x) > "' in q for q in listings[2:])


class _Counting:
    """An endpoint client that records the queries it sends."""

    def __init__(self, endpoint):
        self.endpoint, self.name, self.asked = endpoint, endpoint.name, []

    def select(self, query):
        self.asked.append(query)
        return self.endpoint.select(query)


# Read-only.

def test_nothing_but_select_and_ask_leaves_koplc():
    for update in ("INSERT DATA { <urn:a> <urn:b> <urn:c> }", "DELETE WHERE { ?s ?p ?o }",
                   "PREFIX x: <urn:x>\nDROP ALL", "LOAD <http://example.org/x>",
                   "# comment\nCLEAR DEFAULT"):
        with pytest.raises(BackendError, match="only SELECT and ASK"):
            require_read_only(update)
    require_read_only("PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>\nASK { ?s ?p ?o }")


def test_an_update_is_refused_before_it_reaches_the_endpoint():
    with serve("ok") as (url, server):
        kb = EndpointKB(url, cache=False, version="1")
        with pytest.raises(BackendError, match="only SELECT and ASK"):
            kb.select("INSERT DATA { <urn:a> <urn:b> <urn:c> }", "testing")
        assert server.requests == []


# Faults: the question fails, naming the endpoint and the query's purpose; eval goes on.

FAULTS = {"garbage": "not JSON", "wrong-shape": "not SPARQL JSON SELECT results",
          "html-500": "HTTP 500", "bad-request": "HTTP 400", "hang-up": "connection",
          "slow": "no answer within"}


@pytest.mark.parametrize("mode", FAULTS)
def test_a_misbehaving_endpoint_fails_the_question_with_a_clear_error(mode, user_cache):
    with serve(mode) as (url, _):
        kb = EndpointKB(url, timeout=0.5, retries=1, backoff=0.01, version="1")
        compiled = OnEndpoint(_Inner()).compile("Who is Luke Skywalker?", kb)
    assert compiled.failure == "execution"
    assert f"SPARQL endpoint {url}" in compiled.error and FAULTS[mode] in compiled.error
    assert "(while listing the entities' names)" in compiled.error


def test_an_endpoint_that_is_down_fails_to_open_with_a_clear_error(user_cache):
    from virtuoso_server import free_port

    url = f"http://127.0.0.1:{free_port()}/sparql"
    with pytest.raises(BackendError, match=f"SPARQL endpoint {url}: cannot connect.*while "
                       "counting its triples"):
        EndpointKB(url, retries=1, backoff=0.01)
    kb = EndpointKB(url, retries=1, backoff=0.01, version="1")
    compiled = OnEndpoint(_Inner()).compile("Who is Luke Skywalker?", kb)
    assert compiled.failure == "execution" and "cannot connect" in compiled.error


def test_eval_records_the_questions_an_endpoint_fails_and_goes_on(tmp_path, user_cache):
    data = tmp_path / "questions.jsonl"
    data.write_text("".join(json.dumps({"question": q, "answers": ["x"]}) + "\n"
                            for q in ("Who is Luke Skywalker?", "Where is Tatooine?")))
    # The server answers every SELECT with one row of ?count: the names it is asked for are
    # not in its results.
    with serve("ok") as (url, _):
        api.evaluate([data], _Inner(), out=tmp_path / "out", kb_path=url, encoding="wikidata")
    lines = (tmp_path / "out" / "predictions.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines]
    assert len(records) == 2
    assert all(r["failure"] == "execution" and "do not bind ?x" in r["error"]
               and "while listing the entities' names" in r["error"] for r in records)


def test_an_endpoint_that_fails_midway_fails_each_question_and_the_run_goes_on(user_cache):
    with serve("ok") as (url, server):
        kb = EndpointKB(url, retries=0)
        server.mode = "html-500"
        compiled = list(api.compile_questions(["Who is Luke Skywalker?", "Where is Tatooine?"],
                                              _Inner(), kb))
    assert [c.failure for c in compiled] == ["execution", "execution"]
    assert all("HTTP 500" in c.error for c in compiled)


# Every front end on the endpoint gives its in-memory answers (the programs it writes on a
# fragment run on the endpoint). (KB, encoding, front end, how many tune-half questions.)
AGREEMENT = [("starwars", "wikidata", "byokg", 12), ("starwars", "plain", "byokg", 8),
             ("isotopes", "wikidata", "byokg", 6), ("flights", "wikidata", "byokg", 6)]


def disagreements(name: str, frontend: str, n: int, kb, on_endpoint, **settings) -> list:
    """The questions whose answer sets differ between `kb` in memory and the endpoint."""
    asked = questions(name, n)
    in_memory = api.compile_questions(asked, frontend, kb, **settings)
    there = api.compile_questions(asked, frontend, on_endpoint, **settings)
    return [(q, sorted(a.answers)[:5], sorted(b.answers)[:5], b.failure, b.error)
            for q, a, b in zip(asked, in_memory, there, strict=True)
            if set(a.answers) != set(b.answers)]


@pytest.mark.model
@pytest.mark.parametrize("case", AGREEMENT, ids=lambda c: "-".join(map(str, c)))
def test_byokg_gives_its_in_memory_answers_on_the_endpoint(case, kbs, endpoints):
    name, encoding, frontend, n = case
    assert disagreements(name, frontend, n, kbs[name],
                         endpoint_kb(endpoints, name, encoding)) == []


@pytest.mark.model
def test_byokg_compares_quantities_in_any_unit_on_the_endpoint(kbs, endpoints):
    """byokg's answers compare half-lives in seconds, days and years alike (unit conversion):
    so does the program it runs on the endpoint."""
    asked = ["Is carbon-14's half-life more than 5,000 years?",
             "Which cobalt isotopes have a half-life of more than fifty days?"]
    in_memory = list(api.compile_questions(asked, "byokg", kbs["isotopes"]))
    there = list(api.compile_questions(asked, "byokg",
                                       endpoint_kb(endpoints, "isotopes", "wikidata")))
    assert [c.answers[:1] for c in in_memory] == [("yes",), ("cobalt-56",)]
    assert [set(c.answers) for c in there] == [set(c.answers) for c in in_memory]


# (KB, questions, an answer of each in memory): the first members the endpoint lists
# of 3,252 aircraft have neither 400 seats nor more than two engines, of 772 isotopes none
# was discovered before 1915 (a key the question does not name: "discovered"), and the
# nuclides one hop from beta-minus decay that the fragment expands live less than 1000 years.
WHOLE_CONCEPT = [
    ("flights", ["Which planes have more than 400 seats?",
                 "Which aircraft have more than two engines?"], ["N670US", "N381AA"]),
    ("isotopes", ["Which isotopes were discovered before 1915?",
                  # beta-minus decay has 354 nuclides, past a hop's bound of 100
                  "Which nuclides undergo beta-minus decay and have a half-life of more than "
                  "a thousand years?"], ["helium-4", "carbon-14"]),
    # a unit said of a key whose values have none
    ("starwars", ["Which characters weigh more than 1,000 kg?"], ["Jabba Desilijic Tiure"]),
]


@pytest.mark.model
@pytest.mark.parametrize("case", WHOLE_CONCEPT, ids=lambda c: c[0])
def test_byokg_filters_a_whole_concept_by_a_number_said_on_the_endpoint(case, kbs, endpoints):
    """Members on each side of the number said join the fragment, so the filter is written
    there as in memory."""
    name, asked, held = case
    in_memory = list(api.compile_questions(asked, "byokg", kbs[name]))
    there = list(api.compile_questions(asked, "byokg", endpoint_kb(endpoints, name, "wikidata")))
    assert all(answer in c.answers for answer, c in zip(held, in_memory, strict=True))
    assert [set(c.answers) for c in there] == [set(c.answers) for c in in_memory]


@pytest.mark.model
def test_byokg_filters_a_whole_concept_by_a_string_said_on_the_endpoint(kbs, endpoints):
    """Members whose string key is a word the question says join the fragment: of 87
    characters, the one with silver skin is neither among the first the endpoint lists nor
    within 3 hops of them."""
    asked = ["Which characters have silver skin?"]
    [in_memory] = api.compile_questions(asked, "byokg", kbs["starwars"])
    [there] = api.compile_questions(asked, "byokg", endpoint_kb(endpoints, "starwars", "wikidata"))
    assert in_memory.answers == ("R4-P17",)
    assert there.answers == in_memory.answers


class _NoGrowth:
    """An endpoint whose queries for entities by a number fail (as one that times out)."""

    def __init__(self, endpoint):
        self.inner, self.name = endpoint, endpoint.name
        self.timeout, self.retries = endpoint.timeout, endpoint.retries
        self.tried: list[tuple[float, int]] = []  # (timeout, retries) of each failed query

    def select(self, query):
        if "SELECT ?entity WHERE {\n{ SELECT" in query:
            self.tried.append((self.timeout, self.retries))
            raise BackendError(f"{self.name}: no answer within 5 s (timeout)", code="timeout")
        return self.inner.select(query)

    def ask(self, query):
        return self.inner.ask(query)


@pytest.mark.model
def test_a_fragment_that_cannot_grow_by_a_number_still_answers(endpoints):
    """Choosing entities by a number is a help: its one query gets a few seconds and no
    retry, and when it fails the question goes on with the fragment it has."""
    from koplc.sparql_backend.by_number import GROWING

    kb = EndpointKB(endpoints[("flights", "wikidata")], "wikidata", cache=False)
    kb.endpoint = endpoint = _NoGrowth(kb.endpoint)
    [compiled] = api.compile_questions(["Which aircraft have more than two engines?"], "byokg", kb)
    assert endpoint.tried == [(GROWING, 0)]
    assert (endpoint.timeout, endpoint.retries) == (30.0, 2)
    assert compiled.failure != "execution" and "timeout" not in (compiled.error or "")


@pytest.mark.model
def test_llm_gives_its_in_memory_answers_on_the_endpoint(kbs, endpoints, tmp_path):
    from koplc.endpoint_mode import explored_pool_file

    on_endpoint = endpoint_kb(endpoints, "starwars", "wikidata")
    # The pool the endpoint mode explores for itself, given to both sides: what differs is
    # then only the KB the program is written on (a fragment, or the whole KB).
    pool = explored_pool_file(on_endpoint, programs=150)
    assert pool.parent == on_endpoint.folder
    assert disagreements("starwars", "llm", 5, kbs["starwars"], on_endpoint,
                         pool=str(pool), response_cache=str(tmp_path / "responses.sqlite")) == []


@pytest.mark.model
def test_the_agent_gives_its_in_memory_answers_on_the_endpoint(kbs, endpoints, tmp_path):
    """The agent (greedy, its own options given) answers on a fragment with the pool endpoint
    mode explores, as it answers in memory with that pool."""
    from koplc.endpoint_mode import explored_pool_file
    from koplc.llm.agent.frontend import AgentSettings
    from koplc.llm.agent.loop import AgentOptions

    on_endpoint = endpoint_kb(endpoints, "starwars", "wikidata")
    pool = explored_pool_file(on_endpoint, programs=150)
    greedy = AgentSettings(AgentOptions(k=1))
    [compiled] = api.compile_questions(["Where is Luke Skywalker from?"], "agent", on_endpoint,
                                       options=greedy, pool=str(pool), response_cache="off")
    assert compiled.answers == ("Tatooine",)
    assert disagreements("starwars", "agent", 3, kbs["starwars"], on_endpoint, options=greedy,
                         pool=str(pool), response_cache=str(tmp_path / "responses.sqlite")) == []


def test_the_agents_search_of_names_lists_the_whole_endpoints_names(kbs, endpoints):
    """SearchNodes on a question's fragment lists what the whole KB holds (the other species
    beside Human, not the people around it), as it does on the KB in memory."""
    from koplc.kopl.grounding.index.kb_indexes import kb_names
    from koplc.kopl.types import ArgKind
    from koplc.llm.agent.tools import Tools

    on_endpoint = endpoint_kb(endpoints, "starwars", "wikidata")
    fragment = OnEndpoint(_Inner()).fragment("Which human was born on Tatooine?", on_endpoint)
    there, here = Tools(fragment), Tools(kbs["starwars"])
    assert len(kb_names(fragment, ArgKind.ENTITY)) < len(kb_names(kbs["starwars"],
                                                                 ArgKind.ENTITY))
    for name in ("Human", "Tatooine", "a wookie", "Skywalker"):
        assert there.search_nodes(name).text == here.search_nodes(name).text
    assert there.searched.names(ArgKind.ENTITY) == kb_names(kbs["starwars"], ArgKind.ENTITY)


def test_the_agents_programs_run_on_the_whole_endpoint(kbs, endpoints, monkeypatch):
    """ExecuteKoPL on a question's fragment answers what the program gives on the whole KB (as
    in memory), its entities named even where the fragment lacks them; past the bound on
    items, the fragment's answer."""
    from koplc.llm.agent import tools as agent_tools
    from koplc.llm.agent.tools import Tools

    on_endpoint = endpoint_kb(endpoints, "starwars", "wikidata")
    fragment = OnEndpoint(_Inner()).fragment("How tall is Yoda?", on_endpoint)
    there, here = Tools(fragment), Tools(kbs["starwars"])
    programs = ["FindAll()\nCount()", "FindAll()", "Find(Chewbacca)\nRelate(homeworld, forward)",
                "FindAll()\nFilterConcept(character)\nQueryAttr(height)"]
    assert len(fragment.ids) < len(kbs["starwars"].ids)
    for program in programs:
        assert there.execute_kopl(program).text == here.execute_kopl(program).text
    monkeypatch.setattr(agent_tools, "WHOLE_ITEMS", 5)
    assert there.execute_kopl("FindAll()\nCount()").text == here.execute_kopl(
        "FindAll()\nCount()").text
    assert there.execute_kopl("FindAll()").text == Tools(fragment, backend="oxigraph") \
        .execute_kopl("FindAll()").text != here.execute_kopl("FindAll()").text


def test_the_agents_demonstrations_read_on_the_endpoint_as_in_memory(kbs, endpoints):
    """A pool demonstration about other entities than the question's is replayed once per
    endpoint, on a fragment around its own entities: its dialog reads as it does on the KB in
    memory, where on the question's fragment its steps would find other things."""
    from koplc.llm.agent.dialog import replay
    from koplc.llm.agent.replays import endpoint_replays
    from koplc.llm.agent.tools import Tools

    on_endpoint = endpoint_kb(endpoints, "starwars", "wikidata")
    fragment = OnEndpoint(_Inner()).fragment("How tall is Yoda?", on_endpoint)
    question = "Who else comes from the homeworld of Chewbacca?"
    program = ("Step 1: Find(Chewbacca)\nStep 2: Relate(homeworld, forward)\n"
               "Step 3: Relate(homeworld, backward)\nStep 4: QueryName()")
    in_memory = replay(question, program, Tools(kbs["starwars"])).text()
    replays = endpoint_replays(fragment, Tools(fragment).options)
    assert replays(question, program, ("Chewbacca",)).text() == in_memory
    assert replays(question, program, ("Chewbacca",)) is replays(question, program, ())
    assert replay(question, program, Tools(fragment)).text() != in_memory
    assert endpoint_replays(kbs["starwars"], Tools(fragment).options) is None


@pytest.mark.model
def test_koplc_compile_and_eval_take_an_endpoint_url(kbs, endpoints, tmp_path, capsys):
    from koplc.cli import main

    url = endpoints[("starwars", "wikidata")]
    question = tmp_path / "question.txt"
    question.write_text("What is the homeworld of Luke Skywalker?\n")
    assert main(["compile", str(question), "--frontend", "byokg", "--kb", url,
                 "--encoding", "wikidata", "--emit", "answer"]) == 0
    assert capsys.readouterr().out.split("\n")[0] == "Tatooine"
    data = tmp_path / "questions.jsonl"
    data.write_text(json.dumps({"question": "What is the homeworld of Luke Skywalker?",
                                "answers": ["Tatooine"]}) + "\n")
    assert main(["eval", str(data), "--frontend", "byokg", "--kb", url, "--encoding",
                 "wikidata", "--out", str(tmp_path / "report")]) == 0
    report = json.loads((tmp_path / "report" / "report.json").read_text())
    assert report["overall"]["hits@1"] == 100


def test_koplc_index_and_explore_take_an_endpoint_url(kbs, endpoints, tmp_path, capsys):
    from koplc.cli import main
    from koplc.kopl.exploration import read_pool

    url = endpoints[("starwars", "wikidata")]
    assert main(["index", url, "--encoding", "wikidata"]) == 0
    printed = dict(line.split(": ", 1) for line in capsys.readouterr().out.splitlines())
    entities = len(kbs["starwars"].entity_nodes)
    assert int(printed["names"]) == entities and Path(printed["table"]).is_file()
    pool = tmp_path / "pool.jsonl"
    assert main(["explore", url, "--encoding", "wikidata", "--programs", "20", "--quiet",
                 "--out", str(pool)]) == 0
    summary = json.loads(capsys.readouterr().out)
    entries = read_pool(pool)
    assert summary == {"pool": str(pool), "programs": len(entries)} and 0 < len(entries) <= 20
    # explored on a fragment: the programs are the KB's own and answer on the whole KB too
    kb = kbs["starwars"]
    assert all(api.run(e.steps, kb).items() for e in entries)


# A lowered query Oxigraph's server once ran out of memory on.

def test_the_oldest_of_two_named_planes_on_oxigraph_within_a_memory_cap(kbs, tmp_path):
    """ArgMax over two entities lowered its value parts as plain joins, which Oxigraph's server
    evaluated as a product of every value node with every fact (past 20 GB on the flights KB);
    under a 3 GiB cap, the server now answers as the native executor does."""
    import resource

    from koplc.kopl.execution.executor import execute
    from koplc.kopl.ir import ArgMax, Find, Or, QueryName

    kb = kbs["flights"]
    path = tmp_path / "flights.nt"
    write_ntriples(kb, encoding_named("wikidata"), path)
    subprocess.run([OXIGRAPH, "load", "--location", str(tmp_path / "db"), "--file", str(path)],
                   check=True, capture_output=True, timeout=300)
    port = free_port()
    cap = 3 * 2 ** 30
    process = subprocess.Popen(
        [OXIGRAPH, "serve-read-only", "--location", str(tmp_path / "db"), "--bind",
         f"127.0.0.1:{port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True, preexec_fn=lambda: resource.setrlimit(
            resource.RLIMIT_AS, (cap, cap)))
    url = f"http://127.0.0.1:{port}/query"
    try:
        _wait_for(url, process)
        program = QueryName(input=ArgMax(input=Or(left=Find(name="N8329B"),
                                                  right=Find(name="N14228")), key="year_built"))
        on_endpoint = EndpointKB(url, "wikidata", cache=False, timeout=120, retries=0)
        assert on_endpoint.run(program) == [str(x) for x in execute(program, kb).items()]
        assert process.poll() is None  # the server lives on
    finally:
        os.kill(process.pid, signal.SIGTERM)
        process.wait(timeout=30)
