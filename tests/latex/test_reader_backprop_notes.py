"""Issue 28, the two backprop notes of the corpus (tex-backprop-backprop.tex, UFLDL-style layer labels;
tex-backprop-dahoc.tex, a pattern's error ^pE): read as their authors wrote them, or refused with a line.
Every display here is our own, in the style of the line cited; no text of those files is copied."""

import pytest

from mathcheck import derive, latex
from mathcheck.chains import DeriveError

TIMEOUT = 60


# style of tex-backprop-dahoc.tex:128-131, :160-161 and :187-190: the error of one pattern written with its
# pattern's label before it (^q E), summed over a set (not read); later chains start with derivatives of E
# (the notes' sums are read by tests/latex/test_reader_calculus.py; here one term, to keep the proofs cheap)
PATTERN = r"""\begin{align*}
^q E &= \frac{1}{2} \sum_{r \in R} \left(s_r - u_r \right)^2 \ \ \ \text{with $s_r$ the target}
\end{align*}
\begin{align*}
\frac{\partial E}{\partial u} &= \frac{\partial}{\partial u} \cdot \frac{1}{2} \left(s - u\right)^2 \\
&= - (s - u)
\end{align*}
\begin{align*}
- \frac{\partial E}{\partial v} &= - \frac{\partial E(\underline{net})}{\partial v} \\
&= \underline{\epsilon} \cdot \frac{\partial}{\partial v} \underline{c} \cdot v \\
&= \underline{\epsilon} \cdot \underline{c}
\end{align*}
\begin{align*}
\epsilon &= - \frac{\partial E}{\partial t}
\end{align*}
"""


def _read(tmp_path, text):
    p = tmp_path / "n.tex"
    p.write_text(text)
    return derive.read(str(p))


def test_a_pattern_label_before_e_defines_e_and_the_links_after_e_are_checked(tmp_path):
    defined, output, hidden, delta = _read(tmp_path, PATTERN)
    # ^q E: E defined (its sum over a set not read), never an expectation nor "cannot read '^'"
    assert defined.steps[0].text == "E_def" and "\\sum is read with both bounds" in defined.unread, defined
    # the first link needs E (not read): the rest is the author's claim, checked from the second expression
    assert [s.text for s in output.steps] == ["diff(1/2*(s - u)^2, u)", "-(s - u)"], output
    assert any(
        "links before the expression on line 5 are not read: E_def is defined in a display" in n for n in output.notes
    )
    # E(…) (the notes' E of the next layer's net inputs) is dropped too: the chain starts at line 10
    assert hidden.steps[0].line == 10 and hidden.steps[-1].text == "epsilon_under*c_under", hidden
    # a definition in E: its right side is not read, never E an unknown function of t unfolded later
    assert delta.steps[1].text == "(not read)" and "E_def is defined in a display" in delta.unread, delta
    got = [derive.check_chain(c, seed=0, timeout=TIMEOUT).status for c in (output, hidden)]
    assert got == ["proved", "proved"]


@pytest.mark.parametrize(
    "old, new, at",
    [
        ("&= - (s - u)", "&= (s - u)", 1),  # the sign
        (r"&= \underline{\epsilon} \cdot \underline{c}", r"&= \underline{\epsilon} \cdot v", 2),  # c for v
    ],
)
def test_the_links_after_e_can_fail(tmp_path, old, new, at):
    assert old in PATTERN
    chain = _read(tmp_path, PATTERN.replace(old, new))[at]
    assert derive.check_chain(chain, seed=0, timeout=TIMEOUT).status == "refuted"


def test_a_chain_whose_later_expressions_fail_of_their_own_stays_bad_input(tmp_path):
    output = _read(tmp_path, PATTERN.replace(r"&= - (s - u)", r"&= - (s - u)^T"))[1]
    assert output.error and not output.steps, output


def test_a_layer_label_is_never_dropped_nor_a_power():
    # style of tex-backprop-backprop.tex:164: the last layer's label, a subscripted letter (read as a power)
    with pytest.raises(DeriveError, match="is a label"):
        latex.translate(r"v^{(n_s)} = v^{n_s}")
    # a sample's label that a sum runs over is no layer's array (x_layer_i would be one quantity for every i)
    with pytest.raises(DeriveError, match="is a label"):
        latex.translate(r"\sum_{i=1}^{n} x_j^{(i)}")
    # style of :209, :213: a layer's label on the variable of a derivative; it was dropped, so ∂J/∂z_i^{(l)} and
    # ∂J/∂z_i^{(l+1)} were one derivative (this link "proved"); now two layers' entries, two derivatives
    assert latex.translate(r"\frac{\partial C}{\partial q_k^{(s)}}") == "diff(C(q_layer_s[k]), q_layer_s[k])"
    assert (
        latex.translate(r"\frac{\partial C}{\partial q_k^{(s+1)}}") == "diff(C(q_layer_splus1[k]), q_layer_splus1[k])"
    )


def test_a_derivative_order_and_a_sample_label_still_read():
    assert latex.translate(r"\frac{\partial^2 f}{\partial x^{2}}") == "diff(f(x), x, 2)"
    assert latex.translate(r"\sum_{i=1}^n \frac{\partial L}{\partial x^{(i)}}") == "Sum(diff(L(x[i]), x[i]), (i, 1, n))"


# style of tex-backprop-backprop.tex:170-178: one example's cost with its data after a semicolon, then the
# overall cost by it (the same letter, two arguments fewer), and the network's output h_{W,b}(x) (:164)
COSTS = r"""\begin{equation}
C(\theta,c;u,v) = \frac{1}{2} \|g(u)-v\|^2.
\end{equation}
\begin{equation}
C(\theta,c) = \frac{1}{n} \sum_{k=1}^n C(\theta,c;u^{(k)},v^{(k)}) + \frac{\mu}{2} \theta^2
\end{equation}
\begin{equation}
g_{\theta,c}(u) = q^{(n_s)}
\end{equation}
"""


def test_a_cost_of_one_example_and_the_overall_cost_are_two_definitions(tmp_path):
    got = _read(tmp_path, COSTS)
    assert [bool(c.unread) for c in got] == [True] * 3, got
    assert "redefines" not in got[1].name  # another function, not C given again


def test_a_cost_defined_by_itself_is_no_definition(tmp_path):
    # without the semicolon the right side applies the very C it would define: recursive, not a definition
    got = _read(tmp_path, COSTS.replace(r"C(\theta,c;u^{(k)},v^{(k)})", r"C(\theta,c)"))
    assert got[1].error and not got[1].unread, got


# style of tex-backprop-dahoc.tex:135-138: the weight change proportional to a gradient (\sim, not checked) on
# one row, defined on the next (its right side, a transpose here, not read)
WEIGHTS = r"""\begin{align*}
^q \vartriangle v_{rs} &\sim - \nabla_v \cdot \ ^q E \\
\vartriangle v_{rs} &= - \kappa \, \mathbf{g}^\top \mathbf{v}
\end{align*}
"""


def test_a_relation_not_checked_fails_its_own_equation_and_the_weight_change_is_a_name(tmp_path):
    sim, defined = _read(tmp_path, WEIGHTS)
    assert "\\sim is not a link mathcheck checks" in sim.error
    assert defined.steps[0].text == "Delta_v_rs" and "transpose" in defined.unread, defined
    assert latex.translate(r"\vartriangle v_{rs} + 1") == "Delta_v_rs + 1"  # never the product Δ·v
    # one equation alone with \sim: the block, as before
    (alone,) = _read(tmp_path, "\\begin{align*}\na &\\sim b\n\\end{align*}\n")
    assert "\\sim is not a link mathcheck checks" in alone.error


def test_a_claim_beside_a_relation_not_checked_stays_bad_input(tmp_path):
    # the row may be the claim's hypothesis (a law, a domain): only a definition is read beside it
    got = _read(tmp_path, "\\begin{align*}\nX &\\sim \\mathcal{N}(0, 1) \\\\\nX^2 &= X \\cdot X\n\\end{align*}\n")
    assert [bool(c.error) for c in got] == [True, True] and "\\sim is not a link" in got[1].error, got


def test_a_dropped_link_s_condition_keeps_the_chain_bad_input(tmp_path):
    # a condition on the first row may be the whole equation's: read without it, the rest could be refuted
    text = PATTERN.replace(
        r"\cdot \frac{1}{2} \left(s - u\right)^2 \\", r"\cdot \frac{1}{2} \left(s - u\right)^2 \quad u > 0 \\"
    )
    assert "u > 0" in text
    assert _read(tmp_path, text)[1].error


# style of tex-backprop-backprop.tex:149-154, :203-209: a layer's weighted sums defined entry by entry with the
# layer's label beside the entry's index, the derivative by one weight, and an error term of a cost whose
# definition is not read (our own letters: u for z, V for W, h for a, c for b, k for l, m_k for s_l)
LAYERS = r"""\begin{equation}
u_p^{(k+1)} = \sum_{q=1}^{m_{k}} V^{(k)}_{pq} h_q^{(k)} + c^{(k)}_p,
\end{equation}
\begin{equation}
\frac{\partial u_p^{(k+1)}}{\partial V_{pq}^{(k)}} = h_q^{(k)}
\end{equation}
\begin{equation}
\frac{\partial u_p^{(k+1)}}{\partial V_{pq}^{(k)}} = h_p^{(k)}
\end{equation}
\begin{equation}
\frac{\partial u_p^{(k)}}{\partial V_{pq}^{(k)}} = h_q^{(k)}
\end{equation}
\begin{equation}
u_p^{(k)} - c^{(k)}_p = \sum_{q=1}^{m_{k}} V^{(k)}_{pq} h_q^{(k)}
\end{equation}
\begin{equation}
C(\theta,c;x,y) = \frac{1}{2} \|g(x)-y\|^2.
\end{equation}
\begin{equation}
\epsilon_p^{(k)} = \frac{\partial C}{\partial u_p^{(k)}}
\end{equation}
\begin{equation}
\epsilon_p^{(k)} = 2 \epsilon_p^{(k)} - \epsilon_p^{(k)}
\end{equation}
"""


def test_a_layer_label_beside_an_index_reads_the_entry_of_that_layers_array(tmp_path):
    defined, right, slip, other, shifted, _, delta, later = _read(tmp_path, LAYERS)
    assert defined.definition and defined.steps[0].text == "u_layer_kplus1(p)", defined
    assert defined.steps[1].text == "Sum(V_layer_k[p, q]*h_layer_k[q], (q, 1, m_k)) + c_layer_k[p]", defined
    assert right.steps[0].text == "diff(u_layer_kplus1(p), V_layer_k[p, q])" and right.steps[1].text == "h_layer_k[q]"
    # the notes' own slip (:205 writes a_i^{(l)} where line 151 gives a_j^{(l)}): refuted, at an index of the sum
    assert [derive.check_chain(c, seed=0, timeout=TIMEOUT).status for c in (right, slip)] == ["proved", "refuted"]
    # another layer's u (label k, defined at k+1) is not unfolded: no shift of the label is read
    assert other.error and "u_layer_k[p]" in other.error, other
    # read as a free array, u at layer k would be refuted where the author means line 1's u at k
    assert shifted.error and "u is defined at layer (k+1)" in shifted.error, shifted
    # a definition in a cost not read: never unfolded, and a later chain in it is refused
    assert delta.steps[0].text == "epsilon_layer_k" and delta.unread, delta
    assert later.error and "epsilon_layer_k is defined in a display" in later.error, later


# a layer's matrix defined entry by entry (our own, in the style of the notes' W^{(l)}_{ij}), given again at
# swapped indices: unfolded at those indices
MATRIX = r"""\begin{equation}
V_{pq}^{(k)} = 2 h_p^{(k)} h_q^{(k)} + h_q^{(k)}
\end{equation}
\begin{equation}
V_{qp}^{(k)} = 2 h_q^{(k)} h_p^{(k)} + h_p^{(k)}
\end{equation}
\begin{equation}
V_{qp}^{(k)} = 2 h_q^{(k)} h_p^{(k)} + h_q^{(k)}
\end{equation}
"""


def test_a_layers_matrix_defined_entry_by_entry_is_unfolded_at_other_indices(tmp_path):
    defined, swapped, slip = _read(tmp_path, MATRIX)
    assert defined.definition and defined.steps[0].text == "V_layer_k(p, q)", defined
    assert swapped.steps[0].text == "V_layer_k(q, p)", swapped
    assert [derive.check_chain(c, seed=0, timeout=TIMEOUT).status for c in (swapped, slip)] == ["proved", "refuted"]
    # a plain name subscripted by the entries' index would not follow them to other indices: refused
    (named,) = _read(tmp_path, r"\begin{equation} V_{pq}^{(k)} = 2 x_p \end{equation}")
    assert named.error and "x_p on the right side is a name" in named.error, named
