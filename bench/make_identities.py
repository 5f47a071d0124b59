"""Write bench/identities.tsv: 300 identities of the kind SymPy's trigsimp/simplify tests exercise.

Generated here from templates written for this project (no test file is copied): trigonometric,
hyperbolic, exponential/logarithmic, rational and radical identities and ML activations, each
instantiated with several arguments; every template has a plausible mistake beside it (a wrong
coefficient, a sign, a swapped function), so the corpus is half true, half false. Deterministic:

    python bench/make_identities.py          # rewrites bench/identities.tsv
"""

from __future__ import annotations

import re
from pathlib import Path

OUT = Path(__file__).resolve().parent / "identities.tsv"

# (true lhs, true rhs, false lhs, false rhs, assume): {a} and {b} are replaced by the arguments
TEMPLATES = [
    ("sin({a})^2 + cos({a})^2", "1", "sin({a})^2 - cos({a})^2", "1", ""),
    ("sin(2*({a}))", "2*sin({a})*cos({a})", "sin(2*({a}))", "2*sin({a})", ""),
    ("cos(2*({a}))", "cos({a})^2 - sin({a})^2", "cos(2*({a}))", "2*cos({a})^2 + 1", ""),
    ("cos(2*({a}))", "1 - 2*sin({a})^2", "cos(2*({a}))", "1 - sin({a})^2", ""),
    ("sin(3*({a}))", "3*sin({a}) - 4*sin({a})^3", "sin(3*({a}))", "3*sin({a}) - 3*sin({a})^3", ""),
    ("cos(3*({a}))", "4*cos({a})^3 - 3*cos({a})", "cos(3*({a}))", "4*cos({a})^3 + 3*cos({a})", ""),
    (
        "sin({a} + {b})",
        "sin({a})*cos({b}) + cos({a})*sin({b})",
        "sin({a} + {b})",
        "sin({a})*cos({b}) - cos({a})*sin({b})",
        "",
    ),
    (
        "cos({a} - ({b}))",
        "cos({a})*cos({b}) + sin({a})*sin({b})",
        "cos({a} - ({b}))",
        "cos({a})*cos({b}) - sin({a})*sin({b})",
        "",
    ),
    (
        "sin({a})*sin({b})",
        "(cos({a} - ({b})) - cos({a} + {b}))/2",
        "sin({a})*sin({b})",
        "(cos({a} + {b}) - cos({a} - ({b})))/2",
        "",
    ),
    (
        "cos({a})*cos({b})",
        "(cos({a} - ({b})) + cos({a} + {b}))/2",
        "cos({a})*cos({b})",
        "cos({a} - ({b}))*cos({a} + {b})",
        "",
    ),
    ("sin({a})^2", "(1 - cos(2*({a})))/2", "sin({a})^2", "(1 + cos(2*({a})))/2", ""),
    ("1 + tan({a})^2", "sec({a})^2", "1 + tan({a})^2", "csc({a})^2", ""),
    ("1 + cot({a})^2", "csc({a})^2", "1 - cot({a})^2", "csc({a})^2", ""),
    ("tan({a})", "sin({a})/cos({a})", "tan({a})", "cos({a})/sin({a})", ""),
    ("cosh({a})^2 - sinh({a})^2", "1", "cosh({a})^2 + sinh({a})^2", "1", ""),
    ("sinh(2*({a}))", "2*sinh({a})*cosh({a})", "sinh(2*({a}))", "2*sinh({a})", ""),
    ("cosh({a}) + sinh({a})", "exp({a})", "cosh({a}) - sinh({a})", "exp({a})", ""),
    ("tanh({a})", "(exp(2*({a})) - 1)/(exp(2*({a})) + 1)", "tanh({a})", "(exp({a}) - 1)/(exp({a}) + 1)", ""),
    ("exp({a} + {b})", "exp({a})*exp({b})", "exp({a} + {b})", "exp({a}) + exp({b})", ""),
    ("exp(2*({a}))", "exp({a})^2", "exp(2*({a}))", "2*exp({a})", ""),
    ("log(u*v)", "log(u) + log(v)", "log(u + v)", "log(u) + log(v)", "u=positive v=positive"),
    ("log(u^3)", "3*log(u)", "log(u^3)", "log(u)^3", "u=positive"),
    ("log(u/v)", "log(u) - log(v)", "log(u/v)", "log(u)/log(v)", "u=positive v=positive"),
    ("({a} + {b})^2", "({a})^2 + 2*({a})*({b}) + ({b})^2", "({a} + {b})^2", "({a})^2 + ({b})^2", ""),
    (
        "({a} + {b})^3",
        "({a})^3 + 3*({a})^2*({b}) + 3*({a})*({b})^2 + ({b})^3",
        "({a} + {b})^3",
        "({a})^3 + ({b})^3",
        "",
    ),
    ("(({a})^2 - ({b})^2)/({a} - ({b}))", "{a} + {b}", "(({a})^2 - ({b})^2)/({a} - ({b}))", "{a} - ({b})", ""),
    ("1/({a}) + 1/({b})", "({a} + {b})/(({a})*({b}))", "1/({a}) + 1/({b})", "1/({a} + {b})", ""),
    ("sqrt(u)*sqrt(v)", "sqrt(u*v)", "sqrt(u) + sqrt(v)", "sqrt(u + v)", "u=positive v=positive"),
    ("sigmoid({a})", "1 - sigmoid(-({a}))", "sigmoid({a})", "sigmoid(-({a}))", ""),
    ("tanh({a})", "2*sigmoid(2*({a})) - 1", "tanh({a})", "2*sigmoid({a}) - 1", ""),
    ("softplus({a}) - softplus(-({a}))", "{a}", "softplus({a}) + softplus(-({a}))", "{a}", ""),
    (
        "logsumexp({a} + c, {b} + c)",
        "c + logsumexp({a}, {b})",
        "logsumexp({a} + c, {b} + c)",
        "logsumexp({a}, {b})",
        "",
    ),
]
ARGS = [("x", "y"), ("2*x", "y"), ("x + y", "z"), ("x/2", "3*y"), ("x - 1", "y + 1")]


def rows() -> list[str]:
    out = []
    for k, (lt, rt, lf, rf, assume) in enumerate(TEMPLATES):
        uses_args = "{a}" in lt + rt
        for j, (a, b) in enumerate(ARGS if uses_args else ARGS[:1]):
            true = [lt.format(a=a, b=b), rt.format(a=a, b=b)]
            false = [lf.format(a=a, b=b), rf.format(a=a, b=b)]
            for pair in (true, false):
                out.append("\t".join(pair + ([assume] if assume else [])))
    return out


def main() -> None:
    body = rows()
    while len(body) < 300:  # top up with further arguments of the first templates, deterministically
        body += [re.sub(r"\bx\b", "(3*x + 1)", r) for r in body[: 300 - len(body)]]
    body = body[:300]
    header = [
        "# 300 identities (half true, half false) for `mathcheck check --file`; generated by",
        "# bench/make_identities.py from templates written for this project. lhs<TAB>rhs[<TAB>assume]",
    ]
    OUT.write_text("\n".join(header + body) + "\n", encoding="utf-8")
    print(f"wrote {OUT} ({len(body)} rows)")


if __name__ == "__main__":
    main()
