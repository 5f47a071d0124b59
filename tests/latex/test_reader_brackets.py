"""``\\[ … \\]`` in Markdown (issue 28, item 5): Markdown turns ``\\\\[`` into the ``\\[`` MathJax reads,
so ``\\\\[ … \\\\]`` is display math in a ``.md`` file; a lone ``\\[`` there is an escaped bracket
(CommonMark prints ``[``), while a notebook's Markdown cell hands its text to MathJax as it is, so there
``\\[ … \\]`` is display math. Our own lines."""

import json

from click.testing import CliRunner

from mathcheck.cli import main


def statuses(path):
    r = CliRunner().invoke(main, ["derive", str(path), "--json"])
    return [c["status"] for f in json.loads(r.output)["files"] for c in f["chains"]]


def test_double_backslash_brackets_in_markdown_are_display_math(tmp_path):
    p = tmp_path / "b.md"
    p.write_text(
        "Text \\\\[ (a+b)^2 = a^2 + 2ab + b^2 \\\\]\n\nan escaped \\[link\\] and \\[ x = 1 \\]\n\n"
        "\\\\[\n(a+b)^2 = a^2 + b^2\n\\\\]\n"
    )
    assert statuses(p) == ["proved", "refuted"]  # \[ x = 1 \] is an escaped bracket's text, not math


def test_a_notebook_cell_reads_single_backslash_brackets(tmp_path):
    cells = [{"cell_type": "markdown", "metadata": {}, "source": ["Expand:\n", "\\[ (a+b)^2 = a^2 + ab + b^2 \\]\n"]}]
    p = tmp_path / "n.ipynb"
    p.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    assert statuses(p) == ["refuted"]
