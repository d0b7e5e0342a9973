"""What every grounding pass receives (the context) and returns besides the program (changes)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from koplc.kopl.execution.executor import ExecOptions
from koplc.kopl.grounding.choosers import Chooser, SimilarityChooser
from koplc.kopl.grounding.index.kb_indexes import Indexes
from koplc.kopl.grounding.name_forms import phrases
from koplc.kopl.grounding.schema import KBProfile, profile_of
from koplc.kopl.kb.model import KB


@dataclass(frozen=True)
class GroundingOptions:
    """Switches and sizes of the grounding passes.

    - `execution_guidance`: run partial programs while grounding; candidates that leave the
      program empty rank below those that keep it non-empty (off: names and schema only).
    - `use_question`: let the chooser see the question (off: the written names alone).
    - `beam_width`: partial groundings kept per step; `top_k`: candidates per name.
    - `min_score`: a name whose best candidate scores lower cannot be grounded.
    - `embed_below`: in a large vocabulary (entities), a name is embedded only when no lexical
      candidate is at least this similar (embedding costs a model call).
    - `flip_direction`: a Relate's written direction may be flipped when the other one is the
      only one with results (it costs the flipped candidate `flip_cost`).
    - `repair_functions`, `convert_units`: run those passes.
    """

    execution_guidance: bool = True
    use_question: bool = True
    beam_width: int = 8
    top_k: int = 8
    min_score: float = 0.25
    embed_below: float = 0.8
    flip_direction: bool = True
    flip_cost: float = 0.3
    repair_functions: bool = True
    convert_units: bool = True


@dataclass(frozen=True)
class Scored:
    """A candidate name with its score, as provenance shows it."""

    name: str
    score: float


@dataclass(frozen=True)
class Change:
    """One rewrite a pass made: where, what was written, what replaced it, and why.

    `step` numbers the node in the program the pass returned (post-order, from 1).
    """

    pass_name: str
    step: int
    op: str
    field: str
    original: str | None
    replacement: str
    reason: str
    candidates: tuple[Scored, ...] = ()

    def to_json(self) -> dict:
        """The change as a JSON object."""
        return {"pass": self.pass_name, "step": self.step, "op": self.op, "field": self.field,
                "original": self.original, "replacement": self.replacement,
                "reason": self.reason,
                "candidates": [{"name": c.name, "score": round(c.score, 4)}
                               for c in self.candidates]}


@dataclass
class GroundingContext:
    """The KB, its indexes, the question, the chooser and the options, for one program."""

    kb: KB
    indexes: Indexes
    question: str | None = None
    chooser: Chooser = field(default_factory=SimilarityChooser)
    options: GroundingOptions = field(default_factory=GroundingOptions)
    exec_options: ExecOptions = field(
        default_factory=lambda: ExecOptions(inclusive_comparators=True))

    @property
    def profile(self) -> KBProfile:
        """Schema facts of the KB (relation ends, key types and units), computed once per KB."""
        return profile_of(self.kb)

    @property
    def visible_question(self) -> str | None:
        """The question as the chooser may see it (None when `use_question` is off)."""
        return self.question if self.options.use_question else None

    @cached_property
    def question_phrases(self) -> set[str]:
        """Every phrase of the question, in normal form, for matching names against it."""
        question = self.visible_question
        return phrases(question) if question else set()
