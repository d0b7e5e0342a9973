"""BYOKG's bottom-up reasoner as a front end: from the question's linked entities, grow
programs one op at a time, keeping only expansions the KB answers (non-empty, as in Pangu).
Each step keeps the k programs that fit the question best: the MiniLM cosine of their
canonical questions (the explorer's verbaliser, entities masked) with it, and the word-level
terms of llm/byokg/fit.py (coverage, answer type, word order, a cost per hop); with
`lm_weight`, the LM's log-probability of each shortlisted program's new line (after the prompt
of instructions, catalogue, retrieved pool demonstrations and the question) joins that score.
The best finished programs are rescored by fit + α · log P(program | prompt) + (1 − α) ·
inverse consistency.

Why the fit prunes rather than the LM alone: with Gemma 3 270M on 2 cores one line's
log-probability costs about 90 ms (262k-token output layer per position), and a step grows
10 programs into some 200 admissible ones; MiniLM reads 60 readings in 0.1 s, and masked
readings recur from question to question, so most come from its cache."""

from __future__ import annotations

import math
import random
import re
import time
from collections import Counter
from dataclasses import dataclass, replace
from functools import cached_property
from itertools import permutations

from koplc.kopl.answering.asked_quantity import (
    answer_dimension,
    asked_dimensions,
    other_quantity,
)
from koplc.kopl.answering.linking import (
    NOTHING_LINKS,
    concept_starts,
    link_question,
    meant_senses,
    nothing_linked,
    said_concepts,
)
from koplc.kopl.answering.meant_values import values_say
from koplc.kopl.answering.per_kb import PerKB
from koplc.kopl.answering.stages import timed
from koplc.kopl.answering.thing_kinds import SAMPLE, of_kind, side_kind, value_sides
from koplc.kopl.datasets.metaqa import lexicon_for
from koplc.kopl.errors import KoplcError
from koplc.kopl.execution.executor import CONVERTING, execute
from koplc.kopl.execution.judge import find_names
from koplc.kopl.exploration.readings import canonical_question
from koplc.kopl.frontend import Compiled, Provenance, Settings
from koplc.kopl.grounding.mentions import Linked
from koplc.kopl.ir import (
    And,
    Count,
    FilterConcept,
    Find,
    FindAll,
    Node,
    QueryName,
    Relate,
)
from koplc.kopl.lexicon import ExtraWords, asks_how_many, plural, singular
from koplc.kopl.relatives import schema_relatives, shared_kind
from koplc.kopl.syntax import steps as steps_syntax
from koplc.llm.byokg import fit
from koplc.llm.byokg.lacking import LACKING, lacking_programs
from koplc.llm.byokg.ops import (
    Cues,
    answer_kind,
    constraints,
    cues,
    in_unit_asked,
    of_kind_asked,
    offered,
    pair_ops,
    picked_one,
    relation_qualifiers,
    strings_left_out,
)
from koplc.llm.byokg.space import FINISHING, admissible, expansions, fits
from koplc.llm.byokg.starts import kind_starts, open_starts, starts_unnamed
from koplc.llm.lm.scoring import inverse_consistency
from koplc.llm.symkgqa.demos import Demo, DemoSelector, calls_of
from koplc.llm.symkgqa.prompt import PromptBuilder


@dataclass(frozen=True)
class ByokgOptions:
    """The search's knobs. With `rerank`, the LM rescores the best finished programs
    (BYOKG's inverse-consistency rerank); it is off by default, since on MetaQA dev the 270M
    embedded model's rescoring never righted a program the fit ranked wrong and wronged 4 of
    the first 100 at 3 hops (README), but a stronger LM (`--lm URL`) may do better. `demos` is
    "retrieved", "random" or "none" (zero-shot): the rerank's prompt's demonstrations.
    `coverage`, `type_weight`, `order_weight`, `hop_cost`, `entity_cost` and `number_cost`
    weigh the terms of a program's fit (Reasoner.nearness); below `min_fit` for every
    program, the question is taken to ask for something the KB lacks, unless the best program
    joins every entity it names, two or more (`joins_all`), or gives the things a name written
    in the plural stands for (`plural_name_answered`) (set on the development KBs' tune
    sets, the second written after the first had been worked on: the best of the thresholds
    from 0.9 to 1.2; all 900 MetaQA dev questions fit at 1.21 or more). `loop_cost`: a
    relation followed and straight back that no question word says costs this much where the
    question says it asks for what shares a fact (`ops.Cues.sameness`), and rules the
    program out elsewhere. `unknown_type`: the answer type's match, as a share of
    `type_weight`, for a program whose answers nothing names (no concept holds them, as in a
    KB with none; a relation followed backward names what it starts from only when it is a
    family tie): neither matched nor not (set on the development KBs' tune sets, with and
    without their concepts)."""

    beam: int = 10
    max_steps: int = 4
    alpha: float = 0.5
    rerank: bool = False
    shortlist: int = 12
    rescored: int = 3
    lm_weight: float = 0.0
    coverage: float = 1.0
    type_weight: float = 0.5
    hop_cost: float = 0.06
    order_weight: float = 0.06
    min_fit: float = 1.0
    entity_cost: float = 0.7
    number_cost: float = 0.3
    unsure_cost: float = 0.05
    loop_cost: float = 0.2
    unknown_type: float = 0.5
    demos: str = "retrieved"
    n_demos: int = 4
    seed: int = 0


@dataclass(frozen=True)
class Candidate:
    """A program of the search: its calls, what it answers, how near its canonical question
    is to the asked one, and the LM's scores."""

    node: Node
    text: str
    answer: tuple[str, ...]
    finished: bool
    near: float = 0.0
    lm: float = 0.0
    score: float = 0.0


def _text(node: Node) -> str:
    return calls_of(steps_syntax.print_program(node))


def reading(node: Node, entities: tuple[str, ...], nouns=None) -> str:
    """The program's canonical question (the explorer's verbaliser, entity sets named by
    `nouns`), an unfinished one asked for its names, with the question's entities masked as
    ENT, like the masked question."""
    if node.op == "Count" and node.input.op == "And" and node.input.left == node.input.right:
        node = Count(input=node.input.left)  # a set met with itself, to count each once
    text = canonical_question(node if node.op in FINISHING else QueryName(input=node), nouns)
    for name in sorted(entities, key=len, reverse=True):
        text = text.replace(name, "ENT")
    return text


def concept_noun(kb, node: Node, sample: int = 100) -> str | None:
    """The plural name of the concept (direct or inherited) holding the most of the first
    `sample` entities `node` gives, when it holds at least half (None for values, or no such
    concept)."""
    concept = concept_of(kb, node, sample)
    return plural(concept) if concept else None


def concept_of(kb, node: Node, sample: int = 100) -> str | None:
    """The name of the concept `concept_noun` reads, in the singular."""
    try:
        answer = execute(node, kb, CONVERTING)
    except KoplcError:
        return None
    ids = list(answer.entity_ids or ())[:sample] if answer.is_entities else []
    counts = Counter(c for i in ids for c in kb.ancestors(kb.id_to_node[i]))
    if not counts:
        return None
    n = max(counts.values())
    # Of concepts holding as many, the most general (then by name): the choice must not
    # hang on how the KB numbers its concepts (a fragment of an endpoint numbers them anew).
    concept = min((c for c, held in counts.items() if held == n),
                  key=lambda c: (len(kb.ancestors(c)), kb.names[c]))
    return kb.names[concept] if 2 * n >= len(ids) else None


@dataclass(frozen=True)
class Asked:
    """What programs are compared with, worked out once a question: the linked question, the
    MiniLM vector of its masked text, its content words (fit.question_words) and the type it
    asks for (fit.asked_type)."""

    linked: Linked
    vector: object
    words: tuple[str, ...]
    type: str | None
    cue: Cues
    """What the question's words ask for (`ops.cues`), with the numbers it states."""
    lexicon: ExtraWords
    """The KB's words with the question's own senses of the concepts it means (`meant_senses`)."""
    counted: str | None = None
    """The noun a "how many" question counts (`fit.counted_noun`)."""
    kind_named: bool = False
    """Whether it asks for things of a kind it names by an entity (`fit.kind_named`)."""
    possessives: int = 0
    """How many things a possessive chain names one after another (`fit.possessives`)."""
    as_subject: str | None = None
    """The noun it asks for where that is its verb's subject (`fit.asked_as_subject`)."""


class Reasoner:
    """The per-KB part: prompt prefix, demonstration selector and the readings' vectors."""

    def __init__(self, kb, lm, demos, options: ByokgOptions):
        from koplc.kopl.grounding.index.embedder import READINGS_EMBEDDER

        self.kb, self.lm, self.options = kb, lm, options
        # A dataset's words, for its own KB, WordNet's relatives of the KB's schema words
        # and the attributes that a relation's values say ("Small", "Large": a size)
        self.words = lexicon_for(kb).with_relatives(schema_relatives(kb)).with_relatives(
            values_say(kb))
        self.pool = demos
        self.selector = DemoSelector(demos) if demos and options.demos == "retrieved" else None
        self.embedder = READINGS_EMBEDDER
        self._nouns: dict[str, str | None] = {}

    @cached_property
    def builder(self) -> PromptBuilder:
        """The prompt's builder, made when an LM first needs a prompt (on a fragment of an
        endpoint's KB, it reads the endpoint's whole schema)."""
        return PromptBuilder.for_kb(self.kb, self.lm)

    def noun(self, node: Node) -> str | None:
        """What most entities of `node`'s answer are, plural ("elements"), when a concept holds
        at least half of them; None otherwise."""
        concept = self._concept(node)
        return plural(concept) if concept else None

    def kind(self, node: Node) -> str | None:
        """`noun`, or in a KB with no concepts, what WordNet says most of the first 100 of
        `node`'s answers are by their names (`relatives.shared_kind`: "countries"), plural;
        none for values (`thing_kinds.value_sides`) a Relate reaches, past any filter."""
        noun = self.noun(node)
        if noun or self.kb.n_concepts:
            return noun
        base = node
        while base.op.startswith(("Filter", "QFilter")) and base.op != "FilterConcept":
            base = base.input
        if base.op == "Relate" and (base.relation, base.direction) in value_sides(self.kb):
            return None  # a diet "carnivore" is no animal
        key = "kind:" + node.model_dump_json()
        if key not in self._nouns:
            try:
                answer = execute(node, self.kb, CONVERTING)
            except KoplcError:
                answer = None
            ids = list(answer.entity_ids or ())[:SAMPLE] if answer and answer.is_entities else []
            kb = self.kb
            self._nouns[key] = shared_kind([kb.names[kb.id_to_node[i]] for i in ids])
        return plural(self._nouns[key]) if self._nouns[key] else None

    def returned(self, node: Node, asked: str | None) -> tuple:
        """What a finished program returns, in words (`fit.answer_types`); in a KB with no
        concepts, also by what WordNet says its answers are (`kind`), the names saying more,
        and the kind of the relation's side they are (`_side_kind`: "airlines", which most
        of the names say) where that is the kind asked: a match, never a miss."""
        found = fit.answer_types(node, self.noun, asked)
        if self.kb.n_concepts:
            return found
        found = (*found, *fit.answer_types(node, self.kind, asked))
        side = self._side_kind(node)
        if side and asked and of_kind(asked, side):  # said by names alone: a match, never a miss
            found = (*found, plural(side))
        return tuple(dict.fromkeys(found))

    def _side_kind(self, node: Node) -> str | None:
        """The kind of the side of a relation (`thing_kinds.side_kind`) whose things a finished
        program's answers are, past the names, any filter, a pick and the set met with itself
        (each thing once)."""
        while node.op in ("QueryName", "ArgMax", "ArgMin", "And") or (
                node.op.startswith(("Filter", "QFilter")) and node.op != "FilterConcept"):
            if node.op == "And" and node.left != node.right:
                return None
            node = node.left if node.op == "And" else node.input
        return side_kind(self.kb, node.relation, node.direction) if node.op == "Relate" else None

    def _concept(self, node: Node) -> str | None:
        """`concept_of` the answer of `node`; of a Relate, of the relation's range from the
        members of its input's concept (from everything when that has none), which no name
        clash can skew and a relation that links several concepts ("parent taxon": a mammal's
        genus, a genus's order) does not blur."""
        if node.op == "Relate":
            start = self._concept(node.input)
            node = Relate(input=FilterConcept(input=FindAll(), concept=start) if start
                          else FindAll(), relation=node.relation, direction=node.direction)
        key = node.model_dump_json()
        if key not in self._nouns:
            self._nouns[key] = concept_of(self.kb, node)
            if len(self._nouns) > 100_000:
                self._nouns.clear()
        return self._nouns[key]

    def _measures(self, node: Node) -> bool:
        """Whether `node` answers a quantity's value."""
        return node.op == "QueryAttr" and self.kb.key_type.get(node.key) == "quantity"

    def entity_nouns(self, names: tuple[str, ...]) -> list[str]:
        """The names of the concepts (direct or inherited) of the entities called `names`."""
        kb = self.kb
        return sorted({kb.names[c] for name in names for node in kb.name_to_nodes.get(name, ())
                       for c in kb.ancestors(node)})

    def demos_for(self, linked: Linked) -> list:
        if self.options.demos == "none" or not self.pool:
            return []
        if self.options.demos == "random":
            rng = random.Random(f"{self.options.seed}:{linked.question}")
            return rng.sample(self.pool, min(self.options.n_demos, len(self.pool)))
        return self.selector.nearest(linked.masked(), self.options.n_demos)

    def asked(self, linked: Linked) -> Asked:
        """The question as `nearness` compares programs with it."""
        encode = self.embedder.encode_queries
        masked = fit.possessives_spelt_out(fit.unglossed(linked.masked()))
        said = fit.question_words(fit.chain_as_of(masked), self.entity_nouns(linked.entities),
                                  encode)
        return Asked(linked, encode([masked])[0], tuple(said), fit.asked_type(masked),
                     cues(linked.question, linked.spans),
                     self.words.with_relatives(meant_senses(linked)), fit.counted_noun(masked),
                     fit.kind_named(masked), fit.possessives(masked),
                     fit.asked_as_subject(masked))

    def search(self, linked: Linked, prompt: str) -> list[Candidate]:
        """The finished programs, best first. Each step grows every program of the beam by each
        admissible op; the `shortlist` that fit the question best (`nearness`) get the LM's
        log-probability of their new line after the prompt and their parent's lines (with
        `lm_weight`), and the best `beam` go on. Count is tried only when the question asks
        how many."""
        opts, topics = self.options, set(linked.entities)
        question = self.asked(linked)
        cue = question.cue
        starts = ([Find(name=e) for e in linked.entities]
                  or concept_starts(self.kb, linked.question)
                  or [FilterConcept(input=FindAll(), concept=c) for c in linked.concepts]
                  or open_starts(self.kb, cue) or kind_starts(self.kb, linked))
        concepts = tuple(dict.fromkeys((*linked.concepts, *said_concepts(self.kb,
                                                                        linked.question))))
        beam = [Candidate(n, _text(n), (), False) for n in starts]
        if self.options.lm_weight:
            beam = [replace(c, lm=self.lm.score(prompt, c.text + "\n")) for c in beam]
        finished = self._pairs(linked, question)
        counts, size = asks_how_many(linked.question), max(len(linked.question), 1)
        for step in range(opts.max_steps):
            grown = []
            for parent in beam:
                for child in expansions(parent.node, self.kb, concepts, cue, linked.entities):
                    done = child.op in FINISHING
                    if (step == opts.max_steps - 1 and not done) or not fits(
                            child, counts, self.kb, linked.question):
                        continue
                    answer = admissible(child, self.kb, topics)
                    if answer is None and child.op == "Count":
                        child = self.distinct(child)
                        answer = child and admissible(child, self.kb, topics)
                    if answer is not None:
                        grown.append((parent, Candidate(child, _text(child), answer, done)))
            if not grown:
                break
            nears = self.nearness([c.node for _, c in grown], question)
            grown = sorted(((p, replace(c, near=near)) for (p, c), near in zip(
                grown, nears, strict=True)), key=lambda pc: -pc[1].near)[:opts.shortlist]
            scored = []
            for parent, c in grown:
                lm = parent.lm
                if opts.lm_weight:
                    end = "\n\n" if c.finished else "\n"
                    lm += self.lm.score(prompt + parent.text + "\n",
                                        c.text[len(parent.text) + 1:] + end)
                scored.append(replace(c, lm=lm, score=c.near + opts.lm_weight * lm / size))
            finished += [c for c in scored if c.finished]
            beam = sorted((c for c in scored if not c.finished), key=lambda c: -c.score
                          )[:opts.beam]
        finished = picked_one(cue, offered(cue, answer_kind(
            cue, finished, lambda c: c.node, self.kb), lambda c: c.answer), lambda c: c.answer)
        finished = of_kind_asked(cue, finished, lambda c: c.node, lambda c: c.answer, self.kb)
        if plural_name_asked(linked) is not None:  # things by name: no value, no count
            finished = [c for c in finished if c.node.op != "Count"
                        and not c.node.op.startswith("QueryAttr")] or finished
        # Each number or string value the question states that a program leaves out costs
        # `number_cost`; "not sure" decides nothing: a program answering it gives way to one
        # that decides and fits within `unsure_cost` (its values of a key both pass and fail
        # the test).
        finished = [replace(c, score=c.score
                            - opts.number_cost * (fit.values_used(c.node, cue.stated)[0]
                                                  + strings_left_out(c.node, self.kb, cue))
                            - opts.unsure_cost * (c.answer == ("not sure",)))
                    for c in finished]
        return sorted(finished, key=lambda c: -c.score)[:opts.beam]

    def distinct(self, count: Count) -> Count | None:
        """A count of the different things a relation reaches, where `count` counts its facts
        (one a fact: "how many different automakers build a minivan" counts each maker once):
        the count of them kept to their concept, which holds each once, or in a KB with no
        concepts, of their And with themselves, a set (None when they have no concept, or
        `count` counts no relation's reach)."""
        if count.input.op != "Relate":
            return None
        if not self.kb.n_concepts:  # no concept to keep them to: the set met with itself
            return Count(input=And(left=count.input, right=count.input))
        if (concept := self._concept(count.input)) is None:
            return None
        return Count(input=FilterConcept(input=count.input, concept=concept))

    def _pairs(self, linked: Linked, question: Asked) -> list[Candidate]:
        """The finished programs over two named entities (their relation, which has the
        greater quantity when the question compares, what both constrain), with their
        nearness."""
        found, topics, order = [], set(linked.entities), linked.entities.index
        cue = question.cue
        for a, b in permutations(offered_pair(linked) or linked.entities[:3], 2):
            # a yes/no question asks of the entity it names first ("is Luke heavier than Vader")
            asked = not cue.yes_no or order(a) < order(b)
            made = [(node, set()) for node in (
                *(pair_ops(Find(name=a), Find(name=b), self.kb, cue) if asked else ()),
                *relation_qualifiers(Find(name=a), Find(name=b), self.kb))]
            if a < b:  # And is symmetric: one order of the two names
                made += [(node, topics) for node in constraints(a, b, self.kb, cue)]
            for node, own in made:
                answer = admissible(node, self.kb, own)
                if answer is not None:
                    found.append(Candidate(node, _text(node), answer, True))
        if not found:
            return []
        nears = self.nearness([c.node for c in found], question)
        return [replace(c, near=near, score=near) for c, near in zip(found, nears, strict=True)]

    def demonstrations(self, linked: Linked, found: list[Candidate], n: int,
                       within: float = 0.15) -> list[Demo]:
        """At most `n` of the search's programs `found` that fit the question best, within
        `within` of the best fit, each as a demonstration on the question's own entities (its
        canonical question and steps), the best last: what the LLM front end's prompt shows
        with `demos="searched"` (a 270M model copies a worse program shown beside the best)."""
        shown = []
        for c in [c for c in found if c.near >= found[0].near - within][:n]:
            shown.append(Demo(canonical_question(c.node, self.noun), find_names(c.node),
                              steps_syntax.print_program(c.node)))
        return shown[::-1]

    def nearness(self, nodes: list[Node], question: Asked) -> list[float]:
        """How well each program fits the question (llm/byokg/fit.py): the MiniLM cosine of
        its masked canonical question with the masked question, plus `coverage`
        times the word-level coverage, `order_weight` times the word order's agreement and
        `type_weight` times the answer type's match (a quantity's value answers "how many"; the
        members of an entity that names the kind asked for match it, `_of_kind`), less `hop_cost` for each relation
        followed, `entity_cost` for each entity of the question it leaves out and for each
        thing of a possessive chain it reads no step for (`fit.possessives`), and
        `number_cost` for each value it states that the question does not (`fit.values_used`;
        a stated number left out costs in `search`'s ranking only: no program of the KB may
        use it, "two protons", and a fit is also what the refusal reads). A program that
        follows a relation straight back where the question never says it
        (`fit.unsaid_loops`) fits not at all (one that follows none costs `loop_cost` where the
        question asks for what shares a fact with a thing, `fit.asks_shared`), nor does one
        whose answers are what a relation reaches from the things the asked noun names
        (`fit.asks_doer`)."""
        opts, encode = self.options, self.embedder.encode_queries
        readings = [reading(n, question.linked.entities, self.noun) for n in nodes]
        scores = []
        # the noun naming the answers names no relation followed out and back ("Which planes
        # have ..." is no "the planes of an aircraft type")
        answers_named = {singular(w) for w in (question.type, question.counted)
                         if w and " " not in w}
        loop_words = [w for w in question.words if singular(w) not in answers_named]
        shared = fit.asks_shared(question.linked.question)
        for node, text, vector in zip(nodes, readings, encode(readings), strict=True):
            unsaid = fit.unsaid_loops(node, loop_words, encode, question.lexicon)
            if (unsaid and not question.cue.sameness) or (
                    question.cue.graded and not fit.graded_agrees(node, _graded(question.cue),
                                                                  encode)):
                scores.append(-math.inf)  # no program: it reads what the question never says
                continue
            similarity = fit.similarity(list(question.words), fit.content_words(text), encode,
                                        question.lexicon)
            unused = fit.names_left_out(node, question.linked.entities)
            _, unmatched = fit.values_used(node, question.cue.stated)
            short = max(0, question.possessives - fit.steps(node))  # a thing said, not read
            score = (float(vector @ question.vector) - opts.hop_cost * fit.hops(node)
                     - opts.loop_cost * unsaid
                     - opts.entity_cost * (unused + short) - opts.number_cost * unmatched
                     + opts.coverage * fit.coverage(similarity)
                     + opts.order_weight * fit.order(similarity))
            if shared and not fit.looped(node):
                score -= opts.loop_cost  # "the same club as ENT": no program that says it
            returned = self.returned(node if node.op in FINISHING else QueryName(input=node),
                                     question.type)
            asked = question.type
            if question.type == "number" and self._measures(node):
                returned = ("number",)  # "how many engines": a quantity's value is a number
            elif in_unit_asked(self.kb, node, question.type):
                returned = (question.type,)  # "what percent": a value kept in percent
            elif node.op == "Count" and question.counted:
                # "how many orders of mammals": what is counted, as a name question's answers
                asked = question.counted
                returned = self.returned(QueryName(input=node.input), asked)
            final = node.input if node.op == "Count" else node
            if node.op == "Count" and question.kind_named:  # "how many bats": Chiroptera's
                if not unused and self._of_kind(node, question.linked.entities):
                    score += opts.type_weight
            elif asked and fit.asks_doer(final, asked):
                score = -math.inf  # "which players ...": the clubs they play in are not asked
            elif (question.as_subject and node.op == "QueryAttr"
                  and not fit.names_noun(node.key, question.as_subject)):
                pass  # "which series premiered ...": the series, no value of theirs
            elif opts.type_weight and asked and returned:
                score += opts.type_weight * max(fit.type_match(asked, r, encode,
                                                               question.lexicon)
                                                for r in returned)
            elif (question.kind_named and not unused
                  and self._of_kind(node, question.linked.entities)):
                score += opts.type_weight  # "the lightest ENT" (rodent): one of Rodentia's
            elif asked and not returned:  # no concept, no name: neither matched nor not
                score += opts.type_weight * opts.unknown_type
            scores.append(score)
        return scores

    def _of_kind(self, node: Node, entities: tuple[str, ...]) -> bool:
        """Whether `node` answers from things of the kind an entity of `entities` names
        (`fit.members_of_named`), down to the last level: the relation reaches on from none of
        them ("which primates": the species under Primates, not its genera)."""
        down = fit.members_of_named(node, entities)
        if down is None:
            return False
        try:
            ids = execute(down, self.kb, CONVERTING).entity_ids or ()
        except KoplcError:
            return False
        kb = self.kb
        onward = (kb.out_objects if down.direction == "forward" else kb.in_objects).get(
            down.relation, {})
        return not any(kb.id_to_node[i] in onward for i in ids)

    def keeps_form(self, node: Node, best: Node, question: Asked) -> bool:
        """Whether the search's rules of the question's form (`ops.answer_kind`) keep `node`,
        another front end's program, beside the search's `best`: a question that says a
        qualifier's name asks for the qualifier, not the plain attribute."""
        return node in answer_kind(question.cue, [node, best], lambda n: n, self.kb)

    def fit_beside(self, node: Node, best: Node, question: Asked) -> float:
        """How well `node`, another front end's program, fits the question as the search
        measures it; -inf where the search's rules of the question's form would drop it
        beside the search's `best` (`keeps_form`)."""
        if not self.keeps_form(node, best, question):
            return float("-inf")
        return self.nearness([node], question)[0]

    def refuses(self, linked: Linked, found: list[Candidate], node: Node) -> bool:
        """Whether the search's refusal holds for `node`, another front end's program: no
        program the search `found` fits the question as well as `min_fit`, nor does `node`,
        and `node` neither joins every entity the question names (`joins_all`) nor gives the
        things a plural name stands for (`plural_name_answered`)."""
        if self.fits(found) or joins_all(node, linked) or plural_name_answered(node, linked):
            return False
        return self.nearness([node], self.asked(linked))[0] < self.options.min_fit

    def lacking(self, linked: Linked, best: float, question: Asked | None = None) -> str | None:
        """Why nothing is found when the question names one entity and asks for a fact the KB
        holds for things like it but not for it (koplc.llm.byokg.lacking): a program asking
        for that fact fits the question `LACKING` or more above `best`, the best fit of a
        program that answers; None otherwise. `question`: `asked(linked)`, when worked out."""
        if len(linked.entities) != 1:
            return None
        entity = linked.entities[0]
        concept = self._concept(Find(name=entity))
        programs = lacking_programs(self.kb, entity, concept)
        if not programs:
            return None
        nears = self.nearness(programs, question or self.asked(linked))
        near, program = max(zip(nears, programs, strict=True), key=lambda pair: pair[0])
        if near < best + LACKING:
            return None
        fact = program.key if program.op == "QueryAttr" else program.input.relation
        things = plural(concept) if concept else f"things like {entity!r}"
        return f"nothing found: the KB holds {fact!r} for {things} but not for {entity!r}"

    def unfit(self, linked: Linked, found: list[Candidate], node: Node) -> str | None:
        """Why nothing is found for `node`, another front end's program, as `--frontend byokg`
        says for the same question: no program fits (`refuses`), or one asking for a fact the
        entity lacks fits clearly better than any that answers, `node` included
        (`lacking_beside`); None when neither holds."""
        if self.refuses(linked, found, node):
            return ("nothing found: neither the program written nor any the search found "
                    f"fits the question (fit below {self.options.min_fit}); the KB may not "
                    "hold what it asks")
        other = other_quantity(node, self.kb, asked_dimensions(linked.question, linked.masked()))
        return other or self.lacking_beside(linked, found, node)

    def of_quantity_asked(self, linked: Linked,
                          found: list[Candidate]) -> tuple[list[Candidate], str | None]:
        """`found`, or why nothing is found, when the best program's answer is of another
        physical quantity than the question asks for (`asked_quantity`): the programs whose
        answer is of a quantity asked, where one of them fits (`min_fit`); else the reason.
        An answer that says nothing of its kind (bare numbers) is no answer of the quantity
        asked: the best program read another property."""
        asked = asked_dimensions(linked.question, linked.masked())
        why = other_quantity(found[0].node, self.kb, asked) if found else None
        if why is None:
            return found, None
        kept = [c for c in found if answer_dimension(c.node, self.kb) in asked.values()]
        return (kept, None) if self.fits(kept) else ([], why)

    def lacking_beside(self, linked: Linked, found: list[Candidate], node: Node) -> str | None:
        """`lacking` for `node`, another front end's program: over the best fit of the
        programs the search `found` and of `node`."""
        question = self.asked(linked)
        fits = [c.near for c in found] + self.nearness([node], question)
        return self.lacking(linked, max(fits), question)

    def fits(self, found: list[Candidate]) -> bool:
        """Whether a program the search `found` fits the question as well as `min_fit`."""
        return any(c.near >= self.options.min_fit for c in found)

    def rerank(self, candidates: list[Candidate], prompt: str,
               question: str) -> list[Candidate]:
        """Those of the `rescored` best programs that follow as many relations as the best
        rescored: their nearness plus α · log P(program | prompt) + (1 − α) · log P(question |
        program), both per character of the question (BYOKG's inverse-consistency rerank).
        Sums, not per-token means, for the program: a mean favours a longer program whose extra
        hop is easy to predict; and a sum favours a shorter one, which is why the LM only
        chooses among programs of the fit's length (on the first 100 MetaQA dev questions a
        hop, rescoring across lengths dropped a hop on 10 at 2 hops)."""
        opts, size = self.options, max(len(question), 1)
        first = candidates[:opts.rescored]
        hops = fit.hops(first[0].node) if first else 0
        head = [c for c in first if fit.hops(c.node) == hops]
        if len(head) < 2:
            return candidates
        tail = [c for c in candidates if c not in head]
        # All program scores first, then all inverse consistencies: each group shares its
        # prompt, whose KV state the LM then reads once.
        lms = [self.lm.score(prompt, c.text + "\n\n") for c in head]
        ics = [inverse_consistency(self.lm, steps_syntax.print_program(c.node), question)
               for c in head]
        scored = [replace(c, lm=lm, score=c.near + opts.alpha * lm / size
                          + (1 - opts.alpha) * ic) for c, lm, ic in zip(head, lms, ics, strict=True)]
        return sorted(scored, key=lambda c: -c.score) + tail


class ByokgFrontEnd:
    """`--frontend byokg`: bottom-up search over KB-admissible programs, scored by the LM."""

    name = "byokg"
    ranking = ("the best-scored program's answer set, sorted; its first member is the top "
               "answer")
    execution = CONVERTING  # what its answers mean: quantities compare in any unit

    def __init__(self, lm, *, options: ByokgOptions | None = None, pool=None,
                 pool_file: str | None = None):
        self.lm, self.pool, self.pool_file = lm, pool, pool_file
        self.options = options or ByokgOptions()
        self.held = PerKB(self._build)

    def _build(self, kb) -> Reasoner:
        pool, opts = self.pool, self.options
        if pool is None and opts.demos != "none" and (opts.rerank or opts.lm_weight):
            from koplc.llm.symkgqa.kb_pool import demos_for_kb

            pool = demos_for_kb(kb, pool_file=self.pool_file)
        return Reasoner(kb, self.lm, pool or [], self.options)

    def reasoner(self, kb) -> Reasoner:
        """The Reasoner of `kb`, kept for the last KB asked about."""
        return self.held.get(kb)

    def compile(self, question: str, kb) -> Compiled:
        """Search, rerank and answer one question on `kb`."""
        seconds = self.held.setup_seconds(kb)
        reasoner = self.reasoner(kb)
        with timed(seconds, "link"):
            linked = link_question(question, kb)
        failed = nothing_linked(linked, self.name, seconds, kb)
        if failed is not None and not (failed.error == NOTHING_LINKS
                                       and starts_unnamed(kb, linked)):
            return failed
        clock = time.perf_counter()
        demos = reasoner.demos_for(linked)
        # Only an LM reads the prompt (the rerank, or `lm_weight`): with none, none is built.
        prompt = reasoner.builder.build(linked, demos) if self.lm is not None else ""
        if hasattr(self.lm, "keep_prefix"):
            self.lm.keep_prefix(reasoner.builder.prefix)
        seconds["prompt"] = time.perf_counter() - clock
        clock = time.perf_counter()
        found = reasoner.search(linked, prompt)
        seconds["search"] = time.perf_counter() - clock
        if not found:
            return Compiled(linked.question, self.name, failure="empty", seconds=seconds,
                            error="nothing found: no program from the question's entities "
                            "answers anything in the KB")
        fit_best = max(c.near for c in found)
        if fit_best < self.options.min_fit and not (joins_all(found[0].node, linked) or
                                                     plural_name_answered(found[0].node, linked)):
            return Compiled(linked.question, self.name, failure="unfit", seconds=seconds,
                            error=f"nothing found: no program fits the question (best fit "
                            f"{fit_best:.2f} < {self.options.min_fit}); the KB may not hold "
                            "what it asks")
        lacks = reasoner.lacking(linked, fit_best)
        if lacks is None:
            found, lacks = reasoner.of_quantity_asked(linked, found)
        if lacks is not None:
            return Compiled(linked.question, self.name, failure="unfit", seconds=seconds,
                            error=lacks)
        if self.options.rerank:
            clock = time.perf_counter()
            found = reasoner.rerank(found, prompt, linked.question)
            seconds["rerank"] = time.perf_counter() - clock
        best = found[0]
        return Compiled(linked.question, self.name, "kopl-steps", program=best.node,
                        grounded=best.node, raw=best.text, answers=tuple(sorted(best.answer)),
                        seconds=seconds, provenance=Provenance(
                            "byokg", tuple(d.question for d in demos), None,
                            {"entities": list(linked.entities),
                             "candidates": [{"program": c.text, "near": round(c.near, 4),
                                             "lm": round(c.lm, 3),
                                             "score": round(c.score, 4)} for c in found]}))


def offered_pair(linked: Linked) -> tuple[str, str] | None:
    """The two entities a question offers as alternatives, named one after the other with "or"
    between ("Mg-25 or Mg-26: which makes up more of natural magnesium?"), where it names
    three or more; None otherwise."""
    entities, spans, text = linked.entities, linked.spans, linked.question
    if len(entities) < 3 or len(entities) != len(spans):
        return None
    for i in range(len(spans) - 1):
        if re.fullmatch(r"\s*,?\s*or\s+(?:the\s+)?", text[spans[i][1]:spans[i + 1][0]],
                        re.IGNORECASE):
            return entities[i], entities[i + 1]
    return None


def _graded(cue: Cues) -> tuple[tuple[str, bool], ...]:
    """The question's words of no known direction whose kind no known word overrides."""
    return tuple((word, most) for word, most in cue.graded
                 if (cue.graded_most if most else cue.graded_more))


def joins_all(node: Node, linked: Linked) -> bool:
    """Whether `node` starts from every entity the question names, two or more: a program
    that ties them all together and answers is taken however low it fits ("which humans are
    from Tatooine": the And of two relations reads far from the question's few words), since
    a question about what the KB lacks seldom names two things that the KB relates, one
    relation from what it answers each (two things the KB joins by longer paths are many:
    "Which terminal does Virgin America use at JFK?" is no question of the carrier's planes
    and of the planes of the carriers that fly from JFK). A string value the program states
    counts as the entity of that name (`fit.names_used`)."""
    named = set(linked.entities)
    return len(named) >= 2 and named <= fit.names_used(node) and fit.hops(node) <= len(named)


def plural_name_answered(node: Node, linked: Linked) -> bool:
    """Whether the question asks which of a name written in the plural ("Which Hondas are in
    the data?") and `node` gives the names of what one relation reaches from that name (the
    cars Honda makes): a plural proper name stands for the things so related to it, which the
    KB holds however low the program fits.

    >>> q = Linked("Which Hondas are in the data?", ("Honda",), (), ((6, 12),))
    >>> node = QueryName(input=Relate(input=Find(name="Honda"), relation="made by",
    ...                                direction="backward"))
    >>> plural_name_answered(node, q), plural_name_answered(node.input, q)
    (True, False)
    """
    inner = node.input if node.op == "QueryName" else None
    return (inner is not None and inner.op == "Relate" and inner.input.op == "Find"
            and inner.input.name == plural_name_asked(linked))


def plural_name_asked(linked: Linked) -> str | None:
    """The linked name the question asks "which" or "what" of, written in the plural ("Which
    Hondas are in the data?": Honda); None when it asks of none. It asks for things by name,
    not for a value or a count."""
    for start, end in linked.spans:  # a name said twice has two spans
        said = linked.question[start:end].split()
        if not said or not re.fullmatch(r"\s*(?:which|what)\s+", linked.question[:start],
                                        re.IGNORECASE):
            continue
        for name in linked.entities:
            own = name.replace("_", " ").split()
            if own and said[-1] != own[-1] and said[-1] == plural(own[-1]):
                return name
    return None


def open_frontend(settings: Settings) -> ByokgFrontEnd:
    """The BYOKG front end: the pool of `settings.pool` or the KB's; the LM of `settings.lm`
    when `settings.rerank` (or the options) call for it."""
    from koplc.llm.lm.defaults import open_lm

    options = settings.options if isinstance(settings.options, ByokgOptions) else ByokgOptions(
        rerank=settings.rerank)
    lm = settings.lm
    if not (options.rerank or options.lm_weight):
        lm = None  # the search alone: no model to load
    elif isinstance(lm, str):
        lm = open_lm(lm, settings.response_cache)
    return ByokgFrontEnd(lm, options=options, pool_file=settings.pool)
