"""Write ``tests/support/special_cases_spec.py``, the standard's special cases of its elementwise
functions as a table of rules, from the standard's own text.

    python conformance/special_cases.py \
        ~/array-api/src/array_api_stubs/_2025_12/elementwise_functions.py

The first argument is the function stubs of one edition in a checkout of data-apis/array-api
(the ``array-api`` submodule of data-apis/array-api-tests holds it too); a second, optional,
names that checkout's commit for the table (``data-apis/array-api@8884c406``). Format the
table afterwards (it keeps one rule per line): ``ruff format tests/support/special_cases_spec.py``.

Each ``- If ...`` line of a function's "Special cases" section becomes one rule: the
sentence itself, a condition on the operands and the expected result, both Python
expressions that ``tests/namespace/test_special_cases.py`` evaluates on every input of its cross
product of special values; the first rule of a function's list that an input meets decides
its value, as the standard's lists read. A condition that an introduction to a list states
("if ``x1_i`` is not ``NaN``") joins the condition of each line of that list; "In the
remaining cases, the result is ``False``" holds where no earlier line of its list does. Each
complex rule is followed by its images under the symmetries the function's text states
(``f(conj(x))`` must equal ``conj(f(x))``; ``f(-x)`` must equal ``-f(x)`` or ``f(x)``), and
a function whose cases are "handled as if the operation is implemented as" another's
(``-1j * asinh(x*1j)``, ``cosh(x*1j)``, ``1.0 / x``, ``x * x``) gets that one's rules, read
at the transformed operands. Lines that state no special value ("In the remaining cases,
the quotient must be computed ...", the examples of complex ``add``) are not rules, nor the
sentences of ``ERRATA``, with their reasons; the script lists both, and any line it cannot
read makes it fail, so a new edition's new wording is seen.

Expressions name the operands ``x``, ``x1``, ``x2``, ``lo``, ``hi`` (``clip``'s bounds), and
for a complex operand its parts ``a`` and ``b``; they call the helpers of the test module
(``isnan``, ``is_int``, ``is_odd``, ``signbit``, ``cis``...). A result is ``value`` with
``flags``: ``approx`` (an implementation-dependent approximation), ``re_any_sign`` /
``im_any_sign`` (the standard leaves the sign of that part open), ``positive`` /
``negative`` (only the result's sign is fixed), ``nan_sign0`` / ``nan_sign1``.

The table is checked in: the tests run from the repository alone.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "tests" / "special_cases_spec.py"

SUBJECTS = {
    "x_i": "x",
    "x1_i": "x1",
    "x2_i": "x2",
    "a": "a",
    "b": "b",
    "c": "c",
    "d": "d",
    "min_i": "lo",
    "max_i": "hi",
    "abs(x1_i)": "abs(x1)",
}

# "is ..." predicates, with S standing for the subject.
PREDICATES = {
    "``NaN``": "isnan(S)",
    "``+0``": "is_pos_zero(S)",
    "``-0``": "is_neg_zero(S)",
    "``0``": "S == 0",
    "``+infinity``": "S == inf",
    "``-infinity``": "S == -inf",
    "``1``": "S == 1",
    "``+1``": "S == 1",
    "``-1``": "S == -1",
    "either ``+0`` or ``-0``": "S == 0",
    "either ``-0`` or ``+0``": "S == 0",
    "either ``+infinity`` or ``-infinity``": "isinf(S)",
    "``+infinity`` or ``-infinity``": "isinf(S)",
    "a finite number or ``NaN``": "not isinf(S)",
    "either a finite number or ``NaN``": "not isinf(S)",
    "a finite number": "isfinite(S)",
    "a nonzero finite number": "isfinite(S) and S != 0",
    "a nonzero number": "not isnan(S) and S != 0",
    "a positive finite number": "isfinite(S) and S > 0",
    "a negative finite number": "isfinite(S) and S < 0",
    "greater than ``0``": "S > 0",
    "less than ``0``": "S < 0",
    "greater than ``1``": "S > 1",
    "less than ``1``": "S < 1",
    "less than ``-1``": "S < -1",
    "not ``NaN``": "not isnan(S)",
    "not equal to ``0``": "S != 0",
    "not equal to ``1``": "S != 1",
    "an odd integer value": "is_odd(S)",
    "not an odd integer value": "not is_odd(S)",
    "not an integer value": "not is_int(S)",
    "already integer-valued": "is_int(S)",
    "any value": "True",
    "``-x1_i``": "S == -x1",
}

# Real results.
VALUES = {
    "NaN": "nan",
    "+0": "0.0",
    "-0": "-0.0",
    "0": "0.0",
    "+infinity": "inf",
    "-infinity": "-inf",
    "1": "1.0",
    "+1": "1.0",
    "-1": "-1.0",
    "True": "True",
    "False": "False",
    "x_i": "x",
    "x1_i": "x1",
    "x2_i": "x2",
    "|x1_i|": "abs(x1)",
    "-|x1_i|": "-abs(x1)",
    "+π/2": "pi / 2",
    "-π/2": "-pi / 2",
    "+π/4": "pi / 4",
    "-π/4": "-pi / 4",
    "+π": "pi",
    "-π": "-pi",
    "+3π/4": "3 * pi / 4",
    "-3π/4": "-3 * pi / 4",
}

# Parts of complex results: the real part, and the imaginary part without its sign and ``j``.
REAL_PARTS = {
    "+0": "0.0",
    "0": "0.0",
    "±0": "0.0",
    "NaN": "nan",
    "+infinity": "inf",
    "infinity": "inf",
    "±infinity": "inf",
    "-infinity": "-inf",
    "1": "1.0",
    "-1": "-1.0",
    "π/2": "pi / 2",
    "π": "pi",
    "π/4": "pi / 4",
    "3π/4": "3 * pi / 4",
}
IMAG_PARTS = {
    "0j": "0.0",
    "0 j": "0.0",
    "NaN j": "nan",
    "infinity j": "inf",
    "πj/2": "pi / 2",
    "πj/4": "pi / 4",
    "3πj/4": "3 * pi / 4",
    "πj": "pi",
}
# Results written with ``cis(b) = cos(b) + sin(b) j``, the scaling taken part by part.
CIS = {
    "+infinity * cis(b)": "cis(inf, b)",
    "+0 * cis(b)": "cis(0.0, b)",
    "+infinity * cis(b) - 1.0": "cis(inf, b) - 1",
    "+0 * cis(b) - 1.0": "cis(0.0, b) - 1",
}

REMAINING = re.compile(r"- In the remaining cases, the result is ``(\w+)``\.$")
# Sentences of the standard that contradict its others or every library, with the reason.
ERRATA = {
    ("not_equal", "In the remaining cases, the result is ``False``."): "its list names no "
    "infinite operand beside a finite one, so 0 != inf would be False",
}

SENTENCE = re.compile(r"- (?:If|if) (.*?), the result (is|has) (.*)$")
NOT_RULES = (
    "- In the remaining cases",
    "- Similarly, if",
    "- Underflow may only occur",
    "- If ``a`` is ``-0`` and ``c`` is ``-0``, the real component",
)


def _clause(clause: str, text: str) -> str:
    """One clause of a condition ("``x1_i`` is greater than ``0``") as an expression."""
    m = re.fullmatch(r"the sign bit of ``(\w+)`` is ``([01])``", clause)
    if m:
        return f"signbit({SUBJECTS[m.group(1)]}) == {m.group(2)}"
    if m := re.fullmatch(r"``(\w+)`` (equals|does not equal) ``(\w+)``", clause):
        op = "==" if m.group(2) == "equals" else "!="
        return f"{SUBJECTS[m.group(1)]} {op} {SUBJECTS[m.group(3)]}"
    m = re.fullmatch(r"``([\w()]+)`` is (.+)", clause)
    if not m or m.group(1) not in SUBJECTS or m.group(2) not in PREDICATES:
        raise ValueError(f"cannot read the condition {clause!r} of {text!r}")
    return PREDICATES[m.group(2)].replace("S", SUBJECTS[m.group(1)])


def _condition(text: str, prefix: str) -> str:
    text = text.replace("(i.e., greater than ``0``) ", "").replace("(i.e., less than ``0``) ", "")
    text = text.replace("any value (including ``NaN``)", "any value")
    text = text.replace("any value, including ``NaN``", "any value")
    text = re.sub(r"``a`` ``-infinity``", "``a`` is ``-infinity``", text)  # a typo of sqrt
    special = {
        "either ``x1_i`` or ``x2_i`` is ``NaN``": "isnan(x1) or isnan(x2)",
        "``a`` is ``NaN`` or ``b`` is ``NaN``": "isnan(a) or isnan(b)",
        "``a`` or ``b`` is ``NaN``": "isnan(a) or isnan(b)",
        "``a``, ``b``, ``c``, or ``d`` is ``NaN``": "isnan(a) or isnan(b) or isnan(c) or isnan(d)",
        "``a``, ``b``, ``c``, and ``d`` are all ``NaN``": (
            "isnan(a) and isnan(b) and isnan(c) and isnan(d)"
        ),
        "``x1_i`` and ``x2_i`` have the same mathematical sign and are both nonzero finite "
        "numbers": "same_sign(x1, x2) and nonzero_finite(x1) and nonzero_finite(x2)",
        "``x1_i`` and ``x2_i`` have different mathematical signs and are both nonzero finite "
        "numbers": "not same_sign(x1, x2) and nonzero_finite(x1) and nonzero_finite(x2)",
        "two integers are equally close to ``x_i``": "is_half(x)",
        "``x1_i`` and ``x2_i`` have the same mathematical sign": "same_sign(x1, x2)",
        "``x1_i`` and ``x2_i`` have different mathematical signs": "not same_sign(x1, x2)",
    }
    if text in special:
        parts = [special[text]]
    else:
        parts = []
        for clause in re.split(r", and |, | and ", text):
            alternatives = re.split(r" or (?=``[\w()]+`` is )", clause)
            parts.append(" or ".join(_clause(alt, text) for alt in alternatives))
    if prefix:
        parts.insert(0, prefix)
    return " and ".join(f"({p})" if " or " in p else p for p in parts)


def _result(text: str) -> tuple[str, str]:
    """``(value, flags)`` of a result's text."""
    flags = []
    text = re.sub(r"\s*\(\*\*note\*\*:.*\)$", "", text).strip()
    text = re.sub(r", even if ``x1_i`` is ``NaN``\.$", ".", text)
    m = re.fullmatch(
        r"(.*?)\s*\((signs? of (?:the )?(real|imaginary|real and imaginary) components? "
        r"(?:is|are) unspecified)\)\.?",
        text,
    )
    if m:
        text = m.group(1)
        flags += {"real": ["re_any_sign"], "imaginary": ["im_any_sign"]}.get(
            m.group(3), ["re_any_sign", "im_any_sign"]
        )
    text = text.rstrip(".")
    if text.startswith("an implementation-dependent approximation to "):
        flags.append("approx")
        text = text.removeprefix("an implementation-dependent approximation to ")
    if m := re.fullmatch(r"``NaN`` with a sign bit of ``([01])``", text):
        return "nan", f"nan_sign{m.group(1)}"
    if re.fullmatch(
        r"a (positive|negative) mathematical sign(, unless the result is ``NaN``.*)?", text
    ):
        return "None", text.split()[1]
    if text.startswith("a signed infinity with the mathematical sign determined by the rule"):
        return "copysign(inf, x1) * copysign(1.0, x2)", ""
    if m := re.fullmatch(r"(?:equivalent|equal) to ``abs\((\w+)\)``", text):
        return f"abs({SUBJECTS[m.group(1)]})", ""
    if text == "the even integer closest to ``x_i``":
        return "float(round(x))", "re_any_sign"
    m = re.fullmatch(r"``(.+)``", text)
    if not m:
        raise ValueError(f"cannot read the result {text!r}")
    body = m.group(1)
    if body in VALUES:
        return VALUES[body], " ".join(flags)
    if body in CIS:
        return CIS[body], " ".join(flags)
    m = re.fullmatch(r"(.+?) ([+\-±]) (.+)", body)
    if not m or m.group(1) not in REAL_PARTS or m.group(3) not in IMAG_PARTS:
        raise ValueError(f"cannot read the complex result {body!r}")
    re_part, sign, im_part = m.group(1), m.group(2), IMAG_PARTS[m.group(3)]
    if re_part.startswith("±"):
        flags.append("re_any_sign")
    if sign == "±":
        flags.append("im_any_sign")
    im = f"-{im_part}" if sign == "-" and not im_part.startswith("-") else im_part
    return f"complex({REAL_PARTS[re_part]}, {im})", " ".join(dict.fromkeys(flags))


def rules_of(name: str, doc: str) -> tuple[list[tuple[str, str, str, str, str]], list[str]]:
    """The rules of one function's docstring, and the lines that are not rules."""
    parts = re.split(r"\*\*Special cases\*\*", doc, maxsplit=1, flags=re.IGNORECASE)
    if len(parts) < 2:
        return [], []
    section = parts[1]
    rules, skipped = [], []
    kind, prefix, in_list = "real", "", False
    for line in section.splitlines():
        line = re.sub(r"^-\s+", "- ", line.strip())
        if line.startswith("For complex floating-point operands, let ``a = real(x_i)``"):
            kind, prefix = "complex", ""
        elif line.startswith("When at least one of ``a``, ``b``, ``c``, or ``d``") or (
            line.startswith("For complex floating-point operands, let ``a = real(x1_i)``")
        ):
            kind, prefix = "complex2", ""
        elif (
            line.startswith("For complex")
            and "must equal" not in line
            and "independently" not in line
        ):
            kind = "complex-other"
        elif line.startswith(("For real-valued", "For floating-point")):
            kind = "real"
        if m := re.search(r", and if ``(\w+)`` is not ``NaN``,$", line):
            # a condition of every line of the list this sentence introduces
            prefix = f"not isnan({SUBJECTS[m.group(1)]})"
        elif not line and in_list:
            prefix = ""  # the list ended
        in_list = line.startswith("- ")
        if not in_list:
            continue
        if (m := REMAINING.match(line)) and kind != "complex-other":
            # "otherwise": the inputs that no earlier line of this list names
            earlier = [r[3] for r in rules if r[1] == kind]
            cond = "not (" + " or ".join(f"({c})" for c in earlier) + ")"
            rules.append((name, kind, line[2:], cond, VALUES[m.group(1)], ""))
            continue
        if line.startswith(NOT_RULES) or kind == "complex-other":
            skipped.append(line)
            continue
        m = SENTENCE.match(line)
        if not m:
            raise ValueError(f"{name}: cannot read {line!r}")
        cond = _condition(m.group(1), prefix)
        value, flags = _result(m.group(3))
        rules.append((name, kind, line[2:], cond, value, flags))
    return rules, skipped


def _substitute(expr: str, names: dict[str, str]) -> str:
    """``expr`` with each operand name replaced at once (``a -> (-b), b -> (a)``)."""
    return re.sub(r"\b(" + "|".join(names) + r")\b", lambda m: names[m.group(1)], expr)


def _swap_sign_flags(flags: str) -> str:
    swap = {"re_any_sign": "im_any_sign", "im_any_sign": "re_any_sign"}
    return " ".join(swap.get(f, f) for f in flags.split())


def symmetries(name: str, doc: str) -> list[str]:
    """The symmetries the docstring states: ``conj`` (``f(conj(x)) == conj(f(x))``), ``odd``
    (``f(-x) == -f(x)``), ``even`` (``f(-x) == f(x)``)."""
    found = []
    if re.search(rf"``{name}\(conj\(x\)\)`` must equal ``conj\({name}\(x\)\)``", doc):
        found.append("conj")
    if re.search(
        rf"``{name}\(-(\w)\)`` must equal ``-{name}\(\1\)``"
        rf"|``{name}\(x\)`` must equal ``-{name}\(-x\)``",
        doc,
    ):
        found.append("odd")
    if re.search(rf"``{name}\(x\)`` must equal ``{name}\(-x\)``", doc):
        found.append("even")
    return found


def mirrored(rules, kinds: list[str]):
    """The complex rules that the stated symmetries give from ``rules``: the condition read at
    the mirrored operand, the value mirrored back (conj: ``b -> -b``, the value conjugated;
    odd: ``z -> -z``, the value negated; even: ``z -> -z``, the same value), and their
    compositions."""
    maps = {
        "conj": ({"b": "(-b)"}, "conj({})", "conj"),
        "odd": ({"a": "(-a)", "b": "(-b)"}, "neg({})", "odd"),
        "even": ({"a": "(-a)", "b": "(-b)"}, "{}", "even"),
    }
    out = []
    complex_rules = [r for r in rules if r[1] == "complex"]
    for combo in [[k] for k in kinds] + ([kinds] if len(kinds) == 2 else []):
        for name, kind, text, cond, value, flags in complex_rules:
            for key in combo:
                names, wrap, tag = maps[key]
                cond = _substitute(cond, names)
                value = wrap.format(_substitute(value, names)) if value != "None" else value
            out.append((name, kind, f"[{' and '.join(combo)}] {text}", cond, value, flags))
    return out


def via(name: str, doc: str, rules) -> list:
    """The rules of a function whose special cases the standard states "as if the operation is
    implemented as" another's: ``-1j * asinh(x*1j)`` (asinh's rules read at ``w = x*1j``,
    that is ``a -> -b``, ``b -> a``, the value times ``-1j``), ``cosh(x*1j)``, ``1.0 / x``
    (divide's at ``x1 = 1``, ``x2 = x``), ``x * x`` (multiply's at ``x1 = x2 = x``)."""
    out = []
    if m := re.search(r"implemented as ``(-1j \* )?(\w+)\(x\*1j\)``", doc):
        rotate = {"a": "(-b)", "b": "(a)"}
        for source, kind, text, cond, value, flags in rules:
            if source == m.group(2) and kind == "complex":
                value = _substitute(value, rotate)
                if m.group(1):
                    value, flags = f"times_minus_j({value})", _swap_sign_flags(flags)
                tag = f"[{m.group(1) or ''}{m.group(2)}(x*1j)]"
                out.append((name, kind, f"{tag} {text}", _substitute(cond, rotate), value, flags))
    for form, source, names in (
        ("``1.0 / x``", "divide", {"real": {"x1": "1.0", "x2": "x"}}),
        (
            "``x * x``",
            "multiply",
            {"real": {"x1": "x", "x2": "x"}, "complex2": {"c": "a", "d": "b"}},
        ),
    ):
        if f"implemented as {form}" not in doc:
            continue
        for fn, kind, text, cond, value, flags in rules:
            if fn == source and kind in names:
                sub = names[kind]
                out.append(
                    (
                        name,
                        "complex" if kind == "complex2" else kind,
                        f"[{form.strip('`')}] {text}",
                        _substitute(cond, sub),
                        _substitute(value, sub),
                        flags,
                    )
                )
    return out


def main(stubs: str, origin: str = "") -> None:
    source = Path(stubs).read_text()
    version = re.search(r"_(\d{4})_(\d{2})", stubs)
    edition = f"{version.group(1)}.{version.group(2)}" if version else "?"
    rules, skipped = [], []
    docs = {
        node.name: ast.get_docstring(node) or ""
        for node in ast.parse(source).body
        if isinstance(node, ast.FunctionDef)
    }
    for name, doc in docs.items():
        r, s = rules_of(name, doc)
        kinds = symmetries(name, doc)
        for rule in r:  # each rule followed by its mirror images
            if (name, rule[2]) in ERRATA:
                skipped.append(f"{name}: - {rule[2]}  [not checked: {ERRATA[name, rule[2]]}]")
                continue
            rules += [rule] + mirrored([rule], kinds)
        skipped += [f"{name}: {line}" for line in s]
    for name, doc in docs.items():
        rules += via(name, doc, rules)
    lines = [
        "# ruff: noqa: E501",
        f'"""The special cases of the elementwise functions of the Array API standard {edition},',
        "one rule per sentence of the standard's text. Generated by conformance/special_cases.py",
        '(which says how to read a rule); do not edit by hand."""',
        "",
        f"EDITION = {edition!r}",
        f"SOURCE = {origin!r}  # where the stubs came from",
        "",
        "# (function, real or complex operands, the standard's sentence, condition, value, flags)",
        "# fmt: off",
        "RULES = [",
    ]
    for rule in rules:
        lines.append(f"    {rule!r},")
    lines += ["]", "# fmt: on"]
    OUT.write_text("\n".join(lines) + "\n")
    print(f"{len(rules)} rules written to {OUT}; lines that are not rules:")
    for line in skipped:
        print("   ", line)


if __name__ == "__main__":
    main(*sys.argv[1:3])
