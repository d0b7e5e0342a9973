"""The one shape of every front end: `FrontEnd.compile(question, kb) -> Compiled`.

A front end turns a natural-language question into an IR program and answers it on a KB. It
lives in `llm/` or `gnn/` (which may import this module); `koplc.frontends` maps `--frontend`
names to them, and the CLI, `koplc eval` and the benchmarks reach front ends only through it.

A failure that belongs to the question (nothing in it links to the KB, the program does not
parse, finds nothing) comes back as a Compiled whose `failure` names the stage; a front end
raises KoplcError only when it cannot work at all (a missing model, an LM that is down).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from koplc.kopl.ir import Node

# Every stage a front end may report a question failing at, in pipeline order, with what it
# means; Compiled refuses any other.
FAILURES = {
    "link": "nothing in the question names an entity or concept of the KB",
    "parse": "the program written does not parse",
    "type": "the program does not type-check",
    "grounding": "a name in the program has no candidate in the KB",
    "execution": "the program failed to run",
    "empty": "the program ran and found nothing (or only the question's own entities)",
    "unfit": "no program that answers fits the question well enough",
}
FAILURE_STAGES = tuple(FAILURES)


@dataclass(frozen=True)
class Provenance:
    """Where an answer came from: the stage that answered, the demonstrations shown, the
    repair that made a program answer, and whatever else the front end keeps (JSON values)."""

    stage: str | None = None
    demos: tuple[str, ...] = ()
    repair: str | None = None
    notes: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"stage": self.stage, "demos": list(self.demos), "repair": self.repair,
                **self.notes}


@dataclass(frozen=True)
class Compiled:
    """One question through a front end: the program it wrote (in the IR), the checked and
    grounded program that ran, its SPARQL or why there is none, the answers ranked best
    first, the stage that failed, seconds per stage, and provenance.

    `syntax` is the syntax the front end writes programs in (how they print by default);
    `raw` is its output before parsing, where it has one (an LM's completion); `trace` is the
    front end's own record of every stage, for --explain (anything with a `to_json`).
    """

    question: str
    frontend: str
    syntax: str = "kopl-steps"
    program: Node | None = None
    grounded: Node | None = None
    raw: str | None = None
    sparql: str | None = None
    no_sparql: str | None = None
    answers: tuple[str, ...] = ()
    failure: str | None = None
    error: str | None = None
    seconds: dict[str, float] = field(default_factory=dict)
    provenance: Provenance = field(default_factory=Provenance)
    trace: Any = None

    def __post_init__(self):
        if self.failure is not None and self.failure not in FAILURES:
            raise ValueError(f"unknown failure stage {self.failure!r}; "
                             f"one of {', '.join(FAILURE_STAGES)}")

    @property
    def ok(self) -> bool:
        """Whether the front end found an answer."""
        return bool(self.answers)

    @property
    def final(self) -> Node | None:
        """The program that ran: the grounded one, else the one written."""
        return self.grounded if self.grounded is not None else self.program

    def top(self, topic: str | None = None) -> str | None:
        """The best-ranked answer other than `topic` (MetaQA leaves the topic out).

        >>> Compiled("q", "llm", answers=("Heat", "Ronin")).top("Heat")
        'Ronin'
        """
        return next((a for a in self.answers if a != topic), None)

    def predicted(self, topic: str | None = None) -> frozenset[str]:
        """The answers as a set, less `topic`."""
        return frozenset(self.answers) - {topic}

    def to_json(self) -> dict:
        """Everything but the programs' text (printing is the API's), for --explain."""
        return {"question": self.question, "frontend": self.frontend,
                "ir": self.final.model_dump(mode="json") if self.final is not None else None,
                "raw": self.raw, "sparql": self.sparql, "no_sparql": self.no_sparql,
                "answers": list(self.answers), "failure": self.failure, "error": self.error,
                "seconds": {k: round(v, 4) for k, v in self.seconds.items()},
                "provenance": self.provenance.to_json(),
                "trace": self.trace.to_json() if hasattr(self.trace, "to_json") else None}


@dataclass(frozen=True)
class Settings:
    """What a front end may be opened with; each reads the fields it needs.

    `lm`: an LM client, or a spec ("embedded", a server URL, a .gguf file, a model folder);
    `response_cache`: a sqlite file of cached LM responses or "off"; `model`: a trained model
    folder; `reuse`: reuse the program of a pool question phrased the same way;
    `leave_template_out`: leave each question's own template out of the pool (evaluation);
    `options`: the front end's own options object, which overrides the switches above;
    `pool`: a demonstration pool file to use instead of the KB's own (explored) pool;
    `rerank`: byokg: the LM rescores the search's best programs.
    """

    lm: Any = "embedded"
    response_cache: str | None = None
    model: str | None = None
    reuse: bool = True
    leave_template_out: bool = False
    options: Any = None
    pool: str | None = None
    rerank: bool = False


@runtime_checkable
class FrontEnd(Protocol):
    """A question-to-program compiler. `name` is its --frontend name; `ranking` says in a
    sentence how it orders its answers, since Hits@1 scores the first one."""

    name: str
    ranking: str

    def compile(self, question: str, kb) -> Compiled:
        """Compile and answer one question on `kb`."""
        ...
