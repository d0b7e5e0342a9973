"""Source spans and diagnostics: what went wrong, where, and how to show it with a caret."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


@dataclass(frozen=True, slots=True)
class Span:
    """A region of source text: 1-based line and column of its start and end, 0-based offsets."""

    line: int
    column: int
    end_line: int
    end_column: int
    start: int = 0
    end: int = 0

    @classmethod
    def at_offset(cls, text: str, start: int, end: int | None = None) -> Span:
        """The span of `text[start:end]`, its lines and columns computed from the offsets.

        >>> Span.at_offset("ab\\ncd", 3, 5)
        Span(line=2, column=1, end_line=2, end_column=3, start=3, end=5)
        """
        end = start if end is None else end
        line, column = _line_col(text, start)
        end_line, end_column = _line_col(text, end)
        return cls(line, column, end_line, end_column, start, end)

    def shifted(self, text: str, offset: int, length: int) -> Span:
        """The sub-span `length` characters long starting `offset` characters into this span."""
        return Span.at_offset(text, self.start + offset, self.start + offset + length)


def _line_col(text: str, offset: int) -> tuple[int, int]:
    offset = max(0, min(offset, len(text)))
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One finding: a stable code (e.g. `type-mismatch`), a message, and where it is."""

    code: str
    message: str
    span: Span | None = None
    severity: Severity = Severity.ERROR

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def render(self, source: str | None = None) -> str:
        """`message. Line L, Col C` then the source line and a caret under the span."""
        head = f"{self.severity}[{self.code}]: {self.message}"
        if self.span is None:
            return head
        head += f"{'' if head.endswith(('?', '.', '!')) else '.'} Line {self.span.line}, Col {self.span.column}"
        if source is None:
            return head
        lines = source.splitlines() or [""]
        text_line = lines[self.span.line - 1] if self.span.line <= len(lines) else ""
        width = 1
        if self.span.end_line == self.span.line:
            width = max(1, self.span.end_column - self.span.column)
        width = max(1, min(width, len(text_line) - self.span.column + 1))
        caret = " " * (self.span.column - 1) + "^" * width
        return f"{head}\n  {text_line}\n  {caret}"

    def to_json(self) -> dict:
        span = None
        if self.span is not None:
            span = {"line": self.span.line, "column": self.span.column,
                    "end_line": self.span.end_line, "end_column": self.span.end_column}
        return {"code": self.code, "severity": str(self.severity), "message": self.message,
                "span": span}


def render_all(diagnostics: list[Diagnostic], source: str | None = None) -> str:
    """Every diagnostic rendered, one block after another."""
    return "\n".join(d.render(source) for d in diagnostics)
