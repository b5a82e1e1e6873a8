"""Reading what the player is sent, as the page does: each frame's state after the patches, the text of its HTML.
Shared by the tests of the view (tests/unit) and of the page (tests/app)."""

import html
import re


def replay(patches):
    """Each frame's full state, as the player's model holds it after applying the patches in order."""
    values, edges, states = {}, {}, []
    for patch in patches:
        values.update({i: tuple(look) for i, *look in patch['v']})
        edges.update({key: label for key, label in patch['e']})
        states.append((dict(values), patch['o'], {k: v for k, v in edges.items() if v}))
    return states


def text_of(markup):
    return html.unescape(re.sub(r'<[^>]*>', '', re.sub(r'<style>.*?</style>', '', markup, flags=re.S)))
