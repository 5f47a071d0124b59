"""Renderers: terminal text, JSON (and, as they come, LaTeX and Markdown), all from the same
verdict objects of :mod:`mathcheck.verdict`. Renderers compute nothing; they only print."""

# one renderer per format, and what they share
__all__ = ["html", "json", "latex", "markdown", "notebook", "plots", "tex", "text"]
