"""koplc's exceptions: one root, one subclass per stage, each carrying its diagnostics."""

from __future__ import annotations

from koplc.kopl.diagnostics import Diagnostic, Span, render_all


class KoplcError(Exception):
    """Root of every error koplc raises on bad input; renders with source context."""

    default_code = "error"

    def __init__(self, message: str | Diagnostic | list[Diagnostic], *,
                 span: Span | None = None, code: str | None = None, source: str | None = None):
        if isinstance(message, str):
            diagnostics = [Diagnostic(code or self.default_code, message, span)]
        elif isinstance(message, Diagnostic):
            diagnostics = [message]
        else:
            diagnostics = list(message)
        self.diagnostics: list[Diagnostic] = diagnostics
        self.source = source
        super().__init__(self.render())

    def render(self) -> str:
        return render_all(self.diagnostics, self.source)

    def with_source(self, source: str) -> KoplcError:
        """This error, rendered against `source` (the text the spans point into)."""
        self.source = source
        self.args = (self.render(),)
        return self


class ParseError(KoplcError):
    default_code = "syntax"


class TypeCheckError(KoplcError):
    default_code = "type"


class UnsupportedConstruct(KoplcError):
    """The target syntax or backend cannot express this construct."""

    default_code = "unsupported"


class GroundingError(KoplcError):
    default_code = "grounding"


class LoweringError(KoplcError):
    default_code = "lowering"


class ExecutionError(KoplcError):
    default_code = "execution"


class KBError(KoplcError):
    default_code = "kb"


class BackendError(KoplcError):
    default_code = "backend"
