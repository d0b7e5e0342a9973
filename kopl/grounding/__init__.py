"""Grounding passes: make model-written programs executable on a KB.

`ground(program, GroundingContext(kb, indexes, question))` runs the passes in order (operator
words, function repair, names and directions, units) and returns the program with a record of
every change. See DESIGN.md, "Grounding passes".
"""

from koplc.kopl.grounding.choosers import Candidate, Chooser, LikelihoodChooser, SimilarityChooser
from koplc.kopl.grounding.context import Change, GroundingContext, GroundingOptions
from koplc.kopl.grounding.driver import Grounded, explain, ground
from koplc.kopl.grounding.index.kb_indexes import Indexes
from koplc.kopl.grounding.rerank import Scorer, rerank, rerank_programs

__all__ = ["Candidate", "Change", "Chooser", "Grounded", "GroundingContext", "GroundingOptions",
           "Indexes", "LikelihoodChooser", "Scorer", "SimilarityChooser", "explain", "ground",
           "rerank", "rerank_programs"]
