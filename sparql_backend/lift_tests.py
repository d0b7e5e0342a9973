"""The value tests of koplc's lowering (value_patterns.py and the lowering's qualifier and
yes/no patterns), read back for `lift`: each reader takes one line and records what it tests
in `facts` (lift.Facts: `tests`, `ids`, `conditions`, `verify`), or returns False."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from koplc.kopl.errors import UnsupportedConstruct
from koplc.kopl.values import DATE, QUANTITY, STRING, YEAR
from koplc.sparql_backend.encodings import Encoding

# The engine's value tests as value_patterns.py writes them (value nodes): a quantity, a time.
_QUANTITY = re.compile(r"^([?$]\w+) <([^>]+)> ([?$]\w+) \. \1 <([^>]+)> ([?$]\w+) \. "
                       r'FILTER\(\3 = "((?:[^"\\]|\\.)*)" && (.*)\)$')
_TIME = re.compile(r"^([?$]\w+) <([^>]+)> ([?$]\w+) \. \1 <([^>]+)> ([?$]\w+) \. FILTER\((.*)\)$")
_COMPARISON = re.compile(r'[?$]\w+ (=|!=|<|>) "([^"]*)"\^\^xsd:(\w+)')
_INCLUSIVE = {">": "<=", "<": ">="}
_VALUES = re.compile(r"^VALUES ([?$]\w+) \{ <([^>]+)> \}$")
_VERIFY = re.compile(r"^BIND\(IF\(EXISTS \{ (.*) \}, 1, 0\) AS \?hit0\)$")
_ANY_TYPE = re.compile(r'^FILTER\(EXISTS \{ <([^>]+)> <urn:koplc:keyType> "string" \. ([?$]\w+) '
                       r'<[^>]+> "((?:[^"\\]|\\.)*)" \. \} \|\| ')
_CONDITION = re.compile(r"^FILTER EXISTS \{ ([?$]\w+) <([^>]+)> ([?$]\w+) \. FILTER\(EXISTS \{ "
                        r'<[^>]+> <urn:koplc:keyType> "string" \. \3 <[^>]+> "((?:[^"\\]|\\.)*)" \. \}')  # `!(x > t)` is how `x <= t` is written


@dataclass
class _Tests:
    tests: dict = field(default_factory=dict)


def read_special(line: str, e: Encoding, facts) -> bool:
    """VALUES of one entity, the yes/no test of Verify*, and the any-type value tests of
    QueryAttrQualifier and QueryAttrUnderCondition; False when `line` is none of them."""
    if line in ("FILTER(false)", "BIND(0 AS ?hit0)"):
        raise UnsupportedConstruct("cannot lift a comparison the lowering wrote as never true "
                                   "(the engine refuses its comparator)",
                                   code="unsupported-sparql")
    values = _VALUES.match(line)
    if values:
        facts.ids[values[1]] = e.node_id(values[2])
        return True
    verify = _VERIFY.match(line)
    if verify:
        test = _Tests()
        if not (read_value_test(verify[1], e, test) or read_string_test(verify[1], e, test)):
            raise UnsupportedConstruct(f"cannot lift the test {verify[1]!r}",
                                       code="unsupported-sparql")
        facts.verify = next(iter(test.tests.items()))
        return True
    typed = _ANY_TYPE.match(line)
    if typed:
        facts.tests[typed[2]] = ("any", unescape(typed[3]), "=")
        return True
    condition = _CONDITION.match(line)
    if condition and e.key_name(condition[2]):
        facts.conditions[condition[1]] = (e.key_name(condition[2]), unescape(condition[4]))
        return True
    return False


def read_string_test(text: str, e: Encoding, facts) -> bool:
    """`?v <value> "text" .` (a string test) into `facts.tests`."""
    found = re.match(r'^([?$]\w+) <([^>]+)> "((?:[^"\\]|\\.)*)" \.$', text.strip())
    if found is None or found[2] != e.value:
        return False
    facts.tests[found[1]] = (STRING, unescape(found[3]), "=")
    return True


def read_value_test(line: str, e: Encoding, facts) -> bool:
    """A quantity or time test on a value handle (see value_patterns.ValuePatterns.test) into
    `facts.tests`; False when `line` is not one."""
    if "FILTER" not in line:
        return False
    quantity = _QUANTITY.match(line)
    if quantity and (quantity[2], quantity[4]) == (e.unit, e.value):
        op, number, _ = _comparison(quantity[7])
        facts.tests[quantity[1]] = (QUANTITY, f"{_number(number)} {unescape(quantity[6])}",
                                    op)
        return True
    time = _TIME.match(line)
    if time and (time[2], time[4]) == (e.year, e.time):
        check = time[6]
        dated = re.search(r'"(\d{4}-\d\d-\d\d)"', check)
        if dated is None:
            op, year, _ = _comparison(check)
            facts.tests[time[1]] = (YEAR, year, op)
        elif "STR(" in check:
            facts.tests[time[1]] = (DATE, dated[1], "!=" if "!=" in check else "=")
        else:
            op, day, _ = _comparison(check.split("||")[0] if not check.startswith("!(")
                                     else check)
            facts.tests[time[1]] = (DATE, day, op)
        return True
    raise UnsupportedConstruct(f"cannot lift the FILTER of {line!r}", code="unsupported-sparql")


def _comparison(check: str) -> tuple[str, str, str]:
    """(operator, literal, datatype) of a comparison, `!(x > t)` read as `x <= t`."""
    found = _COMPARISON.search(check)
    if found is None:
        raise UnsupportedConstruct(f"cannot lift the test {check!r}", code="unsupported-sparql")
    op = found[1]
    if check.startswith("!(") and op in _INCLUSIVE:
        op = _INCLUSIVE[op]
    return op, found[2], found[3]


def _number(text: str) -> str:
    number = float(text)
    return str(int(number)) if number.is_integer() else repr(number)


def unescape(body: str) -> str:
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t", "r": "\r"}.get(m[1], m[1]), body)
