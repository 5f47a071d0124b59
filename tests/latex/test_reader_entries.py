"""Entries, Kronecker's delta, functions of vectors, Newton's dots and colours, as people write them
(issue 28). The softmax-Jacobian derivation of kwichmann/statnotes (softmax.tex, read unchanged by
bench/latex_corpus.py) was refuted twice: δ_ij read as a free value, z_i and z_j as unrelated names,
σ_i(z) as a function of one scalar z. Every case here is our own transcription in that style."""

import json

import pytest
from click.testing import CliRunner

from mathcheck.chains import DeriveError
from mathcheck.cli import main
from mathcheck.latex import translate


def chains(tmp_path, tex, name="n.tex"):
    p = tmp_path / name
    p.write_text(tex)
    r = CliRunner().invoke(main, ["derive", str(p), "--json"])
    return json.loads(r.output)["files"][0]["chains"]


def test_kronecker_delta_of_declared_indices_is_proved(tmp_path):
    got = chains(
        tmp_path,
        "% assume: i, j, n \\in \\mathbb{Z}_{>0}\n% given: j \\le n\n\\begin{equation}\n"
        "\\frac{\\partial}{\\partial z_j}e^{z_i}=\\delta_{ij}e^{z_i},\\quad"
        "\\frac{\\partial}{\\partial z_j}\\sum_{k=1}^n e^{z_k}=\\sum_{k=1}^n\\delta_{jk}e^{z_k}=e^{z_j}\n\\end{equation}\n",
    )
    # two claims side by side: the chain after \quad is checked, never a hypothesis of the first
    assert [c["status"] for c in got] == ["proved", "proved"], got
    assert "KroneckerDelta(i, j)" in json.dumps(got[0])


def test_a_wrong_delta_is_refuted(tmp_path):
    got = chains(
        tmp_path,
        "% assume: i, j \\in \\mathbb{Z}_{>0}\n\\begin{equation}\n"
        "\\frac{\\partial}{\\partial z_j}e^{z_i}=\\delta_{ij}e^{z_j} + \\delta_{ij}\n\\end{equation}\n",
    )
    assert got[0]["status"] == "refuted"


@pytest.mark.parametrize(
    "tex, message",
    [
        # j a quantity here: W_{ij} is no entry (read as the name W_ij, the sum was n·W_ij); with j free, W[i, j]
        ("% assume: j \\in \\mathbb{R}\n" r"\sum_{i=1}^n W_{ij} = 1", "j is no index in scope"),
        (r"\sum_{i=1}^n x_{2i} = 1", "digits and letters is ambiguous"),
        (r"J(z) - 1 = -\sum_{i=1}^n t_i \log \sigma_i(z)", "a function sigma_i applied, or the entry"),
        (r"\frac{d}{dt} x^2 = 2 x \dot x", "a derivative of x in time"),
        # style of d2l softmax-regression.md:214 (our symbols): an index where the maximum is, not a value
        (r"\operatorname*{argmax}_k \hat p_k = \operatorname*{argmax}_k u_k", "argmax, argmin: the index"),
    ],
)
def test_refused_with_a_line_never_misread(tmp_path, tex, message):
    got = chains(tmp_path, f"\\begin{{equation}}\n{tex}\n\\end{{equation}}\n")
    assert got[0]["status"] == "bad-input" and message in got[0]["message"], got[0]


def test_a_function_of_a_vector_and_free_indices_of_its_jacobian(tmp_path):
    """Style of statnotes softmax.tex:23-63 (our symbols): φ_a(u), S(u) of a vector u, read in its
    entries (phi(a), S), in force past the section; the free a, b of δ_ab are integers of 1..K (the sums'
    range), stated — read with u_a, u_b as two names, the quotient rule was "proved" as 0 = 0."""
    claims = [
        (r"\frac{\partial}{\partial u_b}\frac{e^{u_a}}{S(u)}", "proved"),
        (r"\frac{e^{u_a}}{S(u)}\left(\delta_{ab}-\frac{e^{u_b}}{S(u)}\right)", "proved"),
        (r"\phi_a(u)\left(\delta_{ab}-\phi_b(u)\right)", "proved"),
        (r"\phi_a(u)\left(1-\phi_b(u)\right)", "refuted"),  # a planted slip: wrong where a ≠ b
        (r"\phi_a(u)\left(\delta_{ab}-\phi_a(u)\right)", "refuted"),  # σ_a for σ_b
    ]
    got = chains(
        tmp_path,
        "\\section{One}\n\\begin{equation}\n\\phi_a(u)=\\frac{e^{u_a}}{\\sum_{m=1}^K e^{u_m}}\n\\end{equation}\n"
        "\\begin{equation}\nS(u)=\\sum_{m=1}^K e^{u_m}\n\\end{equation}\n\\section{Two}\n"
        + "".join(
            f"\\begin{{equation}}\n\\frac{{\\partial\\phi_a(u)}}{{\\partial u_b}}={c}\n\\end{{equation}}\n"
            for c, _ in claims
        ),
    )
    assert [c["status"] for c in got] == ["definition", "definition"] + [s for _, s in claims], got
    assert {"a <= K", "b <= K"} <= set(got[4]["given"]), got[4]["given"]


def test_free_delta_indices_range_and_entries_named_after(tmp_path):
    """Style of statnotes softmax.tex:50, 70-74 (our symbols): δ_ab with no sum over a or b reads over
    a generic range 1..N_sum; a display whose q the prose after it defines ("Here $q_a = …$") is read with
    that definition, made first (once bad input, never refuted); an entry family ``$q_a=\\phi_a(u)$``
    unfolds at q_c."""
    got = chains(
        tmp_path,
        "\\begin{equation}\n\\frac{\\partial}{\\partial u_b}e^{u_a}=\\delta_{ab}e^{u_a}\n\\end{equation}\n"
        "\\begin{equation}\n\\frac{\\partial}{\\partial u_b}e^{u_a}=\\delta_{ab}e^{u_b}+\\delta_{ab}\n\\end{equation}\n"
        "\\begin{equation}\n\\phi_a(u)=\\frac{e^{u_a}}{\\sum_{m=1}^K e^{u_m}}\n\\end{equation}\n"
        "\\begin{equation}\nL(u)=-\\sum_{a=1}^K r_a\\log\\phi_a(u)=-\\sum_{a=1}^K r_a\\log q_a\n\\end{equation}\n"
        "Here $q_a=\\phi_a(u)$ are the outputs.\n"
        "\\begin{equation}\n-\\sum_{a=1}^K\\delta_{ac}\\log\\phi_a(u)=-\\log q_c\n\\end{equation}\n"
        "\\begin{equation}\n-\\log\\phi_c(u)=-q_c\n\\end{equation}\n",
    )
    assert [c["status"] for c in got] == [
        "proved",
        "refuted",
        "definition",
        "definition",  # q, from the prose after L's display, made before it
        "definition",
        "proved",
        "proved",
        "refuted",
    ], [(c["status"], c.get("message")) for c in got]
    assert "a <= N_sum" in got[0]["given"] and got[3]["line"] == 13 and got[4]["line"] == 11


def test_prose_after_a_display_a_sum_index_reused_and_an_error_family(tmp_path):
    """Style of statnotes softmax.tex:70-82 (our symbols, our wording). The prose after a display says what
    its q is ("Here $r_a$ is the target and $q_a=\\phi_a(u)$ the output … simply $r_a=\\delta_{ad}$"): q is
    read as said there; r, which the display's own definition of L writes, stays every r (a proof holds
    for the prose's case too). M's bound a is not the free a of ∂M/∂u_a (once bad input, "a summation
    index"); ``$g_a=q_a-\\delta_{ad}$`` is a family of q's entries, unfolded: a planted g is refuted (the
    planted mistake of the prose-after reading is test_free_delta_indices_range_and_entries_named_after's)."""

    def body(err):
        return (
            "\\section{S}\n\\begin{equation}\n\\phi_a(u)=\\frac{e^{u_a}}{\\sum_{m=1}^K e^{u_m}}\n\\end{equation}\n"
            f"\\begin{{equation}}\nL(u)=-\\sum_{{a=1}}^K r_a\\log\\phi_a(u)=-\\sum_{{a=1}}^K r_a\\log q_a\n\\end{{equation}}\n"
            "Here $r_a$ is the target and $q_a=\\phi_a(u)$ the output; for one class, $r_a=\\delta_{ad}$.\n"
            "\\begin{equation}\nM(u)=-\\sum_{a=1}^K\\delta_{ad}\\log\\phi_a(u)\n\\end{equation}\n"
            f"the miss $g_a=q_a-\\delta_{{ad}}{err}$:\n"
            "\\begin{equation}\n\\frac{\\partial M}{\\partial u_a}=g_a\n\\end{equation}\n"
            # the chain rule through q_d (∂M/∂q_d: not read), then a link that is
            "\\begin{equation}\n\\frac{\\partial M}{\\partial u_a}=\\frac{\\partial M}{\\partial q_d}\\frac{\\partial q_d}"
            f"{{\\partial u_a}}=-\\frac{{1}}{{\\phi_d(u)}}\\phi_d(u)\\left(\\delta_{{da}}-\\phi_a(u)\\right)=q_a-\\delta_{{ad}}{err}\n"
            "\\end{equation}\n"
        )

    got = chains(tmp_path, body(""), "s.tex")
    status = [(c["line"], c["status"]) for c in got]
    assert status[:6] == [
        (3, "definition"),
        (8, "definition"),  # q, from the prose after the display, made first
        (6, "definition"),
        (6, "proved"),  # -Σ r_a log φ_a(u) = -Σ r_a log q_a, for every r
        (10, "definition"),
        (12, "definition"),  # g_a, a family of q's entries
    ], status
    assert status[6] == (13, "proved"), got[6]  # ∂M/∂u_a = g_a: M's a renamed, g unfolded
    assert "a1" in json.dumps(got[6]["let"])
    assert got[7]["status"] == "proved" and "are not read" in json.dumps(got[7]["notes"]), got[7]
    # planted: with g_a = q_a - δ_ad + 1, ∂M/∂u_a = g_a is false; so is … = q_a - δ_ad + 1
    planted = [c["status"] for c in chains(tmp_path, body("+1"), "t.tex")]
    assert planted == ["definition"] * 3 + ["proved"] + ["definition"] * 2 + ["refuted"] * 2, planted


@pytest.mark.parametrize(
    "case, log, status",
    [
        ("for one class, $r_a=\\delta_{ad}$.", "\\log", "proved"),  # L in the prose's case: a claim
        ("for one class, $r_a=\\delta_{ad}$.", "", "refuted"),  # planted: the log dropped
        ("for one class, only one r_a is 1.", "\\log", "definition"),  # no case in math: L redefined
    ],
)
def test_a_function_restated_in_the_case_the_prose_states(tmp_path, case, log, status):
    """Style of statnotes softmax.tex:70-74 (our symbols, our wording): L(u) = -Σ_a r_a log φ_a(u), the prose
    "$r_a=\\delta_{ad}$", then L(u) = -Σ_a δ_ad log φ_a(u) again: L as first defined with r_a = δ_ad put in,
    checked (once read as L redefined, the link never checked); without the case in the prose, a redefinition
    as before — never proved, never refuted."""
    got = chains(
        tmp_path,
        "\\section{S}\n\\begin{equation}\n\\phi_a(u)=\\frac{e^{u_a}}{\\sum_{m=1}^K e^{u_m}}\n\\end{equation}\n"
        "\\begin{equation}\nL(u)=-\\sum_{a=1}^K r_a\\log\\phi_a(u)\n\\end{equation}\n"
        f"Here $r_a$ is the target; {case}\n"
        f"\\begin{{equation}}\nL(u)=-\\sum_{{a=1}}^K\\delta_{{ad}}{log}\\phi_a(u)\n\\end{{equation}}\n",
        "c.tex",
    )
    assert [(c["line"], c["status"]) for c in got] == [(3, "definition"), (6, "definition"), (10, status)], got
    if status != "definition":
        assert "r_a = KroneckerDelta(a, d)" in json.dumps(got[2]["notes"]), got[2]


def test_a_normalised_family_and_two_different_indices(tmp_path):
    """Style of blog-yanfenglee-dl-demo.md:17-26 (our symbols): ``p_j = e^{u_j}/Σ_m e^{u_m}`` is a family of
    the entries of u (p_m, p_i are p(m), p(i); u_i the entry u[i]), so ``\\sum_m t_m \\log p_m`` needs no
    range; ``i \\neq j`` of two indices is a hypothesis, δ_ij = 0 (once bad input: "≠ is read as x \\neq 0
    only"). A planted sign is refuted at i ≠ j."""
    got = chains(
        tmp_path,
        "$$p_j = \\frac{e^{u_j}}{\\sum_m e^{u_m}}$$\n\n$$Q = -\\sum_m t_m \\log p_m$$\n\n"
        "$$ \\frac{\\partial p_j}{\\partial u_i} = -p_i p_j,\\quad i \\neq j. $$\n\n"
        "$$ \\frac{\\partial p_j}{\\partial u_i} = p_i p_j,\\quad i \\neq j. $$\n",
        "n.md",
    )
    assert [c["status"] for c in got] == ["definition", "definition", "proved", "refuted"], got
    assert "i != j" in got[2]["given"] and "diff(p(j), u[i])" in json.dumps(got[2])
    assert "Sum(t[m]*log(p(m))" in json.dumps(got[1])


def test_delta_subscripts_split_into_indices():
    got = translate(r"\sum_{j=1}^n \sum_{k=1}^n \delta_{jk} e^{z_k}")
    assert got == "Sum(Sum(KroneckerDelta(j, k)*exp(z[k]), (k, 1, n)), (j, 1, n))"
    assert translate(r"\sum_{i=1}^n \sum_{j=1}^n W_{ij}") == "Sum(Sum(W[i, j], (j, 1, n)), (i, 1, n))"
    assert translate(r"\delta_{ij}") == "KroneckerDelta(i, j)"  # free indices: a range stated by derive


@pytest.mark.parametrize(
    "tex, status",
    [
        (r"\frac{d}{dt} x(t)^2 = 2 x(t) \dot x(t)", "proved"),
        (r"\frac{d}{dt} \dot{x}(t) = \ddot x(t)", "proved"),
        (r"\frac{d}{dt} x(t)^2 = x(t) \dot x(t)", "refuted"),
        (r"\textcolor{red}{(a+b)^2} = a^2 + 2ab + \textcolor{blue}{b^2}", "proved"),
        (r"\textcolor{red}{(a+b)^2} = a^2 + ab + b^2", "refuted"),
        (r"(a+b)^2 = a^2 + {\color{red} 2ab} + b^2", "proved"),
    ],
)
def test_newton_dots_and_colours(tmp_path, tex, status):
    got = chains(tmp_path, f"\\begin{{equation}}\n{tex}\n\\end{{equation}}\n")
    assert got[0]["status"] == status, got[0]


def test_a_derivative_of_a_quantity_the_prose_defines_is_never_refuted(tmp_path):
    """statnotes' logistic regression (our transcription): z^{(i)} is defined in prose, then
    ∂z^{(i)}/∂b = ∂/∂b (w x^{(i)} + b) = 1. z read as a function only from its derivative is the author's
    quantity: a random z refuted it. A link between read expressions is still checked."""
    got = chains(
        tmp_path,
        "\\begin{equation}\n\\frac{\\partial z^{(i)}}{\\partial b}=\\frac{\\partial}{\\partial b}\\left(w x^{(i)}+b\\right)=1\n"
        "\\end{equation}\n\\begin{equation}\n\\frac{\\partial z^{(i)}}{\\partial b}=\\frac{\\partial}{\\partial b}"
        "\\left(w x^{(i)}+b\\right)=2\n\\end{equation}\n",
    )
    assert [c["status"] for c in got] == ["inconclusive", "refuted"], got
    assert [s["status"] for s in got[1]["steps"]] == ["start", "inconclusive", "refuted"]


@pytest.mark.parametrize(
    "tex, read",
    [
        (r"\frac{v_t}{1 - \beta_1^t}", "v_t/(1 - beta_1^t)"),  # t is the step: a power
        (r"2^t", "2^t"),
    ],
)
def test_a_power_in_t_where_t_is_used(tex, read):
    assert translate(tex) == read


def test_w_to_the_t_alone_is_refused():
    with pytest.raises(DeriveError, match="a power in t, or the transpose"):
        translate(r"w^t x + b")


def _eq(body):
    return "\\begin{equation}\n" + body + "\n\\end{equation}\n"


def test_sample_labels_before_a_parenthesis_and_a_calligraphic_family(tmp_path):
    # our own transcription in the style of statnotes' logistic.tex:42-64 (a^{(i)}(1 - a^{(i)}), \mathcal{L}^{(i)})
    got = chains(
        tmp_path,
        "% let: \\sigma = sigmoid\n"
        + _eq("p^{(k)}=\\sigma(u^{(k)})")
        + _eq("\\frac{\\partial p^{(k)}}{\\partial u^{(k)}}=p^{(k)}(1-p^{(k)})")
        + _eq("\\frac{\\partial p^{(k)}}{\\partial u^{(k)}}=p^{(k)}(1+p^{(k)})")  # planted
        + "\\section{Cost}\n"
        + _eq("\\mathcal{E}^{(k)}=-\\left[t^{(k)}\\log q^{(k)}+(1-t^{(k)})\\log(1-q^{(k)})\\right]")
        + _eq("C=\\frac{1}{N}\\sum_{k=1}^N\\mathcal{E}^{(k)}")
        + _eq(
            "\\frac{\\partial C}{\\partial q^{(k)}}=-\\frac{1}{N}\\left[\\frac{t^{(k)}}{q^{(k)}}-\\frac{1-t^{(k)}}{1-q^{(k)}}\\right]"
        ),
    )
    assert [c["status"] for c in got] == ["definition", "proved", "refuted", "definition", "definition", "bad-input"], (
        got
    )
    # the sum's entries are the family's definition at each k, never an unknown array E_cal[k]
    assert "t[k]*log(q[k])" in json.dumps(got[4]) and "E_cal" not in json.dumps(got[4])
    # q_k beside the entries q[k]: refused, never refuted (derivative 0 of a sum in q[k])
    assert "one family read two ways" in json.dumps(got[5]), got[5]


def test_a_sum_in_entries_differentiated_by_a_labelled_entry(tmp_path):
    # style of statnotes' logistic.tex:58 with the cost written out: q^{(j)} is the entry q[j] of the sum
    got = chains(
        tmp_path,
        _eq("C=\\frac{1}{N}\\sum_{k=1}^N-\\left[t_k\\log q_k+(1-t_k)\\log(1-q_k)\\right]")
        + _eq(
            "\\frac{\\partial C}{\\partial q^{(j)}}=-\\frac{1}{N}\\left[\\frac{t^{(j)}}{q^{(j)}}-\\frac{1-t^{(j)}}{1-q^{(j)}}\\right]"
        )
        + _eq(
            "\\frac{\\partial C}{\\partial q_j}=-\\frac{1}{N}\\left[\\frac{t_j}{q_j}+\\frac{1-t_j}{1-q_j}\\right]"
        ),  # planted
    )
    # on main q_j was the name q_j, C did not depend on it, and the correct line was refuted
    assert [c["status"] for c in got] == ["definition", "proved", "refuted"], got


@pytest.mark.parametrize(
    "tex",
    [
        _eq("g^{(n)}(x)=x"),  # a derivative's order before its argument: refused, as before
        _eq("\\mathcal{D}=x"),  # a calligraphic set stays refused
    ],
)
def test_labels_that_stay_refused(tmp_path, tex):
    got = chains(tmp_path, "% assume: x \\in \\mathbb{R}\n" + tex + _eq("x = x + 0"))
    assert all(c["status"] != "proved" or "x + 0" in json.dumps(c) for c in got), got


# style of statnotes logistic.tex:23-32, 75, 85 (our symbols, our wording): v declared a vector in prose, v^t u its
# inner product with the sample u; "= \phi(s)" names the argument s
INNER = (
    "A model on $\\mathbb{R}^d$, with weights $v\\in\\mathbb{R}^d$, maps\n"
    + _eq("u\\mapsto p=\\phi(v^t u+c)=\\phi(s)")
    + "For each sample the $p$'s and $s$'s are given by\n"
    + _eq("p^{(k)}=\\phi(v^t u^{(k)}+c)=\\phi(s^{(k)})")
)


@pytest.mark.parametrize(
    "claim, status",
    [
        (
            "\\frac{\\partial s^{(k)}}{\\partial c}=\\frac{\\partial}{\\partial c}\\left(v^t u^{(k)}+c\\right)=1",
            "proved",
        ),
        (
            "\\frac{\\partial s^{(k)}}{\\partial c}=\\frac{\\partial}{\\partial c}\\left(v^t u^{(k)}+c\\right)=0",
            "refuted",
        ),
        ("\\frac{\\partial p^{(k)}}{\\partial s^{(k)}}=\\phi'(s^{(k)})", "proved"),  # p written in s: Leibniz
        ("\\frac{\\partial p^{(k)}}{\\partial s^{(k)}}=\\phi'(c)", "refuted"),  # planted: the wrong point
        ("\\frac{\\partial s^{(k)}}{\\partial v}=u^{(k)}", "bad-input"),  # a gradient in the vector v
        ("\\frac{\\partial s^{(k)}}{\\partial \\mathbf{v}}=0", "bad-input"),  # bold: the same vector, never 0
        ("\\frac{\\partial}{\\partial c}\\left(v^t U+c\\right)=1", "bad-input"),  # v^t U: a row vector, not read
    ],
)
def test_an_inner_product_of_a_declared_vector_and_a_named_argument(tmp_path, claim, status):
    got = chains(tmp_path, INNER + _eq(claim))
    assert [c["status"] for c in got] == ["definition"] * 4 + [status], got
    assert [c["steps"][-1]["expr"] for c in got[:4]] == ["phi(vTu + c)", "vTu + c", "phi(vTu_k + c)", "vTu_k + c"]


def test_w_to_the_t_of_an_undeclared_w_stays_refused(tmp_path):
    # without the prose's v \in R^d nothing says v is a vector: ^t stays a power in t or the transpose
    got = chains(tmp_path, _eq("\\frac{\\partial}{\\partial c}\\left(v^t u+c\\right)=1"))
    assert got[0]["status"] == "bad-input" and "a power in t, or the transpose" in json.dumps(got[0])


def test_a_row_that_ends_with_equals_goes_on_in_the_next(tmp_path):
    # style of statnotes logistic.tex:57-61 (our symbols): `=\\` then the right side on the next row, and
    # t^{(k)}(1-q^{(k)}) beside (1-t^{(k)}): t_k times, never t_k applied
    rows = (
        "r=&\\frac{t^{(k)}}{q^{(k)}}-\\frac{1-t^{(k)}}{1-q^{(k)}}=\\\\\n"
        "&\\frac{t^{(k)}(1-q^{(k)})-(1-t^{(k)})q^{(k)}}{q^{(k)}(1-q^{(k)})}=\\\\\n"
        "&\\frac{t^{(k)}-q^{(k)}}{q^{(k)}(1-q^{(k)})}"
    )
    align = "\\begin{align}\n" + rows + "\n\\end{align}\n"
    got = chains(tmp_path, align)
    assert [c["status"] for c in got] == ["definition", "proved"], got
    got = chains(tmp_path, align.replace("&\\frac{t^{(k)}-q^{(k)}}", "&\\frac{q^{(k)}-t^{(k)}}"))  # planted
    assert [c["status"] for c in got] == ["definition", "refuted"], got


@pytest.mark.parametrize("lhs, status", [("2p^{(k)}-2t^{(k)}", "proved"), ("2p^{(k)}-t^{(k)}", "refuted")])
def test_a_labelled_name_the_prose_after_defines_is_read_with_it(tmp_path, lhs, status):
    # style of statnotes logistic.tex:68-70 (our symbols, our wording): "Here we call $r^{(k)}=…$ the error"
    # after the display that uses r^{(k)}; read before that prose r_k was a free value
    tex = _eq(lhs + "=2r^{(k)}") + "Here we call $r^{(k)}=p^{(k)}-t^{(k)}$ the error.\n"
    got = chains(tmp_path, tex)
    assert [c["status"] for c in got] == ["definition", status], got
    assert got[0]["steps"][-1]["expr"] == "p_k - t_k"


def test_an_argument_known_before_keeps_the_claim(tmp_path):
    # f(E) = f(z) names z only where z is new: z^{(k)} defined before, cos(u + c) = cos(z) is a claim (refuted
    # here, z being 2u + c), never z given again
    tex = _eq("s^{(k)}=2u^{(k)}+c") + _eq("p^{(k)}=\\cos(u^{(k)}+c)=\\cos(s^{(k)})")
    assert [c["status"] for c in chains(tmp_path, tex)] == ["definition", "definition", "refuted"]


def test_a_declared_vector_to_the_t_where_t_is_a_step_is_no_power(tmp_path):
    # v^t with t used as a step in the same chain: never the power v^t of the vector v (the inner product needs
    # t nowhere else); the right side is not read, the definition said so
    got = chains(tmp_path, INNER + _eq("q_t=v^t + t"))
    assert got[-1]["status"] == "definition" and "a power of it is not read" in json.dumps(got[-1]), got[-1]
