"""The docs' generated reference pages, as plain functions of what they describe.

`cli_reference(parser)` reads an argparse parser (koplc's comes from `koplc.cli._parser()`),
`op_reference(ops)` the op registry (`koplc.kopl.registry.OPS`), `grammar_reference(folder)`
the `.lark` files. `tools/docs_hooks.py` calls them when MkDocs builds the site, so a new flag,
op or grammar rule shows up with no edit to the docs; tests/test_docs_site.py calls them on a
parser and a registry with one thing more.
"""

from __future__ import annotations

import argparse
import inspect
from collections.abc import Iterator, Mapping
from pathlib import Path

USAGE_WIDTH = 88

# --- the command line -------------------------------------------------------------------


def cli_reference(parser: argparse.ArgumentParser) -> str:
    """Markdown for every command of `parser`, nested commands included, in definition order."""
    lines = [
        "# Command line",
        "",
        "Generated from the argparse definitions in `koplc/cli/` when the site is built; "
        "`koplc COMMAND --help` prints the same.",
        "",
    ]
    for path, sub, help_text in _commands(parser, (parser.prog,)):
        lines += _command_section(path, sub, help_text)
    return "\n".join(lines).rstrip() + "\n"


def _commands(parser: argparse.ArgumentParser, path: tuple[str, ...],
              help_text: str = "") -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser, str]]:
    yield path, parser, help_text
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help or "" for choice in action._choices_actions}
            for name, sub in action.choices.items():
                yield from _commands(sub, (*path, name), helps.get(name, ""))


def _command_section(path: tuple[str, ...], parser: argparse.ArgumentParser,
                     help_text: str) -> list[str]:
    level = "#" * min(len(path) + 1, 4)
    out = [f"{level} `{' '.join(path)}`", ""]
    about = parser.description or help_text
    if about and len(path) > 1:
        out += [_one_paragraph(about), ""]
    out += ["```text", _usage(parser), "```", ""]
    rows = [_argument_row(action) for action in parser._actions
            if not isinstance(action, argparse._HelpAction | argparse._SubParsersAction)]
    subs = [(name, sub_help) for action in parser._actions
            if isinstance(action, argparse._SubParsersAction)
            for name, sub_help in _sub_helps(action)]
    if rows:
        out += ["| argument | takes | default | what it does |", "|---|---|---|---|", *rows, ""]
    if subs:
        out += ["| command | what it does |", "|---|---|"]
        out += [f"| [`{name}`](#{_anchor((*path, name))}) | {_cell(text)} |" for name, text in subs]
        out += [""]
    return out


def _sub_helps(action: argparse._SubParsersAction) -> list[tuple[str, str]]:
    helps = {choice.dest: choice.help or "" for choice in action._choices_actions}
    return [(name, helps.get(name, "")) for name in action.choices]


def _anchor(path: tuple[str, ...]) -> str:
    """The id MkDocs' toc extension gives the heading `` `koplc kb stats` ``."""
    return "-".join(path)


def _usage(parser: argparse.ArgumentParser) -> str:
    formatter = argparse.HelpFormatter(parser.prog, width=USAGE_WIDTH)
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups)
    return formatter.format_help().strip()


def _argument_row(action: argparse.Action) -> str:
    name = ", ".join(action.option_strings) if action.option_strings else \
        (action.metavar or action.dest)
    return (f"| `{name}` | {_takes(action)} | {_default(action)} | "
            f"{_cell(_expand(action))} |")


def _takes(action: argparse.Action) -> str:
    if action.nargs == 0:
        return "flag"
    if action.choices is not None and not isinstance(action, argparse._SubParsersAction):
        return " ".join(f"`{choice}`" for choice in action.choices)
    metavar = action.metavar if isinstance(action.metavar, str) else action.dest.upper()
    many = {"+": " …", "*": " … (optional)", "?": " (optional)"}.get(str(action.nargs), "")
    return f"`{metavar}`{many}"


def _default(action: argparse.Action) -> str:
    default = action.default
    if default in (None, False, argparse.SUPPRESS) or action.nargs == 0:
        return ""
    if isinstance(default, list | tuple):
        default = " ".join(str(item) for item in default)
    return f"`{default}`"


def _expand(action: argparse.Action) -> str:
    """The help text with argparse's %-fields filled in, as `--help` prints it."""
    text = action.help or ""
    if "%" not in text:
        return text
    fields = {**vars(action), "prog": ""}
    fields = {key: value for key, value in fields.items() if value is not argparse.SUPPRESS}
    if fields.get("choices") is not None:
        fields["choices"] = ", ".join(str(choice) for choice in fields["choices"])
    return text % fields


def _one_paragraph(text: str) -> str:
    return " ".join(text.split())


def _cell(text: str) -> str:
    return _one_paragraph(text).replace("|", "\\|")


# --- the IR's ops -----------------------------------------------------------------------

# One illustrative value a textual input of each kind may hold, for the examples. A new kind
# with no sample here gets no example (the page says so) until one is added.
SAMPLE_ARGS = {
    "entity name": "carbon-14", "entity id": "m.0178g", "concept": "isotope",
    "relation": "isotope of", "attribute key": "half-life", "qualifier key": "uncertainty",
    "string value": "stable", "number with optional unit": "5000 year", "year": "1940",
    "date": "1940-02-27", "value of the key's type": "5700 year", "year, date or NOW": "1940",
    "direction": "forward", "comparator": ">", "less or greater": "greater",
    "smallest or largest": "largest", "relation path": (),
}


def op_reference(ops: Mapping) -> str:
    """Markdown for every op of a registry (`{name: OpInfo}`), in registry order: its
    signature and type rule, what it computes, where it runs and how it lowers, with an
    example program and its SPARQL."""
    from koplc.kopl.types import Type

    lines = [
        "# IR operations",
        "",
        "Generated from the op registry (`koplc.kopl.registry.OPS`) and the op classes' "
        "docstrings in `kopl/ir.py` when the site is built. An op's class is its signature "
        "and type rule: the type checker (`koplc.kopl.check`) applies the same rule to every "
        "op, reading the functional inputs' types and the output type from the class. The "
        "op's semantics and its SPARQL lowering are the method the registry names "
        "(`OpInfo.visitor`) in the native executor and in the lowering.",
        "",
        "Types that flow between ops: "
        + ", ".join(f"*{t}*" for t in Type)
        + ". An *entities with facts* value may be passed where *entities* are wanted "
        "(`Type.fits`); nothing else converts.",
        "",
        "The examples use made-up names; the SPARQL is the `kqapro` encoding "
        "(`koplc lower FILE --to sparql`).",
        "",
        "| op | signature | from |",
        "|---|---|---|",
    ]
    for name, info in ops.items():
        kind = "extension" if info.extension else "KoPL"
        lines.append(f"| [`{name}`](#{name.lower()}) | `{info.signature()}` | {kind} |")
    lines.append("")
    for info in ops.values():
        lines += _op_section(info)
    return "\n".join(lines).rstrip() + "\n"


def _op_section(info) -> list[str]:
    doc = inspect.cleandoc(info.cls.__doc__ or "")
    origin = ("an extension op (the official KoPL engine has no such function)"
              if info.extension else "a KoPL function")
    out = [f"## {info.name}", "", doc, "", "```text", info.signature(), "```", ""]
    facts = [
        f"- **Kind:** {origin}; family `{info.family}`"
        + (f", value kind `{info.value_kind}`" if info.value_kind != "none" else ""),
    ]
    if info.aliases:
        facts.append("- **Aliases:** " + ", ".join(f"`{alias}`" for alias in info.aliases))
    out += [*facts, ""]
    out += ["| input | kind | takes | |", "|---|---|---|---|"]
    for field, expected in info.inputs:
        out.append(f"| `{field}` | functional | {expected} | |")
    for field, arg_kind in info.args:
        required = info.cls.model_fields[field].is_required()
        out.append(f"| `{field}` | textual | {arg_kind} | {'' if required else 'optional'} |")
    out += [f"| (output) | | {info.output} | |", ""]
    out += _runs_and_lowers(info)
    out += _example(info)
    return out


def _runs_and_lowers(info) -> list[str]:
    from koplc.kopl.execution.executor import Executor
    from koplc.sparql_backend.lower import UNSUPPORTED, Lowering

    out = [f"**Semantics:** `Executor.{info.visitor}` in `kopl/execution/{info.module}.py`."]
    out += _method_doc(Executor, info.visitor)
    if info.name in UNSUPPORTED:
        out += [f"**Lowering:** none: {UNSUPPORTED[info.name]}", ""]
    else:
        out += [f"**Lowering:** `Lowering.{info.visitor}` in "
                f"`sparql_backend/lower_{info.module}.py`."]
        out += _method_doc(Lowering, info.visitor)
    return out


def _method_doc(cls: type, name: str) -> list[str]:
    method = getattr(cls, name, None)
    if method is None:
        return ["(not written yet)", ""]
    doc = inspect.getdoc(method)
    return ["", _one_paragraph(doc), ""] if doc else [""]


def _example(info) -> list[str]:
    from koplc import syntaxes
    from koplc.kopl.errors import KoplcError
    from koplc.sparql_backend.lower import lower

    program = example_program(info)
    if program is None:
        return ["No example: one of its inputs has no sample value in "
                "`tools/docs_reference.py`.", ""]
    out = ["Example:", ""]
    for syntax in ("kopl-nested", "sexpr"):
        try:
            text = syntaxes.print_program(program, syntax)
        except KoplcError as err:
            out += [f"- `{syntax}`: cannot say it ({_one_paragraph(err.diagnostics[0].message)})"]
        else:
            out += [f"- `{syntax}`: `{text}`"]
    out.append("")
    try:
        sparql = lower(program, "kqapro").text()
    except (KoplcError, KeyError, AttributeError, NotImplementedError) as err:
        out += [f"Its lowering fails: {_one_paragraph(str(err))}", ""]
    else:
        out += ["```sparql", sparql.strip(), "```", ""]
    return out


def example_program(info):
    """A small well-typed program whose root is the op, its inputs filled with sample values;
    None when an input's kind has no sample."""
    from koplc.kopl import ir
    from koplc.kopl.types import Type

    finds = [ir.Find(name="carbon-14"), ir.Find(name="carbon-12")]
    build = {
        Type.ENTITIES: lambda i: finds[i % 2],
        Type.ENTITIES_WITH_FACTS: lambda i: ir.Relate(
            input=finds[i % 2], relation="isotope of", direction="forward"),
        Type.VALUES: lambda i: ir.QueryAttr(input=finds[i % 2], key="half-life"),
    }
    fields = {}
    for i, (field, expected) in enumerate(info.inputs):
        if expected not in build:
            return None
        fields[field] = build[expected](i)
    for field, arg_kind in info.args:
        if str(arg_kind) not in SAMPLE_ARGS:
            return None
        fields[field] = SAMPLE_ARGS[str(arg_kind)]
    return info.cls(**fields)


# --- grammars ---------------------------------------------------------------------------

GRAMMAR_FILES = {
    "kopl_steps.lark": "`kopl-steps`: the `Step N: Op(args)` lines LLMs write",
    "kopl_nested.lark": "`kopl-nested`: nested calls",
    "kopl_bart.lark": "`kopl-bart`: the linearised string of KQA Pro's BART baseline",
    "sexpr.lark": "`sexpr`: GrailQA S-expressions",
    "json.lark": "JSON with positions, under `kqapro-json`, `kopl-engine` and `ir-json`",
}


def grammar_reference(folder: Path) -> str:
    """Markdown listing every `.lark` grammar in `folder`, each in full."""
    lines = [
        "# Grammars",
        "",
        "The Lark grammars in `grammar/`, as the parsers load them (generated when the site "
        "is built). The rule names are the names of the transformer methods that build IR "
        "nodes; see [Syntaxes](syntaxes.md) for what each syntax looks like.",
        "",
    ]
    for path in sorted(folder.glob("*.lark")):
        lines += [f"## `{path.name}`", "", GRAMMAR_FILES.get(path.name, ""), "",
                  "```text", path.read_text(encoding="utf-8").rstrip(), "```", ""]
    return "\n".join(lines).rstrip() + "\n"
