"""koplc lift: SPARQL that koplc's lowering writes, back to a program in any syntax."""

from __future__ import annotations

from koplc import api


def add_lift(commands) -> None:
    from koplc.sparql_backend.encodings import ENCODINGS

    sub = commands.add_parser("lift", help="lift a SPARQL query (the subset koplc lowers to) "
                              "back to a program", description=__doc__)
    sub.add_argument("file", metavar="FILE", help="a .rq file, or - for standard input")
    sub.add_argument("--to", dest="target", default="kopl-nested", choices=[*api.SYNTAXES])
    sub.add_argument("--encoding", default="kqapro", choices=sorted(ENCODINGS),
                     help="the RDF encoding the query reads (default: kqapro)")
    sub.set_defaults(run=lift)


def lift(args) -> int:
    from koplc.sparql_backend.lift import lift as lift_query

    program = lift_query(api.read_text(args.file), args.encoding)
    print(api.print_program(program, args.target))
    return 0
