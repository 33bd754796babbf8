"""Feedback for each student: build (the data, from the grades), model
(its types), render (Markdown and HTML) and shrink (the smallest puzzle a
solver still gets wrong)."""
