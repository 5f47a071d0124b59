"""Renderers: terminal text, JSON (and, as they come, LaTeX and Markdown), all from the same
verdict objects of :mod:`mathcheck.verdict`. Renderers compute nothing; they only print."""
