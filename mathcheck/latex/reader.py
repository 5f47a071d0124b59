"""One LaTeX expression read into the text grammar of :mod:`mathcheck.parser` (a string; nothing is
evaluated): recursive descent over the tokens of :mod:`mathcheck.latex.tokens`."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import NoReturn

from mathcheck.latex.tokens import (
    ACCENTS,
    GREEK,
    MAX_DEPTH,
    NOT_LINKS,
    OUT,
    RELATIONS,
    STYLE,
    Tok,
    _GREEK_NAME,
    _Source,
    _bracket,
    _group,
)
from mathcheck.latex import indicator
from mathcheck.numeric import functions


# --- reading one expression ------------------------------------------------------------------------

_SPACING = {
    "quad",
    "qquad",
    ",",
    ";",
    ":",
    "!",
    " ",
    "displaystyle",
    "textstyle",
    "limits",
    "nolimits",
    "left",
    "right",
    "bigl",
    "bigr",
    "Bigl",
    "Bigr",
    "biggl",
    "biggr",
    "Biggl",
    "Biggr",
    "big",
    "Big",
    "bigg",
    "Bigg",
    "thinspace",
    "medspace",
    "thickspace",
    "allowbreak",
    "mathstrut",
    "strut",
    "middle",
}
_OPEN = {"(": ")", "[": "]", "{": "}", "lbrace": "rbrace", "lbrack": "rbrack"}
# LaTeX's function words (\ln, \arcsin, \max) come from the grammar's function table
FUNCTIONS = {w: n for w, n in functions.latex_words().items() if functions.lookup(n).arity is not functions.VARIADIC}
FUNCTIONS["operatorname"] = None  # \operatorname{softplus}: the word inside names the function
VARIADIC = {w: n for w, n in functions.latex_words().items() if w not in FUNCTIONS}
_PROBABILITY_STARTS = {"mathbb", "mathrm", "operatorname", "text", "mathsf", "mathcal", "textrm", "mathbf"}
_FUNCTION_STARTS = set(FUNCTIONS) | set(VARIADIC) | {"sum", "prod", "operatorname"}


@dataclass
class Notation:
    """What a chain's symbols are: indices (bound by a sum, or declared integers), the bases indexed
    by them, functions by another name (``% let: \\sigma = sigmoid``), variables that shadow ``e``."""

    indices: set
    indexed: set
    functions: dict
    variables: set
    defined: set = field(default_factory=set)  # names a % let: defines (a derivative of one is read)
    unknown: set = field(default_factory=set)  # unknown functions applied (f(x), L(\\theta)), as read
    implicit: set = field(default_factory=set)  # those read from a derivative alone: dz/dx is z(x)'s
    generic: set = field(default_factory=set)  # N_sum of \\sum_i: a generic range 1..N_sum, a positive integer
    excluded: set = field(default_factory=set)  # (i, 1, N_sum) of \\sum_{k \\ne i}: i in the range (a hypothesis)
    densities: set = field(default_factory=set)  # Y of % assume: Y = g(X) or Y \\sim …: p_Y(y) is its density, a claim
    params: dict = field(default_factory=dict)  # a defined function's parameters: f(x, y) = x y gives f: (x, y)
    letters: set = field(default_factory=set)  # letters the chain writes other than as an exponent (^t: t's use)
    free: set = field(default_factory=set)  # i, j of \\delta_{ij} bound nowhere: indices over a range (hypotheses)
    families: dict = field(default_factory=dict)  # \\sigma_i(z) of a vector z: key -> (name, z, i or "")


QUANTITY_E = "E_def"  # a quantity the document defines as E (the text grammar's E is Euler's number)


class Reader:
    """Recursive descent over one expression's tokens, writing the text grammar of
    :mod:`mathcheck.parser` (a string; nothing is evaluated). ``read()`` is the whole expression."""

    def __init__(self, toks: list[Tok], src: _Source, notation: Notation, bound=frozenset()):
        toks = _grouped_digits(toks)
        self.t = [
            t for t in toks if not (t.kind == "cmd" and t.text in _SPACING) and not (t.kind == "ch" and t.text == "~")
        ]
        self.t = _without_empty_groups(self.t)
        self.i, self.src, self.n, self.depth, self.abs = 0, src, notation, 0, 0
        self.bound = set(bound)
        self.collect = None  # pass one: the set that gathers the bases subscripted by an index in scope
        self.partner = False  # reading the x of w^t x (an inner product): x, a vector, is read there

    # tokens
    def peek(self, k: int = 0) -> Tok | None:
        return self.t[self.i + k] if self.i + k < len(self.t) else None

    def take(self) -> Tok | None:
        t = self.peek()
        self.i += 1
        return t

    def at(self, kind: str, *texts, k: int = 0) -> bool:
        t = self.peek(k)
        return t is not None and t.kind == kind and (not texts or t.text in texts)

    def fail(self, tok, message: str) -> NoReturn:
        pos = tok.pos if tok is not None else (self.t[-1].end if self.t else 0)
        self.src.fail(pos, message)

    def sub(self, toks, bound=()) -> Reader:
        r = Reader(toks, self.src, self.n, self.bound | set(bound))
        r.depth, r.collect = self.depth, self.collect
        return r

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            t = self.peek() or (self.t[-1] if self.t else None)
            self.src.refuse(t.pos if t else 0, f"expression nested too deeply (over {MAX_DEPTH} levels)")

    # grammar
    def read(self) -> str:
        if not self.t:
            self.fail(None, "an empty expression")
        out = self.expr()
        if self.peek() is not None:
            t = self.peek()
            self.fail(t, f"cannot read {self._show(t)!r} here")
        return out

    def expr(self) -> str:
        self.enter()
        out = ""
        if self.at("ch", "+", "-"):
            out = "-" if self.take().text == "-" else ""
            out += self.term()
        else:
            out = self.term()
        while self.at("ch", "+", "-") or self.at("cmd", "pm", "mp"):
            t = self.take()
            if t.kind == "cmd":
                self.fail(t, "\\pm and \\mp are two formulas; write each one")
            out += f" {t.text} {self.term()}"
        self.depth -= 1
        return out

    def term(self, argument: bool = False) -> str:
        """Factors multiplied, explicitly or by juxtaposition. As a function's argument without
        parentheses (``\\log 2\\pi\\sigma^2``) it stops at an explicit operator or another function."""
        self.enter()
        out = self.signed()
        while True:
            t = self.peek()
            if t is None:
                break
            if (t.kind == "cmd" and t.text in ("cdot", "times", "ast")) or (t.kind == "ch" and t.text == "*"):
                if argument:
                    break
                self.take()
                out = f"{out}*{self.signed()}"
            elif (t.kind == "cmd" and t.text == "div") or (t.kind == "ch" and t.text == "/"):
                if argument:
                    break
                self.take()
                out = f"{out}/{_wrap(self.factor())}"  # x \div \frac{a}{b} is x/(a/b), not (x/a)/b
                if self.peek() is not None and self.starts_factor(self.peek()):
                    self.fail(t, "a/bc is ambiguous (a/(bc) or (a/b)c); write \\frac{a}{bc} or \\frac{a}{b} c")
            elif self.starts_factor(t):
                if argument and self.function_start(t):
                    break
                if t.kind == "num" and self.i > 0 and self.t[self.i - 1].kind == "num":
                    self.fail(
                        t,
                        f"two numbers side by side ({self.t[self.i - 1].text} {t.text}): write one number "
                        f"(1\\,000 and 1{{,}}000 are read as 1000) or a product with \\cdot",
                    )
                out = f"{out}*{self.factor()}"
            else:
                break
        self.depth -= 1
        return out

    def signed(self) -> str:
        if self.at("ch", "-"):
            self.take()
            return f"(-{self.factor()})"
        if self.at("ch", "+"):
            self.take()
        return self.factor()

    def starts_factor(self, t) -> bool:
        if t.kind in ("num", "op"):
            return True
        if t.kind == "ch":
            return (t.text.isascii() and t.text.isalpha()) or t.text in "([{" or (t.text == "|" and self.abs == 0)
        if t.kind == "cmd" and t.text in ("text", "textrm") and self.peek() is t:
            from mathcheck.latex import probability

            # prose after an expression (\text{ for all }) ends it, but 2\textrm{Var}(X) is a product
            found = probability._peek_word(self, t)
            return found is not None and found[0] in probability.OPERATORS
        if t.kind == "cmd":
            return (
                t.text
                not in (
                    "cdot",
                    "times",
                    "div",
                    "ast",
                    "pm",
                    "mp",
                    "rvert",
                    "rbrace",
                    "rbrack",
                    "}",
                    "right",
                    "text",
                    "textrm",
                    "mbox",
                    "tag",
                )
                and t.text not in RELATIONS
                and t.text not in NOT_LINKS
                and t.text != "\\"
            )
        return False

    def function_start(self, t) -> bool:
        return t.kind == "op" or (t.kind == "cmd" and (t.text in _FUNCTION_STARTS or t.text in self.n.functions))

    def factor(self) -> str:
        self.enter()
        start = self.i
        out, powered = self.atom(), False
        while True:
            if self.at("ch", "^"):
                t = self.take()
                if powered:
                    self.fail(t, "a double superscript (a^b^c); write a^{b^c} or {a^b}^c")
                self.not_a_vector_power(start, t)
                tag = self.word_label(out)
                if tag is not None:
                    out = _checked_name(f"{out}_{tag}", self, t)
                    continue
                inner = self.inner_product(out, t)
                if inner is not None:
                    out, powered = inner, True
                    continue
                if out in vectors(self.src):  # w^t with t a step elsewhere in the chain: never a power of a vector
                    self.fail(t, f"{out} is a vector here (w^t x is an inner product): a power of it is not read")
                self.not_a_transpose(t, out)
                out, powered = self.power(out, self.script(t, "^"), t), True
            elif self.at("ch", "!"):
                self.take()
                out = f"factorial({out})"
            elif self.at("ch", "'"):
                self.fail(
                    self.peek(),
                    "primes are not read; name the quantity, e.g. f_1, or write the derivative as \\frac{d}{dx}",
                )
            else:
                break
        self.depth -= 1
        return out

    def not_a_vector_power(self, start: int, tok) -> None:
        r"""Refuse a bold base raised to a bold exponent — d2l's multinoulli mass ``\boldsymbol{\pi}^{\mathbf{y}_i}``,
        the product of π_j^{y_ij} over the entries (a notation, not a power of one value): read as π^y[i] it
        made π one name beside its entries π_j."""
        bold = lambda k: k < len(self.t) and self.t[k].kind == "cmd" and self.t[k].text in _BOLD  # noqa: E731
        if bold(start) and (bold(self.i) or (self.at("ch", "{") and bold(self.i + 1))):
            self.fail(tok, "a vector to a vector power (the product of p_j^{z_j} over the entries) is not read")

    def power(self, base: str, exponent: str, tok) -> str:
        """``base^exponent`` with both operands whole: ``\\frac{a}{b}^2`` is ``(a/b)^2`` and
        ``\\sqrt[3]{x}^2`` is ``(x^(1/3))^2`` (the text grammar's ``^`` binds tighter than ``/`` and
        groups to the right, so an unwrapped base would be a/(b^2) and x^((1/3)^2))."""
        if base == "e" and "e" not in self.n.variables:
            return f"exp({exponent})"
        return f"{_wrap(base)}^{_wrap(exponent)}"

    def sample_label(self, base: str) -> bool:
        r"""``x^{(i)}``, ``a^{(l-1)}``, ``\hat{y}^{(i)}``: a sample's or a layer's label in parentheses is
        read as the subscript it stands for — ``x_i``, an entry where i is an index in scope (the i-th
        sample of a sum over i), else the name x_i — never a power. ``f^{(n)}(x)`` (a derivative's order,
        before its argument), ``e^{(k)}`` (Euler's number?) and ``x^{(2)}`` (digits: a power?) stay refused.
        True where the label stands before a parenthesis and the expression writes the name elsewhere as a
        value (``y^{(i)}(1-a^{(i)}) - (1-y^{(i)})a^{(i)}``): a product, never y_i applied."""
        if base == "e" or not self.at("ch", "^") or self.i + 1 >= len(self.t):
            return False
        toks, end = _group(list(self.t), self.i + 1, self.src, "^")
        inner = toks[1:-1]
        if len(toks) < 3 or toks[0].text != "(" or toks[-1].text != ")":
            return False
        letter = inner[0].kind == "ch" and inner[0].text.isalpha() and len(inner[0].text) == 1
        rest = inner[1:]
        if not letter or (rest and not (len(rest) == 2 and rest[0].text in "+-" and rest[1].kind == "num")):
            return False
        before_parens = end < len(self.t) and self.t[end].kind == "ch" and self.t[end].text == "("
        if before_parens and not self._label_as_value(toks):
            return False  # f^{(n)}(x): the n-th derivative of f
        hat = self.t[self.i]
        self.t = [
            *self.t[: self.i],
            Tok("ch", "_", hat.pos, hat.end),
            Tok("ch", "{", toks[0].pos, toks[0].end),
            *inner,
            Tok("ch", "}", toks[-1].pos, toks[-1].end),
            *self.t[end:],
        ]
        return before_parens

    def layer_entry(self, base: str, tok) -> str | None:
        r"""``a_j^{(l)}``, ``W^{(l)}_{ij}``, ``z_i^{(l+1)}``, ``\delta_i^{(l)}`` (UFLDL-style backprop notes): a
        name with a layer's label in parentheses and a subscript of index letters is an entry of that layer's
        array — the label names the array (one quantity per layer, so W^{(l)} and W^{(l+1)} are two) and the
        subscript its entry: ``a_layer_l[j]``, ``W_layer_l[i, j]``, ``z_layer_lplus1[i]``. The label is a
        letter, a letter plus or minus a digit, or a subscripted letter (``n_l``); the subscript one or more
        single letters. None otherwise (the caller reads the name as before: a label alone, ``a^{(l)}``, is
        the name a_l, the notes' layer vector in their matrix form, never one of these entries; a label with
        a subscript that is none of these stays refused). Layers are not related to each other:
        ``z_layer_l`` is no shift of ``z_layer_lplus1``, so a definition at one label is never unfolded at
        another."""
        if base in self.n.functions or base in ("e",) or not self.at("ch", "^", "_"):
            return None
        t = list(self.t)
        first = t[self.i].text
        script, after = _group(t, self.i + 1, self.src, first)
        if after >= len(t) or t[after].kind != "ch" or t[after].text not in "^_" or t[after].text == first:
            return None
        other, end = _group(t, after + 1, self.src, t[after].text)
        label, sub = (script, other) if first == "^" else (other, script)
        word = _layer_word(label)
        letters = [x for x in sub if x.text != ","]
        running = self.bound | self.n.indices | self.n.variables  # a sum's index, a declared quantity
        if (
            word is None
            # x_j^{(i)} in a sum over i: the label runs with the sum, no fixed layer's array (x_layer_i would be
            # one quantity for every i, the sum n times it)
            or any(x.kind == "ch" and x.text in running for x in label)
            or not letters
            or not all(x.kind == "ch" and len(x.text) == 1 and x.text.isalpha() for x in letters)
            or (end < len(t) and t[end].kind == "ch" and t[end].text in "(^'")
        ):
            return None
        name = _checked_name(f"{base}_layer_{word}", self, tok)
        if name not in self.n.families and name in self.n.variables | self.n.defined | set(self.n.functions):
            return None
        self.i = end
        if self.collect is not None:
            return name
        at = self.indices(sub, tok)
        if name in self.n.families:  # z_j^{(l+1)} after z_i^{(l+1)} = …: the family's entry at j
            family, _, index = self.n.families[name]
            if not index or len(at) != len(index.split(", ")):
                self.fail(tok, f"{name} is defined entry by entry, {name}({index}); here {len(at)} indices")
            return f"{family}({', '.join(at)})"
        return f"{name}[{', '.join(at)}]"

    def calligraphic_label(self) -> str | None:
        r"""``\mathcal{L}^{(i)}``: a calligraphic capital with a sample's label is one member of a family
        (statnotes' loss of sample i, ``J = \frac{1}{m}\sum_i \mathcal{L}^{(i)}``): the name ``L_cal``
        (never the plain L), its label read by :meth:`sample_label`. Taken only then; None otherwise
        (``\mathcal{D}`` a set, ``\mathcal{N}(…)`` a law stay as before)."""
        k = self.i + 1
        if k + 3 > len(self.t) or [x.text for x in self.t[k : k + 3 : 2]] != ["{", "}"]:
            return None
        letter = self.t[k + 1]
        if not (letter.kind == "ch" and len(letter.text) == 1 and letter.text.isupper()):
            return None
        if k + 5 > len(self.t) or self.t[k + 3].text != "^" or [x.text for x in self.t[k + 4 : k + 6]] != ["{", "("]:
            return None
        self.i = k + 3
        return f"{letter.text}_cal"

    def _label_as_value(self, label: list[Tok]) -> bool:
        r"""``a^{(i)}(1 - a^{(i)})``: a labelled name before a parenthesis is a value times it, not a
        derivative applied (``f^{(n)}(x)``), when the same name with the same label stands elsewhere in
        the expression as a value — not before a parenthesis (statnotes' sigmoid derivative
        ``\partial a^{(i)} / \partial z^{(i)} = a^{(i)}(1 - a^{(i)})``). A name of a function is never."""
        at = self.i - 1
        base = self.t[at] if at >= 0 else None
        if base is None or base.text in self.n.functions or not (base.kind == "cmd" or base.text.isalpha()):
            return False
        spelled = [x.text for x in label]
        n = len(label)
        for k, x in enumerate(self.t):
            if k == at or x.kind != base.kind or x.text != base.text:
                continue
            if k + 1 >= len(self.t) or self.t[k + 1].text != "^" or self.t[k + 1].kind != "ch":
                continue
            group = self.t[k + 2 : k + 2 + n + 2]
            if len(group) != n + 2 or group[0].text != "{" or [x.text for x in group[1:-1]] != spelled:
                continue
            after = self.t[k + 2 + n + 2] if k + 2 + n + 2 < len(self.t) else None
            if after is None or not (after.kind == "ch" and after.text == "("):
                return True
        return False

    def word_label(self, base: str) -> str | None:
        r"""``\hat{y}^{(FM)}``, ``y^{(\text{DNN})}``: a word of two letters or more in parentheses after
        a name, capitals or in ``\text``, is a label naming another quantity (``y_hat_FM``), never a
        power — d2l's DeepFM ``\hat{y} = \sigma(\hat{y}^{(FM)} + \hat{y}^{(DNN)})`` was read with powers
        F·M and D·N·N, and refuted as a claim about ŷ. None for anything else (``^{(1)}``, ``^{(i)}``
        are refused by :meth:`not_a_transpose`)."""
        if self.i >= len(self.t) or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", base):
            return None
        toks, j = _group(list(self.t), self.i, self.src, "^")
        if len(toks) < 3 or toks[0].text != "(" or toks[-1].text != ")":
            return None
        word = _word(toks[1:-1])
        letters = sum(x.kind == "ch" and x.text.isalpha() for x in toks[1:-1])
        spelled_out = any(x.kind == "cmd" and x.text in STYLE for x in toks[1:-1])
        # lowercase letters side by side stay a product in the exponent (x^{(ab)}: a power, as before)
        if (
            word is None
            or not word.isalpha()
            or len(word) < 2
            or not (spelled_out or (letters == len(word) and not word.islower()))
        ):
            return None
        self.i = j
        return word

    def inner_product(self, base: str, tok) -> str | None:
        r"""``w^t x``, ``w^t x^{(i)}`` where the document declares w a vector (``$w\in\mathbb{R}^n$``) and
        t is nowhere else: the transpose of w times the vector x, their inner product — one real number,
        read as the quantity ``wTx`` (``wTx_i``, ``wTx[i]`` as x_i is a name or an entry). It depends on
        w and x alone, so its derivative in b is 0; w and x themselves are vectors, never read as
        values (:func:`vectors`): a derivative in w is a gradient, not read. statnotes' logistic
        regression writes its model so, ``a = \sigma(w^t x + b)``; before, the whole display was bad
        input ("a power in t, or the transpose?"). None where this is not the case."""
        if base not in vectors(self.src) or self.i >= len(self.t):
            return None
        toks, end = _group(list(self.t), self.i, self.src, "^")
        if [x.text for x in toks if x.text not in "{}"] != ["t"]:
            return None
        if "t" in self.n.variables | self.n.indices | self.bound | self.n.letters:
            return None
        nxt = self.t[end] if end < len(self.t) else None
        if nxt is None or not (nxt.kind == "ch" and nxt.text in vectors(self.src) and nxt.text != base):
            self.fail(
                tok, f"{base}^t: the transpose of the vector {base}, read only before the vector it multiplies (w^t x)"
            )
        self.i, self.partner = end, True
        try:
            other = self.atom()
        finally:
            self.partner = False
        m = re.fullmatch(rf"{nxt.text}(_\w+|\[[^\[\]]+\])?", other)
        if m is None or self.at("ch", "^", "_"):
            self.fail(tok, f"{base}^t {nxt.text}: an inner product read only of two vectors, w^t x or w^t x^{{(i)}}")
        return f"{base}T{other}"

    def transposed(self) -> bool:
        """Whether ``^t`` follows (the vector w of ``w^t x``, its inner product read next)."""
        return (
            self.at("ch", "^")
            and self.peek(1) is not None
            and (
                self.peek(1).text == "t"
                or self.peek(1).text == "{"
                and self.at("ch", "t", k=2)
                and self.at("ch", "}", k=3)
            )
        )

    def not_a_transpose(self, tok, base: str = "") -> None:
        """``x^T``, ``x^{\\mathsf{T}}``, ``x^\\top``: a transpose, never a power (vectors are out),
        unless ``% assume:`` declares T a quantity (``\\beta^T`` after T steps)."""
        if self.i >= len(self.t):
            return
        toks, _ = _group(list(self.t), self.i, self.src, "^")
        spelled = [x.text for x in toks if x.text not in "{}"]
        if (
            spelled
            in (
                ["top"],
                ["intercal"],
                ["T"],
                ["mathsf", "T"],
                ["mathrm", "T"],
                ["mathbf", "T"],
                ["text", "T"],
                ["textsf", "T"],
                ["sf", "T"],
            )
            and "T" not in self.n.variables
        ):
            self.fail(
                tok,
                "^T reads as a transpose, and vectors and matrices are out; if T is a number "
                "(a power), declare it: % assume: T \\in \\mathbb{Z}_{>0}",
            )
        if (
            spelled == ["t"]
            and not re.fullmatch(r"[0-9.]+", base)
            and "t" not in self.n.variables | self.n.indices | self.bound | self.n.letters
        ):
            # statnotes' logistic regression writes w^t x for the transpose: read as a power in t, the
            # derivative ∂(w^t x + b)/∂w = x was refuted; t nowhere else in the expression is no step count
            self.fail(
                tok,
                "^t: a power in t, or the transpose? t appears nowhere else here; for a power declare it, "
                "% assume: t \\in \\mathbb{R}",
            )
        inner = [x.text for x in toks[1:-1]]
        if (
            len(toks) >= 3
            and toks[0].text == "("
            and toks[-1].text == ")"
            and toks[0].kind == "ch"
            and (
                len(inner) == 1
                or (len(inner) == 3 and inner[1] in "+-" and inner[2].isdigit())
                or _subscripted_letter(toks[1:-1])
            )
        ):
            # e^{(k)} too: d2l's Newton error e^{(k+1)} read as exp(k + 1) was refuted
            # (1), (i), (l+1) label; e^{(x)}, x^{(a+b)} are powers
            # W^{(1)}, x^{(i)}, f^{(n)}: a label (layer, sample, derivative order), not a power
            self.fail(
                tok,
                "a superscript in parentheses, ^{(1)}, is a label (a layer, a sample, a derivative's "
                "order), not a power; write ^{1} for a power, or a subscript for a label",
            )

    def _event(self, t) -> str | None:
        from mathcheck.latex import probability

        return probability.event(self, t)

    def script(self, tok, what: str) -> str:
        """The argument of ``^`` (or of another one-argument command): a group or one token."""
        toks, self.i = _group(self.t, self.i, self.src, what)
        if not toks:
            self.fail(tok, f"{what} has an empty argument")
        return self.sub(toks).read()

    def arg_tokens(self, tok, what: str) -> list[Tok]:
        toks, self.i = _group(self.t, self.i, self.src, what)
        return toks

    # atoms
    def atom(self) -> str:
        t = self.peek()
        if t is None:
            self.fail(None, "an expression ends too early")
        if t.kind == "num":
            self.take()
            return t.text
        if t.kind == "op":
            self.take()
            return self.apply(self.function_name(t.text, t), t)
        if t.kind == "ch":
            if t.text == "P" and (reading := self._event(t)) is not None:  # P(X = 1): latex/probability.py
                return reading
            if t.text == "D" and (after := self._kl_subscript()) is not None:  # D_{\mathrm{KL}}(P \| Q)
                from mathcheck.latex import probability

                self.i = after
                return probability._kl(self, t)
            if t.text.isalpha() and (word := self.word_with_e()) is not None:
                return word
            if t.text.isalpha() and self.collect is None:
                word = self.letter_run()
                if word is not None:
                    return word
            if t.text == "E":
                return self.expectation(t)
            if t.text.isalpha():
                self.take()
                return self.named(t.text, t)
            if t.text in "([":
                return self.parens()
            if t.text == "{":
                toks, self.i = _group(self.t, self.i, self.src, "a group")
                return f"({self.sub(toks).read()})"
            if t.text == "|":
                return self.absolute("|", "|")
            self.fail(t, f"cannot read {t.text!r} here")
        name = t.text
        if name in ("Pr", "mathbb", "mathrm", "operatorname") and (reading := self._event(t)) is not None:
            return reading  # \Pr(X = 1), \mathbb{P}(X \le 0): latex/probability.py
        if name in indicator.FONTS and indicator.starts(self.t, self.i):  # \mathbb{1}(x \ge y): latex/indicator.py
            return indicator.indicator(self, t)
        if name in _PROBABILITY_STARTS:  # \mathbb{E}[…], \mathrm{Var}(…), \mathcal{N}(…): latex/probability.py
            from mathcheck.latex import probability

            reading = probability.operator(self, t)
            if reading is not None:
                return reading
        if name in GREEK or name == "ell":  # \ell: the name ell (a loss, a layer)
            self.take()
            return self.named(_GREEK_NAME.get(name, name), t)
        if name in ("frac", "dfrac", "tfrac", "cfrac"):
            return self.fraction()
        if name == "sqrt":
            self.take()
            root, self.i = _bracket(self.t, self.i)
            arg = self.script(t, "\\sqrt")
            if root is None:
                return f"sqrt({arg})"
            return f"{_wrap(arg)}^(1/{_wrap(self.sub(root).read())})"
        if name in ("binom", "dbinom", "tbinom"):
            self.take()
            top, bottom = self.script(t, "\\binom"), self.script(t, "\\binom")
            return f"binomial({top}, {bottom})"
        if name == "operatorname" and name not in self.n.functions:
            return self.operator()
        if name in FUNCTIONS or name in self.n.functions:
            self.take()
            return self.apply(self.function_name(name, t), t)
        if name in VARIADIC:
            self.take()
            if not self.at("ch", "(", "["):
                self.fail(t, f"\\{name} takes its arguments in parentheses: \\{name}(a, b)")
            return f"{VARIADIC[name]}({', '.join(self.arguments())})"
        if name in ("sum", "prod"):
            return self.big()
        if name in ("lvert", "vert"):
            return self.absolute(name, "rvert" if name == "lvert" else "vert")
        if name in ("lbrace", "lbrack", "{"):
            return self.parens()
        if name in STYLE:
            self.take()
            toks = self.arg_tokens(t, f"\\{name}")
            word = _word(toks)
            if word is None:
                return f"({self.sub(toks).read()})"
            if (
                word.lower() in _PARSER_FUNCTIONS
                and len(word) > 1
                and self.at("ch", "(", "^", "{")
                or word in _PARSER_FUNCTIONS
            ):
                return self.apply(word.lower() if word.lower() in _PARSER_FUNCTIONS else word, t)
            if name in _BOLD and word[0].isupper() and word not in self.n.variables:
                self.fail(t, f"\\{name}{{{word}}}: a bold capital is a matrix, and matrices are out (docs/latex.md)")
            if word in _NOT_SCALAR and (self.at("ch", "(", "[", "_") or name == "operatorname"):
                self.fail(t, f"\\{name}{{{word}}}: {_NOT_SCALAR[word]} is not read (docs/latex.md)")
            if len(word) > 1 and self.at("ch", "(", "'"):  # \mathrm{CE}(y, p): an unknown function
                return self.unknown_function(_checked_name(word, self, t), f"\\{name}{{{word}}}", t)
            if len(word) > 1 and name == "operatorname":
                self.fail(t, f"\\operatorname{{{word}}} needs its argument in parentheses, \\operatorname{{{word}}}(x)")
            return self.named(word, t)
        if name in ("dot", "ddot"):
            return self.newton(t, name)
        if name in ("textcolor", "color", "colorbox"):
            return self.coloured(t, name)
        if name in ACCENTS:
            self.take()
            toks = self.arg_tokens(t, f"\\{name}")
            word = _word(toks)
            if word is None:
                self.fail(t, f"\\{name}{{…}} is read over one name only, e.g. \\{name}{{x}}")
            return self.named(f"{word}_{ACCENTS[name]}", t)
        if name == "vartriangle" and (nxt := self.peek(1)) is not None and _letter(nxt):
            # backprop notes' \vartriangle w_{hm}, the weight change: the name Delta_w, never a product (no Δ·w)
            self.take()
            self.take()
            return self.named(f"Delta_{_GREEK_NAME.get(nxt.text, nxt.text)}", t)
        if name == "int":  # \int_a^b f\,dx: latex/integrals.py
            from mathcheck.latex import integrals

            return integrals.integral(self, t)
        if name == "lim":
            return self.limit(t)
        if name == "nabla":
            return self.nabla(t)
        if name == "partial" and (nxt := self.peek(1)) is not None and nxt.kind == "ch" and nxt.text == "_":
            return self.partial_subscript(t)
        if name == "partial":
            self.fail(t, "a derivative is read as \\frac{\\partial f}{\\partial x}, \\partial_x f or \\frac{d}{dx} f")
        if name == "mathcal" and (cal := self.calligraphic_label()) is not None:
            return self.named(cal, t)
        if name in OUT or name.rstrip("*") in OUT:
            self.fail(
                t,
                f"\\{name}: {OUT.get(name) or OUT.get(name.rstrip('*')) or name} not read "
                f"(docs/latex.md lists what is)",
            )
        if name in RELATIONS or name in NOT_LINKS:
            self.fail(t, f"\\{name} inside an expression; a link's relation stands between two expressions")
        self.fail(t, f"unknown command \\{name}; define it with \\newcommand or see docs/latex.md for what is read")

    def limit(self, t) -> str:
        """``\\lim_{h \\to 0} body``, ``\\lim_{h\\ \\to 0}``, ``\\lim_{\\epsilon \\rightarrow 0}``: ``Limit(body, (h, 0))``,
        the two-sided limit; the body is the whole term after it, up to the next ``+``, ``−`` or relation
        (as ``\\frac{d}{dx}``'s). A limit at ∞, a one-sided one (``h \\to 0^+``) and ``\\lim`` without
        ``_{h \\to a}`` are refused with one line, never read as another limit."""
        self.take()
        while self.at("cmd", "limits", "nolimits"):
            self.take()
        if not self.at("ch", "_"):
            self.fail(t, "\\lim needs its variable and point: \\lim_{h \\to 0}")
        self.take()
        toks, self.i = _group(self.t, self.i, self.src, "\\lim_")
        toks = [x for x in toks if not (x.kind == "cmd" and x.text in _SPACING)]
        arrows = [k for k, x in enumerate(toks) if x.kind == "cmd" and x.text in _LIMIT_ARROWS]
        if len(arrows) != 1 or arrows[0] == 0 or arrows[0] == len(toks) - 1:
            self.fail(t, "\\lim is read as \\lim_{h \\to a}: one variable, an arrow, a finite point")
        var, point = toks[: arrows[0]], toks[arrows[0] + 1 :]
        h = self.sub(var).read()
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", h):
            self.fail(t, f"\\lim_{{… \\to …}}: the variable must be one name, not {h}")
        if any(x.kind == "cmd" and x.text == "infty" for x in point):
            self.fail(t, "a limit at infinity is not read (only at a finite point); skip the block")
        if any(x.kind == "ch" and x.text == "^" for x in point) or point[-1].text in ("+", "-"):
            self.fail(t, "a one-sided limit (h \\to 0^+) is not read; only the two-sided \\lim_{h \\to a}")
        a = self.sub(point).read()
        if self.peek() is None or not self.starts_factor(self.peek()):
            self.fail(t, f"\\lim_{{{h} \\to {a}}} needs something after it")
        body = self.term()
        return f"Limit({body}, ({h}, {a}))"

    def expectation(self, t) -> str:
        """A capital E set plain: ``E[X]``, ``E\\left[(X - \\mu)^2\\right]``, ``E(\\hat\\theta)`` are the
        expectation (d2l writes it so: 46 times ``E[``), read as ``\\mathbb{E}`` is; an E alone is bad input.
        The text grammar's ``E`` is Euler's number, so ``E[X^2] - E[X]^2`` was read as e·X² − e²·X²
        and d2l's correct variance formula was refuted; Euler's number in LaTeX is ``e``."""
        self.take()
        defined = self.src.quantity_e is not None and t.pos >= self.src.quantity_e
        if defined and self.at("ch", "(", "["):
            self.fail(
                t,
                f"E is a quantity this document defines (line {self.src.line(self.src.quantity_e)}), and E(…) or "
                f"E[…] here is an expectation or E times (…)? one letter, two meanings: write \\mathbb{{E}}[…] "
                f"for the expectation",
            )
        if self.at("ch", "_") and self.expectation_in_braces():
            self.fail(
                t,
                "E_x E_y \\left\\{…\\right\\}: expectations over single variables of a braced body are not "
                "read; write one expectation under the law, E_{(x, y) \\sim P}[…]",
            )
        if self.at("ch", "_") and not self.applied_after_script():
            return self.named("E", t)  # E_0, E_j: a name (E_{x \sim p}[f] stays an expectation, not read)
        if self.at("ch", "_") and not defined:
            from mathcheck.latex import probability

            if (reading := probability.law_expectation(self, t, "E")) is not None:
                return reading  # d2l's E_{x \sim P}[\log p(x)]: the expectation under the law p of P
        if defined:  # E = \frac12 \sum_k (t_k - y_k)^2 (backprop notes' error): the name, never Euler's E
            return QUANTITY_E
        if not self.at("ch", "(", "["):
            self.fail(
                t,
                "a plain E is read only as an expectation, E[X], or as the quantity the document defines "
                "with E = …; Euler's number is e, and a quantity named E needs its definition, another "
                "name (E_0, \\mathcal{E}) or % mathcheck: skip",
            )
        args = self.arguments()
        if len(args) != 1:
            self.fail(t, "E[…] takes one argument, e.g. E[X^2]")
        return f"E({args[0]})"

    def run_end(self) -> int:
        """The index of the last of the letters side by side in the source from here (``net``, ``sigmoid``)."""
        k = self.i
        while (
            k + 1 < len(self.t)
            and self.t[k + 1].kind == "ch"
            and self.t[k + 1].text.isascii()
            and self.t[k + 1].text.isalpha()
            and self.t[k + 1].pos == self.t[k].end
        ):
            k += 1
        return k

    def word_with_e(self) -> str | None:
        """``net_m``, ``net``: three letters or more side by side in the source with an ``e`` inside them
        are the name its author typed (backprop notes' net input), as ``\\mathrm{net}_m`` is — letter by
        letter, the e between n and t was Euler's number, n·e·t_m. Not where e is a declared variable,
        nor before ``(`` (:meth:`letter_run` reads or refuses ``sigmoid(z)``)."""
        k = self.run_end()
        word = "".join(x.text for x in self.t[self.i : k + 1])
        if len(word) < 3 or "e" not in word[:-1] or "e" in self.n.variables or not self.t[self.i].text.isascii():
            return None
        if self.at("ch", "(", k=k + 1 - self.i):
            return None
        first = self.t[self.i]
        self.i = k + 1
        return self.named(word, Tok("ch", word, first.pos, self.t[k].end))

    def expectation_in_braces(self) -> bool:
        """At ``_`` after E: whether another ``E_…`` or a brace (``\\left\\{``, ``\\{``) follows the
        subscript — d2l's ``E_{x} E_{y} \\left\\{ … \\right\\}``, never the names E_x times E_y."""
        _, j = _group(list(self.t), self.i + 1, self.src, "_")
        nxt = self.t[j] if j < len(self.t) else None
        if nxt is None:
            return False
        if nxt.kind == "cmd" and nxt.text in ("left", "big", "Big", "bigl", "Bigl") and j + 1 < len(self.t):
            nxt = self.t[j + 1]  # \left\{: the brace after the size
        if nxt.kind == "cmd" and nxt.text in ("lbrace", "{"):
            return True
        return nxt.kind == "ch" and nxt.text == "E" and j + 1 < len(self.t) and self.t[j + 1].text == "_"

    def applied_after_script(self) -> bool:
        """At ``_``: whether ``(`` or ``[`` follows the subscript (``E_{x \\sim p}[x]``, ``E_j(x)``)."""
        _, j = _group(list(self.t), self.i + 1, self.src, "_")
        return j < len(self.t) and self.t[j].kind == "ch" and self.t[j].text in "(["

    def letter_run(self) -> str | None:
        """``sigmoid(z)``, ``max(0, z)``, ``tanh(z)`` typed without a backslash: letters side by side in
        the source, then ``(``, spelling a function of the table are that function — never
        s·i·g·m·o·i·d(z). Three letters or more that spell none are bad input (a product or a function?);
        ``ab(c + d)`` stays the letters' reading."""
        k = self.run_end()
        if (
            k == self.i
            or k + 1 >= len(self.t)
            or not (self.t[k + 1].kind == "ch" and self.t[k + 1].text == "(")
            or self.t[k + 1].pos != self.t[k].end
        ):
            return None
        word = "".join(x.text for x in self.t[self.i : k + 1])
        name = (
            VARIADIC.get(word) or FUNCTIONS.get(word) or (word.lower() if word.lower() in _PARSER_FUNCTIONS else None)
        )
        if name is None:
            if k - self.i + 1 >= 3:
                self.fail(
                    self.t[self.i],
                    f"{word}(…): letters side by side before parentheses; write \\operatorname{{{word}}}(…) "
                    f"for a function, or \\cdot between factors",
                )
            return None
        first = self.t[self.i]
        self.i = k + 1
        if name in VARIADIC.values():
            return f"{name}({', '.join(self.arguments())})"
        return self.apply(name, first)

    def operator(self) -> str:
        """``\\operatorname{softplus}(x)`` (the table's), ``\\operatorname{LSE}(x)``, ``\\operatorname{LSE}'(x)``
        (an unknown function, its derivative)."""
        t = self.take()
        toks = self.arg_tokens(t, "\\operatorname")
        word = _word(toks)
        if word in _NOT_SCALAR:
            self.fail(t, f"\\operatorname{{{word}}}: {_NOT_SCALAR[word]} is not read (docs/latex.md)")
        if word in self.n.functions:  # \operatorname{pReLU}(x) = … defined it above
            return self.apply(self.n.functions[word], t)
        if word and word.lower() in _PARSER_FUNCTIONS and word not in _PARSER_FUNCTIONS:
            word = word.lower()  # \operatorname{ReLU} is the table's relu: table names in any case
        if word in _PARSER_FUNCTIONS and not self.at("ch", "'"):
            return self.apply(word, t)
        if word is None or not self.at("ch", "(", "'"):
            self.fail(t, f"\\operatorname{{{word}}} is read as a function applied, \\operatorname{{{word}}}(x)")
        if word in _PARSER_FUNCTIONS:
            return self.primed(word, t)
        return self.unknown_function(_checked_name(word, self, t), f"\\operatorname{{{word}}}", t)

    def named(self, base: str, tok) -> str:
        """A name, with its subscript: ``x_i`` is x[i] when x is indexed, else the name x_i."""
        if base in vectors(self.src) and not self.partner and not self.transposed():
            # w, \mathbf{w}, w_1 of a vector w (w^t x its inner product): never a free value — ∂L/∂w of L in wTx
            # read as a free w was 0
            self.fail(
                tok,
                f"{base} is a vector here (w^t x is the inner product of w and x): a vector as a value, "
                f"or a derivative in it (a gradient), is not read",
            )
        layered = self.layer_entry(base, tok)
        if layered is not None:
            return layered
        valued = self.sample_label(base)
        if base in self.n.functions and self.at("ch", "'"):  # \sigma'(x) after % let: \sigma = sigmoid
            return self.primed(self.n.functions[base], tok)
        if base in self.n.functions and self.at("ch", "(", "^"):  # \sigma(x), \sigma^2(x)
            return self.apply(self.n.functions[base], tok)
        if base in self.n.functions and base not in self.n.variables:
            self.fail(
                tok,
                f"{self._show(tok)} is a function here (a % let: or a definition above); apply it to "
                f"its argument, e.g. {self._show(tok)}(x)",
            )
        if self.at("ch", "^") and self.i + 1 < len(self.t):  # w^2_{ij}: TeX sets (w_{ij})^2, the subscript first
            _, j = _group(list(self.t), self.i + 1, self.src, "^")
            if j < len(self.t) and self.t[j].kind == "ch" and self.t[j].text == "_" and j + 1 < len(self.t):
                _, k = _group(list(self.t), j + 1, self.src, "_")
                self.t[self.i : k] = self.t[j:k] + self.t[self.i : j]
        if not self.at("ch", "_"):
            shown = self._show(tok) if tok.kind == "ch" or (tok.kind == "cmd" and tok.text in GREEK) else base
            return self.maybe_applied(base, shown, tok)
        if base.lower() in _OVER_AN_INDEX:
            # d2l's $b = \mathrm{max}_i x_i$ was read as the product max_i·x_i (and defined b so)
            self.fail(
                tok,
                f"{base}_… over an index is not read (a maximum or limit over a set); write "
                f"\\max(a, b) of its arguments, or % mathcheck: skip",
            )
        t = self.take()
        start = self.i
        toks = self.arg_tokens(t, "_")
        if len(toks) == 1 and toks[0].kind == "cmd" and toks[0].text in STYLE and self.at("ch", "{"):
            _, self.i = _group(self.t, self.i, self.src, "_")
            toks = self.t[start : self.i]  # n_\textrm{in}: TeX takes the command with its argument
        if self.collect is not None:  # pass one: x_i with i bound here (or declared) makes x indexed
            letters = [
                _GREEK_NAME.get(x.text, x.text)
                for x in toks
                if (x.kind == "ch" and x.text.isalpha()) or (x.kind == "cmd" and x.text in GREEK)
            ]
            # written x_{t+1}: a layer label z^{(l+1)} (read as its subscript) is no sequence of steps
            steps = _sequence(toks) if self.src.text[t.pos : t.pos + 1] == "_" else set()
            if steps:  # x_{t+1}, g_{t, t-1}: terms of a sequence (x_t then x[t]; a_t of another base stays a name)
                self.collect.add(base)
            elif letters and all(x in self.bound or x in self.n.indices for x in letters) and not _styled(toks):
                self.collect.add(base)
            elif self.free_index_beside_bound(toks, letters):
                self.collect.add(base)  # w_{im} in a sum over i: the entry w[i, m], m a free index
            return base
        letters = [
            _GREEK_NAME.get(x.text, x.text)
            for x in toks
            if (x.kind == "ch" and x.text.isalpha()) or (x.kind == "cmd" and x.text in GREEK)
        ]
        if base == "delta" and base not in self.n.defined | self.n.variables and _two_letters(toks):
            return self.kronecker(letters, t)
        family = self.n.families.get(base, ("", "", ""))
        if family[2] and (self.at("ch", "(") or not family[1]):
            return self.family(base, toks, t)
        if base in self.n.indexed:
            # \pi_i: a family pi_ (pi is the number π)
            entry = f"{'pi_' if base == 'pi' else base}[{', '.join(self.indices(toks, t))}]"
            if self.collect is None and base not in self.n.variables | self.n.defined and self.names_in_parens():
                # \sigma_i(z) under a sum over i: a family of functions applied (the author's softmax σ_i), or
                # the entry σ_i times (z)? Read as the product, J(z) = -Σ t_i log σ_i(z) was log(σ[i]·z)
                self.fail(
                    t,
                    f"{base}_…(…): a function {base}_i applied, or the entry {base}_i times (…)? write "
                    f"{base}_i \\cdot (…) for a product, or declare {base}: % assume: {base} \\in \\mathbb{{R}}",
                )
            return entry
        if letters and any(x in self.bound for x in letters):
            # subscripted by the index of an enclosing sum, yet not indexed (another letter of the subscript
            # is no index in scope, or pass one stopped before it): read as the name W_ij, the sum over i
            # would be n·W_ij — refuse instead
            free = [x for x in letters if x not in self.bound and x not in self.n.indices]
            self.fail(
                t,
                f"{base}_… inside the sum over {', '.join(x for x in letters if x in self.bound)} is not read as an "
                + (
                    f"entry: {', '.join(free)} is no index in scope; declare it: % assume: {free[0]} \\in \\mathbb{{Z}}"
                    if free
                    else "entry here; simplify the expression before the sum, or % mathcheck: skip"
                ),
            )
        law = self.law_of_variables(base, toks)
        if law is not None:
            return law
        word = _word(toks)
        if word is None:
            self.fail(
                t,
                f"the subscript of {base} is not a name; if {base} is indexed, sum over the index or "
                f"declare it: % assume: i \\in \\mathbb{{Z}}",
            )
        name = _checked_name(f"{base}_{word}", self, t)
        known = self.n.variables | self.n.defined | self.n.indices | self.bound | set(self.n.functions)
        if (
            self.at("ch", "(")
            and name not in known
            and len(toks) == 1
            and toks[0].kind == "cmd"
            and toks[0].text in GREEK
            and word not in ("pi",)
        ):
            # g_\phi(x), p_\theta(x): a function with a parameter, which it depends on: g_phi(x, phi)
            self.n.unknown.add(name)
            return f"{name}({', '.join(self.arguments() + [word])})"
        if valued and self.collect is None and name not in self.n.functions:
            return name  # y^{(i)}(1-a^{(i)}) beside (1-y^{(i)}): statnotes' y_i times, never y_i applied
        return self.maybe_applied(name, f"{self._show(tok)}_{{{word}}}", tok)

    def law_of_variables(self, base: str, toks) -> str | None:
        """d2l's ``p_{X, Y}(x, y)``, ``p_X(x)``: the law of the random variables the subscript names (each
        the capital of the argument at its place) at those values, ``p(x, y)``, ``p(x)`` — the law's
        marginal where fewer are named. None where the subscript or the arguments are otherwise (the
        caller goes on as before). At the ``(`` after the subscript."""
        caps = [x for x in toks if not (x.kind == "ch" and x.text == ",")]
        if (
            base not in ("p", "q")
            or not caps
            or len(toks) != 2 * len(caps) - 1
            or not all(x.kind == "ch" and len(x.text) == 1 and x.text.isupper() for x in caps)
            or not self.at("ch", "(")
        ):
            return None
        start = self.i
        args = self.arguments()
        if args != [x.text.lower() for x in caps]:
            self.i = start
            return None
        if base not in self.n.functions:
            self.n.unknown.add(base)  # as p(x, y) is read: a function mathcheck does not know
        return f"{base}({', '.join(args)})"

    def free_index_beside_bound(self, toks, letters) -> bool:
        """``w_{im}`` inside ``\\sum_i`` (backprop notes' weights from unit i to unit m): one letter the
        sum binds and the others single letters free here — the entry w[i, m], m an index the prose
        names, as ``x_j`` with x indexed is x[j]. Read as the name w_im, the sum over i was refused."""
        return (
            len(letters) == len([x for x in toks if x.text != ","]) >= 2  # W_{im}, W_{i,m}
            and any(x in self.bound for x in letters)
            and not _styled(toks)
            and all(
                x in self.bound
                or x in self.n.indices
                or x not in self.n.variables | self.n.defined | set(self.n.functions) | {"e"}
                for x in letters
            )
        )

    def newton(self, t, name: str) -> str:
        r"""``\dot x(t)``, ``\ddot x(t)``: Newton's notation, the first and second derivative of x at t
        (``prime(x(t))``, ``prime(x(t), 2)``). Read as a new name x_dot, d/dt x(t)² = 2 x(t) \dot x(t) was a
        claim about two unrelated functions, refuted; without its argument it is refused (at which t?)."""
        self.take()
        toks = self.arg_tokens(t, f"\\{name}")
        word = _word(toks)
        if word is None:
            self.fail(t, f"\\{name}{{…}} is read over one name only, e.g. \\{name}{{x}}(t)")
        if self.collect is not None:
            return word
        if not self.at("ch", "("):
            self.fail(
                t,
                f"\\{name}{{{word}}} is a derivative of {word} in time: write it at its argument, "
                f"\\{name}{{{word}}}(t), or \\frac{{d{word}}}{{dt}}",
            )
        order = 1 if name == "dot" else 2
        if word in self.n.functions:
            return self.primed(self.n.functions[word], t, order)
        if word in self.n.variables | self.n.indices | self.bound or (
            word in self.n.defined and word not in self.n.unknown
        ):
            self.fail(t, f"\\{name}{{{word}}}(…) is read for a function; {word} is a quantity here")
        return self.unknown_function(word, f"\\{name}{{{word}}}", t, order)

    def coloured(self, t, name: str) -> str:
        r"""``\textcolor{red}{x^2}``, ``\colorbox{yellow}{…}``: the body, its colour a matter of print;
        ``\color{red}`` alone colours what follows, read as it stands."""
        self.take()
        self.arg_tokens(t, f"\\{name}")  # the colour
        if name == "color":
            return self.factor()
        body = self.arg_tokens(t, "\\" + name)
        return f"({self.sub(body).read()})"

    def names_in_parens(self) -> bool:
        """At ``(z)``, ``(x, y)``: parentheses around names only, as a function's arguments are written
        (``a_i(1 - a_i)`` holds an expression: a product, as people mean it)."""
        if not self.at("ch", "("):
            return False
        depth, k = 0, self.i
        while k < len(self.t):
            x = self.t[k]
            if x.kind == "ch" and x.text in "()":
                depth += 1 if x.text == "(" else -1
                if depth == 0:
                    return k > self.i + 1
            elif not (
                (x.kind == "ch" and (x.text.isalpha() or x.text in ",{}"))
                or (x.kind == "cmd" and (x.text in GREEK or x.text in STYLE))
            ):
                return False
            k += 1
        return False

    def kronecker(self, letters: list, t) -> str:
        r"""``\delta_{ij}``, ``\delta_{j,k}``: Kronecker's delta of two indices (1 where they are equal, else
        0), as every softmax-Jacobian derivation means it — read as a free value ``delta_ij``, the
        derivative ∂e^{z_i}/∂z_j = δ_ij e^{z_i} was refuted. Its indices must be indices in scope (a sum's,
        or declared integers): with z_i, z_j two unrelated names the derivation would be misread anyway."""
        for x in letters:
            if x in self.n.free and x not in self.bound:  # a Jacobian entry's i, j: every i, j of the range
                self.n.excluded.add((x, "1", FREE_RANGE))
        free = [x for x in letters if x not in self.bound and x not in self.n.indices]
        if free:
            self.fail(
                t,
                f"\\delta_{{{''.join(letters)}}} is Kronecker's delta of the indices {', '.join(letters)}: declare "
                f"them, % assume: {', '.join(free)} \\in \\mathbb{{Z}}",
            )
        return f"KroneckerDelta({letters[0]}, {letters[1]})"

    def family(self, key: str, toks, tok) -> str:
        """``\\sigma_j(z)``, ``N(z)``: a function of the vector z the document defines in z's entries
        (``\\sigma_i(z) = \\frac{e^{z_i}}{\\sum_k e^{z_k}}``, blocks._vector_family) at the same vector z:
        ``sigma(j)``, ``N`` — the definition unfolded in z's entries. At another argument it is bad input
        (σ_i(2z) is not unfolded)."""
        name, vector, index = self.n.families[key]
        args = self.arguments() if vector else [vector]  # y_c of $y_i = \sigma_i(z)$: no argument
        if args != vector.split(", ") and args != [vector]:  # l(y, y_hat) of a function of two vectors
            self.fail(
                tok, f"{name} is defined as a function of the vector {vector}; at ({', '.join(args)}) it is not read"
            )
        if not index:
            return name
        at = self.indices(toks, tok)
        if len(at) != 1:
            self.fail(tok, f"{name}_{index}({vector}) has one index")
        return f"{name}({at[0]})"

    def maybe_applied(self, name: str, shown: str, tok) -> str:
        """``f(x)``, ``L(\\theta)``, ``g_\\phi(x)``, ``a(b + c)``, ``f'(x)``: a name before parentheses (or
        primes) is a function applied — an *unknown function* unless the document defines it — never
        silently a product (``\\zeta(x) = \\zeta x`` would be proved). It is a product only where the name
        is a quantity the chain declares (``% assume:``), defines, binds or indexes."""
        if name in self.n.families and not self.n.families[name][2] and self.at("ch", "("):
            return self.family(name, None, tok)
        known = self.n.variables | self.n.defined | self.n.indices | self.bound | {"e", "pi"}
        if self.collect is None and name in self.n.unknown and name not in known and self.power_applied():
            # d2l's quotient rule, \frac{…}{g^2(x)} after g(x): g(x)^2 as \sin^2 x is, never g²·x
            t = self.take()
            power = self.script(t, "^")
            return f"{self.unknown_function(name, shown, tok)}^{_wrap(power)}"
        if self.collect is not None:
            # pass one only collects the indexed bases: f'(u) is read past its primes, or the read stopped
            # there and a c_j after it was never seen indexed (f'(x) \sum_{j=1}^{3} c_j took c_j as one name)
            while self.at("ch", "'"):
                self.take()
            return name
        if not self.at("ch", "(", "'"):
            return name
        if name in known and not self.at("ch", "'"):
            return name
        if name in known:
            self.fail(
                tok,
                f"{shown}' is read for a function; {name} is a quantity here: write its derivative "
                f"as \\frac{{d{shown}}}{{dx}}",
            )
        return self.unknown_function(name, shown, tok)

    def power_applied(self) -> bool:
        """At ``^2(`` — a whole-number power, then parentheses: ``g^2(x)`` of a function g."""
        if not self.at("ch", "^"):
            return False
        toks, j = _group(list(self.t), self.i + 1, self.src, "^")
        return (
            len(toks) == 1
            and toks[0].kind == "num"
            and toks[0].text.isdigit()
            and j < len(self.t)
            and self.t[j].kind == "ch"
            and self.t[j].text == "("
        )

    def unknown_function(self, name: str, shown: str, tok, order: int = 0) -> str:
        """``f(x, y)``: the unknown function ``f`` (checked for every function, not one); ``f'(u)``,
        ``f''(u)``: its derivatives at u, ``prime(f(u), 2)``."""
        from mathcheck.parser import reserved

        if name in reserved():
            self.fail(tok, f"{shown}(…): {name} is a name mathcheck keeps for itself; rename the function")
        if name.lower() in _NOT_CALLABLE:
            # d2l's \textrm{sign}(a) read as an unknown function was refuted by a random "sign"
            self.fail(
                tok,
                f"{shown}(…) is the function {name.lower()}, which derive does not read (the grammar's "
                f"functions: docs/numeric.md); write it as a formula, e.g. x/|x| for x \\neq 0",
            )
        self.n.unknown.add(name)
        if order or self.at("ch", "'"):
            return self.primed(name, tok, order)
        from mathcheck.latex import probability

        given = probability.conditional(self)  # p(z \mid x): a declared law's conditional
        if given is not None:
            return f"{name}{given}"
        return f"{name}({', '.join(self.arguments())})"

    def primed(self, fname: str, tok, order: int = 0) -> str:
        """``f'(u)``, ``f''(u)``, ``\\sigma'(z)``: the derivative of a function of one argument at u
        (``order``: derivatives already counted, ``\\dot f(u)``)."""
        while self.at("ch", "'"):
            self.take()
            order += 1
        if not self.at("ch", "("):
            self.fail(tok, f"{fname}{'′' * order} is read applied to its argument, e.g. {fname}'(x)")
        args = self.arguments()
        if fname in self.n.defined:  # f(x) = x^2 above, then f'(x): the definition is unfolded inside
            if len(args) != 1 or not _ATOM.fullmatch(args[0]) or args[0][0].isdigit():
                self.fail(
                    tok,
                    f"{fname}' of a defined function is read at a variable, {fname}'(x); for another "
                    f"argument write \\frac{{d}}{{dx}} {fname}(x) and substitute",
                )
            return f"diff({fname}({args[0]}), {args[0]}" + (f", {order})" if order > 1 else ")")
        if len(args) != 1:
            self.fail(
                tok,
                f"{fname}' of {len(args)} arguments: a prime is read for a function of one argument; "
                f"write \\frac{{\\partial}}{{\\partial x}} {fname}(…)",
            )
        return f"prime({fname}({args[0]}))" if order == 1 else f"prime({fname}({args[0]}), {order})"

    def indices(self, toks, tok) -> list[str]:
        parts, cur = [], []
        for x in toks:
            if x.kind == "ch" and x.text == ",":
                parts.append(cur)
                cur = []
            else:
                cur.append(x)
        parts.append(cur)
        letters = [x for x in toks if x.kind == "ch" and x.text.isalpha()]
        if len(parts) == 1 and len(toks) > 1 and len(letters) + sum(x.kind == "num" for x in toks) == len(toks):
            if letters and len(letters) < len(toks):
                # x_{2i}: x[2i] or x[2, i]? (a blanket split read the first as the second)
                self.fail(tok, "a subscript of digits and letters is ambiguous; write x_{2 \\cdot i} or x_{2, i}")
            # W_{ij}, δ_{jk}, W_{12}: one index a letter (or a digit) — never the product j·k, which δ_{jk}
            # inside a sum over k became when j was no index in scope (δ[j*k])
            parts = [[x] for x in toks]
        if any(not p for p in parts):
            self.fail(tok, "an empty index")
        out = [self.sub(p).read() for p in parts]
        for x in out:
            if x in self.n.free and x not in self.bound:  # z_j beside σ_i(z): an entry at every j of the range
                self.n.excluded.add((x, "1", FREE_RANGE))
        return out

    def parens(self) -> str:
        t = self.take()
        close = _OPEN[t.text]
        inner = self.until(close, t)
        return f"({self.sub(inner).read()})"

    def until(self, close: str, t) -> list[Tok]:
        """The tokens up to the bracket that closes ``t`` (which was just taken)."""
        depth, start = 0, self.i
        opens = {"(", "[", "lbrace", "lbrack", "{"}
        while self.i < len(self.t):
            x = self.t[self.i]
            if x.kind in ("ch", "cmd") and x.text in opens:
                depth += 1
            elif x.kind in ("ch", "cmd") and x.text in (")", "]", "rbrace", "rbrack", "}"):
                if depth == 0:
                    if x.text != close and not (close in (")", "]") and x.text in (")", "]")):
                        self.fail(x, f"{x.text!r} closes {t.text!r}")
                    self.i += 1
                    return self.t[start : self.i - 1]
                depth -= 1
            self.i += 1
        self.fail(t, f"{self._show(t)!r} is not closed")

    def arguments(self) -> list[str]:
        t = self.take()
        inner = self.until(_OPEN[t.text], t)
        parts, cur, depth = [], [], 0
        for x in inner:
            if x.kind in ("ch", "cmd") and x.text in ("(", "[", "{", "lbrace"):
                depth += 1
            elif x.kind in ("ch", "cmd") and x.text in (")", "]", "}", "rbrace"):
                depth -= 1
            if depth == 0 and x.kind == "ch" and x.text == ",":
                parts.append(cur)
                cur = []
            else:
                cur.append(x)
        parts.append(cur)
        if any(not p for p in parts):
            self.fail(t, "an empty argument")
        return [self.sub(p).read() for p in parts]

    def absolute(self, opener: str, closer: str) -> str:
        t = self.take()
        if opener == "|":
            self.abs += 1
            inner = self.expr()
            self.abs -= 1
            if not self.at("ch", "|"):
                self.fail(t, "this | is not closed")
            self.take()
            return f"Abs({inner})"
        inner = self.until_cmd(closer, t)
        return f"Abs({self.sub(inner).read()})"

    def until_cmd(self, closer: str, t) -> list[Tok]:
        start = self.i
        while self.i < len(self.t):
            if self.at("cmd", closer):
                self.i += 1
                return self.t[start : self.i - 1]
            self.i += 1
        self.fail(t, f"\\{t.text} is not closed by \\{closer}")

    def function_name(self, name: str, tok) -> str:
        if tok.kind == "op":
            if name in _PARSER_FUNCTIONS:
                return name
            self.fail(
                tok,
                f"the operator {name!r} is not a function mathcheck knows; allowed: "
                f"{', '.join(sorted(_PARSER_FUNCTIONS))}",
            )
        if name in self.n.functions:
            return self.n.functions[name]
        if name == "operatorname":
            toks = self.arg_tokens(tok, "\\operatorname")
            word = _word(toks)
            if word in _NOT_SCALAR:
                self.fail(tok, f"\\operatorname{{{word}}}: {_NOT_SCALAR[word]} is not read (docs/latex.md)")
            if word not in _PARSER_FUNCTIONS:
                if word is None or not self.at("ch", "("):
                    self.fail(
                        tok, f"\\operatorname{{{word}}} is read as a function applied, \\operatorname{{{word}}}(x)"
                    )
                self.n.unknown.add(_checked_name(word, self, tok))  # \operatorname{LSE}(x): an unknown function
            return word
        return FUNCTIONS[name]

    def apply(self, fname: str, tok) -> str:
        """``\\sin^2 x``, ``\\log_2 x``, ``\\log(1 + x)``, ``\\sin m\\theta`` (the argument runs over the
        juxtaposed factors, as TeX is read), ``\\exp\\left(…\\right)``."""
        power = base = None
        inverse = False
        for _ in range(2):
            if self.at("ch", "^") and power is None and not inverse:
                t = self.take()
                self.not_a_transpose(t)  # f^{(n)}(x) is f's n-th derivative, \sigma^T a transpose
                power = self.script(t, "^")
                if power.replace(" ", "") in ("-1", "(-1)"):
                    # sin^{-1} x is arcsin x in every textbook; a reciprocal is written (\sin x)^{-1} or \csc x
                    if fname not in _INVERSE:
                        self.fail(t, f"{fname}^{{-1}}: an inverse mathcheck does not know; write 1/{fname}(x)")
                    fname, power, inverse = _INVERSE[fname], None, True
            elif self.at("ch", "_") and base is None and fname == "log":
                t = self.take()
                base = self.script(t, "_")
        if fname == "log" and base is None and tok.kind == "cmd" and self._log2(tok):
            base = "2"  # the prose says a plain \log is \log_2 (d2l's information theory)
        if self.at("ch", "(", "["):
            args = self.arguments()
            arg = ", ".join(args)
        elif self.at("ch", "{"):
            arg = self.script(tok, f"\\{fname}")
        else:
            if self.peek() is None or not self.starts_factor(self.peek()):
                self.fail(tok, f"{fname} needs an argument")
            arg = self.term(argument=True)
        out = f"{fname}({arg})" if base is None else f"log({arg}, {base})"
        return out if power is None else f"{out}^{_wrap(power)}"

    def _kl_subscript(self) -> int | None:
        """At ``D``: the index after ``D_{\\mathrm{KL}}`` (``\\textrm``, ``\\text``, ``\\operatorname``,
        ``{KL}``, ``D_\\mathrm{KL}``) when a bracket follows it, else None: the KL divergence as d2l
        and many papers write it, read as ``\\mathrm{KL}(P \\| Q)`` is."""
        from mathcheck.latex.tokens import _group

        t, j = self.t, self.i + 1
        if j + 1 >= len(t) or not (t[j].kind == "ch" and t[j].text == "_"):
            return None
        wrappers = ("mathrm", "textrm", "text", "operatorname", "mathsf")
        if t[j + 1].kind == "cmd" and t[j + 1].text in wrappers:  # D_\mathrm{KL}
            toks, k = _group(t, j + 2, self.src, f"\\{t[j + 1].text}")
        else:
            toks, k = _group(t, j + 1, self.src, "_")
            if len(toks) > 1 and toks[0].kind == "cmd" and toks[0].text in wrappers:  # D_{\mathrm{KL}}
                inner, m = _group(toks, 1, self.src, f"\\{toks[0].text}")
                toks = inner if m == len(toks) else []
        if "".join(x.text for x in toks if x.kind == "ch") != "KL" or any(x.kind != "ch" for x in toks):
            return None
        return k if k < len(t) and t[k].kind == "ch" and t[k].text in "([" else None

    def _log2(self, tok) -> bool:
        """Whether ``tok`` (``\\log``) comes after the prose's rule that a plain log is log_2."""
        at = getattr(self.src, "log2_from", None)
        return at is not None and tok.text == "log" and tok.pos >= at

    def fraction(self) -> str:
        t = self.take()
        num, self.i = _group(self.t, self.i, self.src, "\\frac")
        den, self.i = _group(self.t, self.i, self.src, "\\frac")
        d = _derivative(num, den)
        if d is None:
            if not num or not den:
                self.fail(t, "\\frac{…}{…} needs a numerator and a denominator")
            return f"{_wrap(self.sub(num).read())}/{_wrap(self.sub(den).read())}"
        top, var, order = d
        if not var:
            self.fail(t, "\\frac{d}{d?}: write the variable, e.g. \\frac{d}{dx}")
        x = self.sub(var).read()
        if top and _word(top) in self.n.functions and _word(top) not in self.n.variables:
            f = _word(top)  # \frac{df}{dx} of a function the document defines: f(x)'s derivative
        elif top:
            f = self.sub(top).read()
        else:
            if self.at("cmd", "cdot") and self.peek(1) is not None and self.starts_factor(self.peek(1)):
                # \frac{\partial}{\partial w} \cdot net: the operator applied, written with a dot (backprop
                # notes): d/dw times a quantity has no other meaning
                self.take()
            if self.peek() is None or not self.starts_factor(self.peek()):
                self.fail(t, f"\\frac{{d}}{{d{x}}} needs something to differentiate after it")
            # d/dx applies to the whole term after it, as a reader reads it: d/dx x sin x is (x sin x)'
            start = self.i
            f = self.term()
            self.one_operator(start, t)
        at_point = self.at_other_point(top, x, order)
        if at_point is not None:
            return at_point
        f = self.dependent(f, x, t)
        if top and self.at("ch", "("):  # \frac{dg}{dx}(x): g' at x, never g'·x
            at, self.i = self.i, self.i + 1
            inner = self.until(")", self.t[at])
            if self.sub(inner).read() != x:
                self.fail(
                    self.t[at],
                    f"a derivative evaluated at a point, \\frac{{d…}}{{d{x}}}(…), is read at {x} "
                    f"only; write the point by substitution",
                )
        return f"diff({f}, {x}" + (f", {order})" if order != "1" else ")")

    def nabla(self, t) -> str:
        """``\\nabla_x f`` with x a scalar the chain declares (``% assume: x \\in \\mathbb{R}``): the
        gradient in one real variable is the derivative, ``diff(f, x)`` — f the whole term after it, as
        after ``\\frac{d}{dx}``. A bold subscript (``\\nabla_{\\mathbf{x}}``), one not declared (a
        parameter vector written plain, ``\\nabla_w L``, is the usual case) or no subscript is a gradient
        of vectors: bad input, never ∂/∂x of a scalar."""
        self.take()
        if not self.at("ch", "_"):
            self.fail(
                t,
                "\\nabla without a subscript is a gradient in every variable; write \\nabla_x f (x a declared scalar) or \\frac{\\partial f}{\\partial x}",
            )
        self.take()
        sub, self.i = _group(self.t, self.i, self.src, "\\nabla_")
        x = None if any(y.kind == "cmd" and y.text in _BOLD + ("vec",) for y in sub) else self.sub(sub).read()
        if x is None or x not in self.n.variables or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", x):
            self.fail(
                t,
                "\\nabla_x is read as the derivative only in a scalar x the chain declares "
                "(% assume: x \\in \\mathbb{R}); a gradient in a vector is not read",
            )
        return self.differentiated(t, x, "\\nabla_")

    def partial_subscript(self, t) -> str:
        """``\\partial_{o_j} l(\\mathbf{y}, \\hat{\\mathbf{y}})``, ``\\partial_x f`` (d2l's softmax regression): ∂f/∂x of
        the whole term after it, read as after ``\\frac{\\partial}{\\partial x}`` — f a name not defined is an
        unknown function of x (:meth:`dependent`), never a constant."""
        self.take()
        self.take()
        var, self.i = _group(self.t, self.i, self.src, "\\partial_")
        if not var or any(y.kind == "cmd" and y.text in _BOLD + ("vec",) for y in var):
            self.fail(t, "\\partial_x is read over one scalar x or an entry x_j; a gradient in a vector is not read")
        x = self.sub(var).read()
        return self.differentiated(t, x, "\\partial_")

    def differentiated(self, t, x: str, written: str) -> str:
        """``diff(f, x)`` of the whole term f after an operator ``written`` in x (``\\nabla_x f``, ``\\partial_x f``)."""
        if self.peek() is None or not self.starts_factor(self.peek()):
            self.fail(t, f"{written}{{{x}}} needs something to differentiate after it")
        start = self.i
        f = self.term()
        self.one_operator(start, t)
        return f"diff({self.dependent(f, x, t)}, {x})"

    def at_other_point(self, top, x: str, order: str) -> str | None:
        """``\\frac{dg}{dh}(h(x))`` (d2l's chain rule): the derivative of the unknown function g of one
        argument at the point h(x), ``prime(g(h(x)))`` — g's variable is named h there, and what is in the
        parentheses is where g' is taken. None for anything else: a point equal to the variable
        (``\\frac{dg}{dx}(x)``, read as before), a g the document defines or declares, no parentheses."""
        g = _word(top) if top else None
        known = self.n.variables | self.n.defined | self.n.indices | self.bound | set(self.n.functions)
        if g is None or g in known or not re.fullmatch(r"[A-Za-z][A-Za-z0-9]*", g) or not self.at("ch", "("):
            return None
        start = self.i
        self.i += 1
        inner = self.until(")", self.t[start])
        point = self.sub(inner).read()
        if point == x or not order.isdigit():
            self.i = start
            return None
        self.n.unknown.add(_checked_name(g, self, self.t[start]))
        return f"prime({g}({point}))" if order == "1" else f"prime({g}({point}), {order})"

    def one_operator(self, start: int, tok) -> None:
        """``\\frac{d}{dz} z \\frac{d}{dx} x z`` (SymPy prints a product of two derivatives so) has no
        one reading: d/dz (z · d/dx(xz)) or (d/dz z)·(d/dx xz). A second operator that is not the first
        factor of the term is refused; ``\\frac{d}{dx}\\frac{d}{dx} f`` (nested) is read."""
        depth = 0
        for k in range(start, self.i):
            x = self.t[k]
            if x.kind == "ch" and x.text in "{}":
                depth += 1 if x.text == "{" else -1
            elif depth == 0 and k > start and x.kind == "cmd" and x.text in ("frac", "dfrac", "tfrac", "cfrac"):
                num, j = _group(list(self.t), k + 1, self.src, "\\frac")
                den, _ = _group(list(self.t), j, self.src, "\\frac")
                d = _derivative(num, den)
                if d is not None and not d[0]:
                    self.fail(
                        x,
                        "a derivative operator inside the term another one applies to is ambiguous; "
                        "write parentheses: \\frac{d}{dz}\\left(z \\frac{d}{dx} x\\right) or "
                        "\\left(\\frac{d}{dz} z\\right) \\frac{d}{dx} x",
                    )

    def dependent(self, f: str, x: str, tok) -> str:
        """``\\frac{dz}{dx}`` of a lone name z that is neither x nor defined: its author means z depends
        on x, so z is an unknown function of x, ``diff(z(x), x)`` — never a constant (derivative 0,
        which would prove dz/dx = dz/dy + dy/dx). A function the document defines (``f(x) = x^2``, then
        ``\\frac{df}{dx}``) is applied to x. A z used elsewhere in the chain as a value is bad input
        (the parser says so): one name is one thing in a chain."""
        name = re.fullmatch(r"([A-Za-z][A-Za-z0-9_]*)(\[[^\[\]]*\])?", f)  # w[i, m]*o[i] is a product, no entry
        if name is None or f == x:
            return f
        if name.group(1) in self.n.functions and not name.group(2):
            fn = self.n.functions[name.group(1)]
            params = self.n.params.get(fn, (x,))
            if len(params) > 1 and x not in params:  # ∂f/∂z of f(x, y): which argument z is, is not said
                self.fail(
                    tok, f"{fn} is defined as a function of ({', '.join(params)}); its derivative in {x} is not read"
                )
            return f"{fn}({', '.join(params if len(params) > 1 else (x,))})"  # ∂f/∂x of f(x, y) is at (x, y)
        if name.group(1) in self.n.defined or name.group(1) in self.bound or name.group(1) in self.n.indices:
            return f
        if name.group(2) or name.group(1) in self.n.indexed:
            self.fail(
                tok,
                f"the derivative of the entry {f} with respect to {x}: an entry that depends on {x} "
                f"is not read; define it, e.g. % let: …",
            )
        from mathcheck.parser import reserved

        if f in reserved():
            self.fail(tok, f"the derivative of {f}: {f} is a name mathcheck keeps for itself")
        self.n.unknown.add(f)
        self.n.implicit.add(f)
        return f"{f}({x})"

    def big(self) -> str:
        """``\\sum_{i=1}^{n} body`` (and ``\\prod``): the body is the term after it."""
        t = self.take()
        what = "Sum" if t.text == "sum" else "Product"
        if not self.at("ch", "_"):
            self.fail(t, f"\\{t.text} needs its range: \\{t.text}_{{i=1}}^{{n}}")
        self.take()
        low, self.i = _group(self.t, self.i, self.src, f"\\{t.text}_")
        ne = next((k for k, x in enumerate(low) if x.kind == "cmd" and x.text in ("ne", "neq")), None)
        if ne is not None:
            return self.excluding(t, what, low[:ne], low[ne + 1 :])
        eq = next((k for k, x in enumerate(low) if x.kind == "ch" and x.text == "="), None)
        generic = eq is None and _word(low) is not None and not self.at("ch", "^")
        if eq is None and _word(low) is not None and self.at("ch", "^"):  # \sum_{i}^{n}: from 1
            low, eq = (
                low + [Tok("ch", "=", low[-1].end, low[-1].end), Tok("num", "1", low[-1].end, low[-1].end)],
                len(low),
            )
        if generic:  # \sum_i x_i: over a generic range 1..N_sum (stated in the chain), every size at once
            var = _word(low)
            lo, hi = "1", GENERIC_SIZE
            self.n.generic.add(hi)
        else:
            if eq is None or not self.at("ch", "^"):
                self.fail(
                    t, f"\\{t.text} is read with both bounds, \\{t.text}_{{i=1}}^{{n}}, or over an index, \\{t.text}_i"
                )
            self.take()
            high, self.i = _group(self.t, self.i, self.src, f"\\{t.text}^")
            var = _word(low[:eq])
            if var is None or not low[eq + 1 :] or not high:
                self.fail(t, f"\\{t.text}: write the range as \\{t.text}_{{i=1}}^{{n}}")
            infinite = [x.text for x in high] in (["infty"], ["+", "infty"]) and what == "Sum"
            lo, hi = self.sub(low[eq + 1 :]).read(), "oo" if infinite else self.sub(high).read()  # a series
        if self.peek() is None or not (self.starts_factor(self.peek()) or self.at("ch", "-")):
            self.fail(t, f"\\{t.text} has nothing after its range")
        saved = self.bound
        self.bound = self.bound | {var}
        body = self.term()
        while self.next_term_uses(var):  # \sum_i^n [E(w_i)]^2 Var(x_i) + [E(x_i)]^2 Var(w_i): one sum
            op = self.take().text
            body = f"{body} {op} {self.term()}"
        self.bound = saved
        self.index_after_body(t, var)
        if generic:
            self.generic_body(t, var, body)
        return f"{what}({body}, ({var}, {lo}, {hi}))"

    def next_term_uses(self, var: str) -> bool:
        """Whether a sum's body goes on past ``+``/``-``: the next term writes the sum's index in a
        subscript (``\\sum_i^n [E(w_i)]^2 \\mathrm{Var}(x_i) + [E(x_i)]^2 \\mathrm{Var}(w_i)``, cs231n's
        variance of a sum; ``-\\sum_j y_{ij} \\log \\sigma(f_j) + (1 - y_{ij}) \\log(1 - \\sigma(f_j))``,
        its logistic loss). Its author means one sum of all the terms: read as written, the index after
        the body would be a free quantity with the same name, which no one means (the index is bound by no
        other sum there; a term with a sum of its own ends the body, and :meth:`index_after_body` refuses
        what is left)."""
        if self.collect is not None or not self.at("ch", "+", "-"):
            return False
        depth, k = 0, self.i + 1
        while k < len(self.t):
            x = self.t[k]
            if (
                x.kind == "row"
                or (depth == 0 and x.kind == "ch" and x.text in ("=", "<", ">", "&", "+", "-"))
                or (depth == 0 and x.kind == "cmd" and x.text in ("le", "leq", "ge", "geq", "approx", "ne", "neq"))
            ):
                return False
            if x.kind == "cmd" and x.text in ("sum", "prod"):
                return False
            depth += x.kind == "ch" and x.text in "({["
            depth -= x.kind == "ch" and x.text in ")}]"
            if depth < 0:
                return False
            if x.kind == "ch" and x.text == "_" and k + 1 < len(self.t):
                sub, _ = _group(list(self.t), k + 1, self.src, "_")
                if any(y.kind == "ch" and y.text == var for y in sub):
                    return True
            k += 1
        return False

    def index_after_body(self, t, var: str) -> None:
        """``\\sum_j y_{ij} \\log \\sigma(f_j) + (1 - y_{ij}) \\log(1 - \\sigma(f_j))`` (cs231n's
        logistic loss): the body ends at ``+``, yet j, free there, is written in a subscript after it —
        its author means the sum of both terms. Bad input: read as written, j after the sum is another
        quantity (no sum of its own binds it again)."""
        if self.collect is not None or not self.at("ch", "+", "-"):
            return
        depth, k = 0, self.i
        while k < len(self.t):
            x = self.t[k]
            if x.kind in ("row",) or (depth == 0 and x.kind == "ch" and x.text in ("=", "<", ">", "&")):
                return
            if x.kind == "cmd" and x.text in ("sum", "prod"):
                return  # a sum of its own may bind it again
            depth += x.kind == "ch" and x.text in "({["
            depth -= x.kind == "ch" and x.text in ")}]"
            if depth < 0:
                return
            if x.kind == "ch" and x.text == "_" and k + 1 < len(self.t):
                sub, _ = _group(list(self.t), k + 1, self.src, "_")
                if any(y.kind == "ch" and y.text == var for y in sub):
                    self.fail(
                        t,
                        f"\\{t.text} over {var}: its body ends at '{self.t[self.i].text}', yet {var} is "
                        f"used after it — one sum of all the terms, or {var} another quantity there? put "
                        f"the body in parentheses",
                    )
            k += 1

    def excluding(self, t, what: str, var_toks: list, out_toks: list) -> str:
        """``\\sum_{k \\ne i} body``: the sum over the generic range 1..N_sum without the term at i, read
        as ``(Sum(body, (k, 1, N_sum)) - body|k=i)`` — exact only when i is one of 1..N_sum, which its
        author means (i is one of the classes), so i is recorded as an integer index in that range
        (``Notation.excluded``: a hypothesis of the chain, printed with it); ``\\sum_{k=1, k \\ne i}^{n}``
        likewise over 1..n. The blog's softmax gradient
        ``-y_i + y_i a_i + \\sum_{k\\neq i} y_k a_i = a_i \\sum_k y_k - y_i`` holds so. ``\\prod``: the
        product is not read (dividing by the term needs it nonzero)."""
        lo, hi = "1", GENERIC_SIZE
        comma = next((k for k, x in enumerate(var_toks) if x.kind == "ch" and x.text == ","), None)
        if comma is not None:  # \sum_{k=1, k \neq i}^{n}: the declared range
            eq = next((k for k, x in enumerate(var_toks[:comma]) if x.kind == "ch" and x.text == "="), None)
            if eq is None or _word(var_toks[:eq]) != _word(var_toks[comma + 1 :]) or not self.at("ch", "^"):
                self.fail(t, f"\\{t.text}: write the range without one index as \\{t.text}_{{k=1, k \\neq i}}^{{n}}")
            self.take()
            high, self.i = _group(self.t, self.i, self.src, f"\\{t.text}^")
            lo, hi = self.sub(var_toks[eq + 1 : comma]).read(), self.sub(high).read()
            var_toks = var_toks[:eq]
        var, excluded = _word(var_toks), (self.sub(out_toks).read() if out_toks else "")
        if what == "Product":  # the product over the rest is the product divided by the term only where it is not 0
            self.fail(t, "\\prod_{k \\ne i} is not read; write the product over the range and divide by the term")
        if var is None or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", excluded) or excluded == var:
            self.fail(
                t,
                f"\\{t.text}_{{k \\ne i}} is read over an index k without one index i, a name "
                f"(\\{t.text}_{{j \\neq y_i}}); an entry or expression as the excluded index is not read",
            )
        if self.at("ch", "^"):
            self.fail(t, f"\\{t.text}_{{{var} \\ne {excluded}}} is read over the generic range 1..N_sum, without ^")
        if self.peek() is None or not (self.starts_factor(self.peek()) or self.at("ch", "-")):
            self.fail(t, f"\\{t.text} has nothing after its range")
        if hi == GENERIC_SIZE:
            self.n.generic.add(GENERIC_SIZE)
        self.n.excluded.add((excluded, lo, hi))
        saved = self.bound
        self.bound = self.bound | {var}
        body = self.term()
        self.bound = saved
        if self.collect is not None:  # pass one gathers the indexed bases only
            return body
        if hi == GENERIC_SIZE:
            self.generic_body(t, var, body)
        at = re.sub(rf"(?<![A-Za-z0-9_]){var}(?![A-Za-z0-9_])", excluded, body)
        return f"(Sum({body}, ({var}, {lo}, {hi})) - {_wrap(at)})"

    def generic_body(self, t, var: str, body: str) -> None:
        """A body over a generic range uses its index only as a subscript, or as the whole argument of an
        unknown function: ``\\sum_x p(x) \\log q(x)``, ``\\sum_j - P(j) \\log P(j)`` sum over a finite set
        of values, read as 1..N_sum — p, q being any functions, p(x_k) for k in 1..N_sum is any list of
        values, so the reading holds for every set. ``\\sum_i i``, ``\\sum_x x^2`` need their range."""
        word = rf"(?<![A-Za-z0-9_]){var}(?![A-Za-z0-9_])"
        unknown = "|".join(re.escape(f) for f in sorted(self.n.unknown - set(self.n.functions.values())))
        rest = re.sub(r"\[[^\[\]]*\]", "", body)  # x[j]: an entry
        if unknown:  # p(x), p(x, y): an unknown function's argument (its arguments names)
            name = r"[A-Za-z][A-Za-z0-9_]*"  # p(y | x): a law's conditional (latex/probability.py) too
            call = rf"(?<![A-Za-z0-9_])(?:{unknown})\({name}(?:, {name})*(?: \| {name}(?:, {name})*)?\)"
            rest = re.sub(
                call, lambda m: "" if var in re.findall(r"[A-Za-z][A-Za-z0-9_]*", m.group(0)) else m.group(0), rest
            )
        families = "|".join(re.escape(f) for f in sorted({v[0] for v in self.n.families.values() if v[2]}))
        if families:  # a_k of a family a_j = e^{z_j}/Σ_k e^{z_k}, read a(k): its subscript, written so
            rest = re.sub(rf"(?<![A-Za-z0-9_])(?:{families})\({var}\)", "", rest)
        if re.search(word, rest) or not (re.search(rf"\[[^\[\]]*{word}", body) or len(rest) < len(body)):
            self.fail(
                t,
                f"\\{t.text}_{var}: the body uses {var} other than as a subscript, so the range matters; "
                f"write it, \\{t.text}_{{{var}=1}}^{{n}}",
            )

    def _show(self, t) -> str:
        return "\\" + t.text if t.kind == "cmd" else t.text


_DECLARED_VECTOR = re.compile(
    r"(?<![A-Za-z\\])([a-z])\s*\\in\s*\\mathbb\s*\{R\}\s*\^\s*(?:\{\s*(?:[a-z]|[2-9]|[1-9][0-9]+)\s*\}|[a-z2-9])(?![A-Za-z0-9_{\\])"
)


def vectors(src: _Source) -> frozenset:
    r"""The letters the document makes vectors of an inner product ``w^t x``: w declared in ℝ^n
    (``$w\in\mathbb{R}^n$``, n a letter or a number ≥ 2; a lowercase letter) and written ``w^t`` before
    a lowercase letter x, which is then a vector of ℝ^n too. Computed once per document."""
    found = getattr(src, "inner_vectors", None)
    if found is None:
        declared = {m.group(1) for m in _DECLARED_VECTOR.finditer(src.text)}
        found = set()
        for w in declared:
            partners = set(re.findall(rf"(?<![A-Za-z\\]){w}\s*\^\s*\{{?\s*t\s*\}}?\s*([a-z])(?![A-Za-z])", src.text))
            if partners - {w}:
                found |= {w} | (partners - {w})
        found = frozenset(found)
        src.inner_vectors = found
    return found


def _two_letters(toks: list[Tok]) -> bool:
    """``ij``, ``j,k``: a subscript of two single letters (the indices of a Kronecker delta)."""
    letters = [x for x in toks if x.kind == "ch" and x.text.isalpha()]
    return len(letters) == 2 and all(x.kind == "ch" and (x.text.isalpha() or x.text == ",") for x in toks)


def _grouped_digits(toks: list[Tok]) -> list[Tok]:
    """``1\\,000``, ``1{,}000``, ``1\\;000\\,000``: one number, its digits grouped in threes (a thin
    space or a braced comma) — never 1·000 = 0."""
    out: list[Tok] = []
    i = 0
    while i < len(toks):
        t = toks[i]
        sep = None
        if out and out[-1].kind == "num" and "." not in out[-1].text:
            if t.kind == "cmd" and t.text in (",", ";", "thinspace", " ", "!"):
                sep = 1
            elif [x.text for x in toks[i : i + 3]] == ["{", ",", "}"]:
                sep = 3
        if (
            sep
            and i + sep < len(toks)
            and toks[i + sep].kind == "num"
            and re.fullmatch(r"[0-9]{3}(\.[0-9]+)?", toks[i + sep].text)
        ):
            nxt = toks[i + sep]
            out[-1] = Tok("num", out[-1].text + nxt.text, out[-1].pos, nxt.end)
            i += sep + 1
            continue
        out.append(t)
        i += 1
    return out


def _without_empty_groups(toks: list[Tok]) -> list[Tok]:
    """``{} + 2ab`` (TeX's idiom for a binary + at a row's start): an empty group that is no
    command's argument is nothing."""
    out: list[Tok] = []
    for t in toks:
        if (
            t.kind == "ch"
            and t.text == "}"
            and out
            and out[-1].kind == "ch"
            and out[-1].text == "{"
            and not (len(out) >= 2 and (out[-2].kind == "cmd" or (out[-2].kind == "ch" and out[-2].text in "^_}")))
        ):
            out.pop()
            continue
        out.append(t)
    return out


FREE_RANGE = "?"  # the range of a free index of \\delta_{ij}, settled with the chain's sums (blocks.py)
GENERIC_SIZE = "N_sum"  # \\sum_i: every generic sum of a chain runs over 1..N_sum, N_sum ≥ 1 an integer
_ATOM = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9.]+")
# words set upright that name what is not a scalar function of scalars: never an unknown function
_NOT_SCALAR = {
    w: "a vector or matrix function"
    for w in (
        "softmax",
        "argmax",
        "argmin",
        "diag",
        "tr",
        "trace",
        "det",
        "rank",
        "vec",
        "concat",
        "Concat",
        "LayerNorm",
        "MultiHead",
        "Attention",
        "FFN",
    )
}
_NOT_SCALAR.update({w: "expectations and probabilities" for w in ("E", "Var", "Cov", "Pr", "KL", "P")})
_NOT_SCALAR.update({w: "complex parts" for w in ("Re", "Im", "arg")})
# d2l's \textrm{prod}(\frac{\partial Z}{\partial Y}, …), "multiply after the necessary operations" on
# tensors: read as an unknown function it was refuted by a random prod
_NOT_SCALAR.update({w: "a tensor product the prose defines" for w in ("prod", "Prod")})
_BOLD = ("mathbf", "boldsymbol", "bm", "pmb")


def _wrap(s: str) -> str:
    """``s`` as one operand: a name, number or call as it is, anything else in parentheses."""
    if _ATOM.fullmatch(s):
        return s
    m = re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(\(.*\)|\[.*\])", s)
    if m or (s.startswith("(") and s.endswith(")")):
        inner = m.group(1) if m else s
        depth = 0
        for k, c in enumerate(inner):  # the brackets must close only at the end
            depth += c in "(["
            depth -= c in ")]"
            if depth == 0 and k < len(inner) - 1:
                return f"({s})"
        return s
    return f"({s})"


def _parser_functions() -> set:
    """The grammar's functions of one argument or more (not binomial's or atan2's two)."""
    return {f.name for f in functions.entries() if f.arity in ((1,), (1, 2), functions.VARIADIC)}


_PARSER_FUNCTIONS = _parser_functions()

# f^{-1} as the inverse function, for the functions whose inverse the table has.
_INVERSE = {"sin": "asin", "cos": "acos", "tan": "atan"}
_LIMIT_ARROWS = ("to", "rightarrow", "longrightarrow")  # \\lim_{h \\to 0}: the arrow between variable and point
_OVER_AN_INDEX = {"max", "min", "argmax", "argmin", "sup", "inf", "lim", "limsup", "liminf"}
# the table's functions the grammar does not call (sign) and their usual spellings: never an unknown function
_NOT_CALLABLE = {f.name.lower() for f in functions.TABLE if not f.grammar} | {"sgn", "signum"}


def _word(toks) -> str | None:
    """The name a run of tokens spells (``model`` in ``\\text{model}``, ``beta`` in ``\\beta``), or None."""
    out = ""
    i = 0
    while i < len(toks):
        x = toks[i]
        if x.kind == "ch" and (x.text.isalnum() or x.text in "_-"):
            out += "_" if x.text == "-" else x.text
        elif x.kind == "num" and x.text.isdigit():
            out += x.text
        elif x.kind == "cmd" and x.text in GREEK:
            out += _GREEK_NAME.get(x.text, x.text)
        elif x.kind == "cmd" and x.text in STYLE:
            j = i + 1
            if j >= len(toks) or toks[j].text != "{":
                return None
            inner, j = toks[j + 1 :], len(toks)
            depth = 0
            for k in range(i + 1, len(toks)):
                depth += toks[k].text == "{"
                depth -= toks[k].text == "}"
                if depth == 0:
                    inner, j = toks[i + 2 : k], k + 1
                    break
            w = _word(inner)
            if w is None:
                return None
            out += w
            i = j
            continue
        elif x.kind == "ch" and x.text in "{}":
            pass
        else:
            return None
        i += 1
    return out or None


def _sequence(toks) -> set:
    """The indices of a sequence's term, ``x_{t+1}``, ``g_{t, t-1}``: every index a letter or a letter
    plus or minus a number, one of them offset (d2l's ``x_{t+1} = (1 - \\eta \\lambda) x_t``); else empty.
    ``x_t`` alone stays the name x_t."""
    parts, cur = [], []
    for x in toks:
        if x.kind == "ch" and x.text == ",":
            parts, cur = parts + [cur], []
        else:
            cur.append(x)
    parts.append(cur)
    letters, offset = set(), False
    for p in parts:
        if not p or not (p[0].kind == "ch" and p[0].text.isascii() and p[0].text.isalpha()):
            return set()
        if len(p) == 3 and p[1].kind == "ch" and p[1].text in "+-" and p[2].kind == "num" and p[2].text.isdigit():
            offset = True
        elif len(p) != 1:
            return set()
        letters.add(p[0].text)
    return letters if offset else set()


def _styled(toks) -> bool:
    """``n_\\textrm{in}``, ``d_{\\text{model}}``: a word set upright is a name's label, never an index."""
    return any(x.kind == "cmd" and x.text in STYLE for x in toks)


def _letter(t: Tok) -> bool:
    """One Latin letter, or a Greek one."""
    return (t.kind == "ch" and len(t.text) == 1 and t.text.isalpha()) or (t.kind == "cmd" and t.text in GREEK)


def _layer_word(label: list[Tok]) -> str | None:
    """The word a layer's (or a sample's) label ``(l)``, ``(l+1)``, ``(l-1)``, ``(n_l)`` puts in its array's
    name (``l``, ``lplus1``, ``lminus1``, ``n_l``); None for anything else (digits: a power?)."""
    if len(label) < 3 or label[0].text != "(" or label[-1].text != ")":
        return None
    inner = label[1:-1]
    texts = [x.text for x in inner]
    if not (inner[0].kind == "ch" and len(texts[0]) == 1 and texts[0].isalpha()):
        return None
    if len(inner) == 1:
        return texts[0]
    if len(inner) == 3 and texts[1] in "+-" and inner[2].kind == "num" and texts[2].isdigit():
        return f"{texts[0]}{'plus' if texts[1] == '+' else 'minus'}{texts[2]}"
    if _subscripted_letter(inner):
        sub = [x.text for x in inner[2:] if x.text not in "{}"]
        if len(sub) == 1 and sub[0].isalnum():
            return f"{texts[0]}_{sub[0]}"
    return None


def _subscripted_letter(toks: list[Tok]) -> bool:
    r"""``n_l``, ``n_{l}``: one letter and its subscript, a layer label's inside (``a^{(n_l)}``, backprop
    notes' last layer) — read as the power a^(n_l) before."""
    texts = [x.text for x in toks]
    return (
        len(toks) >= 3
        and toks[0].kind == "ch"
        and len(texts[0]) == 1
        and texts[0].isalpha()
        and texts[1] == "_"
        and (len(toks) == 3 and toks[2].kind in ("ch", "num") or (texts[2] == "{" and texts[-1] == "}"))
    )


def _checked_name(name: str, reader: Reader, tok) -> str:
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]{0,30}", name) or "__" in name:
        reader.fail(tok, f"{name!r} is not a name mathcheck reads (a letter, then letters, digits, single _)")
    return name


def _derivative(num: list[Tok], den: list[Tok]):
    """``(f tokens, x tokens, order)`` for ``\\frac{\\partial^k f}{\\partial x^k}`` or ``\\frac{d}{dx}``."""

    def d_head(toks):
        if toks and toks[0].kind == "cmd" and toks[0].text == "partial":
            return 1
        if (
            toks
            and toks[0].kind == "ch"
            and toks[0].text == "d"
            and (len(toks) == 1 or toks[1].kind != "ch" or toks[1].text != "_")
        ):
            return 1
        if (
            len(toks) >= 4
            and toks[0].kind == "cmd"
            and toks[0].text in ("mathrm", "operatorname", "text")
            and [x.text for x in toks[1:4]] == ["{", "d", "}"]
        ):
            return 4
        return 0

    hn, hd = d_head(num), d_head(den)
    if not hn or not hd:
        return None
    top, order = num[hn:], "1"
    if len(top) >= 2 and top[0].kind == "ch" and top[0].text == "^":
        if top[1].text == "{":
            k = next((k for k, x in enumerate(top) if x.text == "}"), len(top) - 1)
            order, top = "".join(x.text for x in top[2:k]), top[k + 1 :]
        else:
            order, top = top[1].text, top[2:]
    var = den[hd:]
    if var and var[-1].kind in ("num", "ch") and len(var) >= 2 and var[-2].kind == "ch" and var[-2].text == "^":
        var = var[:-2]
    elif len(var) >= 4 and var[-1].text == "}" and any(x.text == "^" for x in var):
        hat = max(k for k, x in enumerate(var) if x.text == "^")
        if not (hat + 2 < len(var) and var[hat + 2].text == "("):
            # \partial x^{2}: the order; \partial z_i^{(l)} keeps its layer label (dropped, z_i^{(l)} and
            # z_i^{(l+1)} were one variable z_i)
            var = var[:hat]
    if any(x.kind == "cmd" and x.text == "partial" for x in var):
        return None
    return top, var, order
