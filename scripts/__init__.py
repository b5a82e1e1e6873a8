"""What is run by hand: the docs' screenshots (`python -m scripts.screenshots`), the vendoring scripts.

A regular package (this file), so that `python -m scripts.screenshots` imports the page's modules and tests.support
without sys.path edits, and no `scripts` installed elsewhere can take its place.
"""
