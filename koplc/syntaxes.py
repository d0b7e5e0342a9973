"""The syntaxes koplc reads and prints, by name: KoPL's (`koplc.kopl.syntax.table`) and the
S-expressions, with detection, parsing and printing through the IR.

`koplc.api` re-exports these; they live apart so that modules below the API can use them.

>>> detect_syntax("Step 1: FindAll()\\nStep 2: Count()\\nDone")
'kopl-steps'
>>> detect_syntax("(COUNT (JOIN r m.01))")
'sexpr'
"""

from __future__ import annotations

import koplc.sexpr as sexpr_syntax
from koplc.kopl.syntax.table import KOPL_SYNTAXES

TABLE = KOPL_SYNTAXES.adding(sexpr_syntax, listed_before="ir-json", detected_before="kopl-nested")
SYNTAXES = TABLE.modules
detect_syntax = TABLE.detect
syntax_module = TABLE.module
parse = TABLE.parse
print_program = TABLE.print_program
