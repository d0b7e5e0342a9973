"""Rebuild sparql_backend/kb_profiles.py: the shape of two real KBs that `koplc kb generate`
scales up (its schema, degree distributions, value ranges, qualifiers, shared names).

    .venv/bin/python tools/kb_profile.py [DATA_FOLDER]

DATA_FOLDER (default: ../shared/data beside the checkout) holds metaqa/full/kb.txt (MetaQA's
movie KB, pipe triples, read under koplc's metaqa schema) and kopl/example_kb_ext.json (the
KoPL example KB, extended). Per KB: each concept's entity count and parent; per relation its
subject and object concept, the share of subjects with k facts (k = 0, 1, ...), how skewed its
objects' in-degrees are and its qualifiers; per attribute its type, unit, range or values.

MetaQA has no units, dates, qualifiers, aliases, and names its entities by their string (so no
two share a name): its profile takes those from the KoPL example (a person gets its athletes'
dated and measured attributes, relation statements its share of qualified statements, and
its share of entities that share a name), as `ADDED_FROM_KOPL` says.
"""

from __future__ import annotations

import json
import math
import pprint
import sys
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "sparql_backend" / "kb_profiles.py"
TOP = 0.01  # the share of most-linked objects whose share of facts measures the skew

METAQA_OBJECTS = {"directed_by": "person", "written_by": "person", "starred_actors": "person",
                  "has_tags": "tag", "has_genre": "genre", "in_language": "language"}
METAQA_ATTRIBUTES = {"release_year": "year", "has_imdb_rating": "string",
                     "has_imdb_votes": "string"}
# How the generator makes up a concept's names: a person's, a title, else one made-up word.
NAME_STYLES = {"person": "person", "basketball player": "person", "movie": "title",
               "basketball team": "title"}
ADDED_FROM_KOPL = {"person": ("height", "date of birth", "sex or gender")}


def degree(counts: list[int]) -> dict[int, float]:
    """The share of subjects with k facts, for each k seen."""
    histogram = Counter(counts)
    return {k: round(n / len(counts), 6) for k, n in sorted(histogram.items())}


def skew(in_degrees: list[int]) -> float:
    """Exponent a such that drawing object floor(n * u**a), u uniform, gives the top objects
    the share of facts they have: the top fraction p gets p ** (1/a)."""
    ranked = sorted(in_degrees, reverse=True)
    top = max(1, math.ceil(TOP * len(ranked)))
    share = sum(ranked[:top]) / sum(ranked)
    if share >= 1 or top == len(ranked):
        return 1.0
    return round(math.log(top / len(ranked)) / math.log(share), 4)


def metaqa(path: Path) -> dict:
    facts: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for line in path.open(encoding="utf-8"):
        s, r, o = line.rstrip("\n").split("|")
        facts[r][s].append(o)
    movies = sorted({s for by_subject in facts.values() for s in by_subject})
    members: dict[str, set[str]] = defaultdict(set)
    for r, concept in METAQA_OBJECTS.items():
        for objects in facts[r].values():
            members[concept].update(objects)
    relations = {}
    for r, concept in METAQA_OBJECTS.items():
        in_degree = Counter(o for objects in facts[r].values() for o in objects)
        relations[r] = {"subject": "movie", "object": concept,
                        "degree": degree([len(facts[r].get(m, ())) for m in movies]),
                        "skew": skew(list(in_degree.values())), "qualified": 0.0,
                        "qualifiers": {}}
    attributes = {}
    for r, kind in METAQA_ATTRIBUTES.items():
        values = [o for objects in facts[r].values() for o in objects]
        entry = {"subject": "movie", "type": kind, "unit": None,
                 "degree": degree([len(facts[r].get(m, ())) for m in movies]),
                 "qualified": 0.0, "qualifiers": {}}
        if kind == "year":
            entry["range"] = [min(map(int, values)), max(map(int, values))]
        else:
            entry["values"] = dict(Counter(values).most_common())
        attributes[r] = entry
    concepts = {"movie": {"entities": len(movies), "parent": None}}
    concepts.update({c: {"entities": len(members[c]), "parent": None}
                     for c in sorted(members)})
    return {"source": "MetaQA's movie KB (full/kb.txt) under koplc's metaqa schema",
            "source_triples": sum(len(o) for by in facts.values() for o in by.values()),
            "concepts": concepts, "relations": relations, "attributes": attributes}


def _value_shape(values: list[dict]) -> dict:
    kind = values[0]["type"]
    unit = Counter(v.get("unit") for v in values).most_common(1)[0][0]
    values = [v for v in values if v.get("unit") == unit]  # a range in one unit
    shape: dict = {"type": kind, "unit": unit}
    if kind in ("quantity", "year"):
        numbers = [float(v["value"]) for v in values]
        shape["range"] = [min(numbers), max(numbers)]
    elif kind == "date":
        shape["range"] = [min(v["value"] for v in values), max(v["value"] for v in values)]
    else:
        shape["values"] = dict(Counter(v["value"] for v in values).most_common())
    return shape


def kopl_example(path: Path) -> dict:
    kb = json.loads(path.read_text(encoding="utf-8"))
    names = {c: v["name"] for c, v in kb["concepts"].items()}
    entities = kb["entities"]

    def concept_of(e: str) -> str | None:
        kinds = entities[e]["instanceOf"] if e in entities else []
        return names[kinds[0]] if kinds else None

    members = Counter(concept_of(e) for e in entities)
    concepts = {names[c]: {"entities": members.get(names[c], 0),
                           "parent": names[v["subclassOf"][0]] if v["subclassOf"] else None}
                for c, v in kb["concepts"].items()}
    concepts["(no concept)"] = {"entities": members.get(None, 0), "parent": None}
    relations: dict[str, dict] = {}
    attributes: dict[str, dict] = {}
    statements: dict[str, list[dict]] = defaultdict(list)
    for e, entity in entities.items():
        for r in entity["relations"]:
            if r["direction"] == "forward" and r["object"] in entities:
                statements[("relation", r["relation"])].append({"subject": e, **r})
        for a in entity["attributes"]:
            statements[("attribute", a["key"])].append({"subject": e, **a})
    for (kind, name), found in statements.items():
        subject = concept_of(found[0]["subject"]) or "(no concept)"
        population = [e for e in entities if (concept_of(e) or "(no concept)") == subject]
        per_subject = Counter(s["subject"] for s in found)
        qualifiers: dict[str, list] = defaultdict(list)
        for s in found:
            for key, values in s["qualifiers"].items():
                qualifiers[key].extend(values)
        entry = {"subject": subject,
                 "degree": degree([per_subject.get(e, 0) for e in population]),
                 "qualified": round(sum(1 for s in found if s["qualifiers"]) / len(found), 6),
                 "qualifiers": {k: _value_shape(v) for k, v in sorted(qualifiers.items())}}
        if kind == "relation":
            in_degree = Counter(s["object"] for s in found)
            entry.update(object=concept_of(found[0]["object"]) or "(no concept)",
                         skew=skew(list(in_degree.values())))
            relations[name] = entry
        else:
            entry.update(_value_shape([s["value"] for s in found]))
            attributes[name] = entry
    labels = Counter(e["name"] for e in entities.values())
    return {"source": "the KoPL example KB (example_kb_ext.json)",
            "source_triples": sum(len(v) for v in statements.values()),
            "concepts": concepts, "relations": relations, "attributes": attributes,
            "colliding": round(sum(n for n in labels.values() if n > 1) / len(entities), 6)}


def add_from_kopl(profile: dict, kopl: dict) -> dict:
    """MetaQA's profile with the KoPL example's units, dates, qualifiers and shared names."""
    athlete = next(c for c, v in kopl["concepts"].items() if v["parent"] == "athlete")
    for concept, keys in ADDED_FROM_KOPL.items():
        for key in keys:
            entry = dict(kopl["attributes"][key])
            profile["attributes"][key] = {**entry, "subject": concept, "qualifiers": {},
                                          "qualified": 0.0}
    assert all(kopl["attributes"][k]["subject"] == athlete for k in ADDED_FROM_KOPL["person"])
    relation_statements = [v for v in kopl["relations"].values()]
    share = sum(v["qualified"] for v in relation_statements) / len(relation_statements)
    dated = kopl["relations"]["drafted by"]["qualifiers"]["point in time"]
    for entry in profile["relations"].values():
        entry["qualified"] = round(share, 6)
        entry["qualifiers"] = {"point in time": {**dated, "type": "year",
                                                 "range": [1900.0, 2020.0]}}
    profile["colliding"] = kopl["colliding"]
    profile["source"] += (f"; units, dates, qualifiers and shared names from "
                          f"{kopl['source']}: {sorted(ADDED_FROM_KOPL['person'])} of its "
                          f"'{athlete}', its share of qualified relation statements and of "
                          "entities that share a name")
    return profile


def main(argv: list[str]) -> int:
    data = Path(argv[0]) if argv else REPO.parent / "shared" / "data"
    kopl = kopl_example(data / "kopl" / "example_kb_ext.json")
    profiles = {"metaqa": add_from_kopl(metaqa(data / "metaqa" / "full" / "kb.txt"), kopl),
                "kopl-example": kopl}
    for profile in profiles.values():
        for name, concept in profile["concepts"].items():
            concept["names"] = NAME_STYLES.get(name, "word")
    OUT.write_text('"""The shape of real KBs that `koplc.sparql_backend.generate` scales up\n'
                   '(written by tools/kb_profile.py; each profile names its source)."""\n\n'
                   f"PROFILES = {pprint.pformat(profiles, width=99, sort_dicts=False)}\n",
                   encoding="utf-8")
    sys.stdout.write(f"wrote {OUT}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
