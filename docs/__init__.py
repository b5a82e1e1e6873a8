"""The README's pictures; `python -m docs.screenshots` makes them again (a package for the same reason as bench/)."""
