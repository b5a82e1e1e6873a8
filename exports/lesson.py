"""A lesson in one file: the pass on screen as one HTML page that steps with no server, for an LMS page, a slide
deck or a student offline. It holds the run the page's player is sent (its head, the graph laid out, the body of
frames: components/player's lesson_run), the player's own script and style (components/player/lesson.js, the same
modules as the page's player, and player.css), and the page's fonts: the graph's as a subset of the characters it
shows, the words' Latin faces. Pure: the share panel calls it when its button is clicked, and the ZIP's download.

It asks for nothing: its Content-Security-Policy is `default-src 'none'`, with only its own inline script and styles
allowed, by their SHA-256 (a style the player's HTML carries, the legend's say, is allowed by its hash too), and its
font is added from bytes (FontFace), which fetches nothing. Every text in it is escaped as the page escapes it:
the run's HTML was made by the page's builders, and the title, the link and the student's code are escaped here."""

import base64
import hashlib
import html
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

from exports.picture import FONT_FILES, font_subset
from view.palette import FAMILY, SCREEN_FONT

ROOT = Path(__file__).parent.parent
PLAYER = ROOT / 'components' / 'player'
# the words' font, as Streamlit draws the page's (player.css names it): Source Sans 3, vendored from the npm
# registry by scripts/update-fonts.sh, by weight
WORDS_FAMILY = 'Source Sans'
WORDS = ROOT / 'static' / 'fonts' / 'source-sans-3'
WORDS_FONTS = {weight: WORDS / f'source-sans-3-latin-{weight}-normal.woff2' for weight in ('400', '600', '700')}
MB = 2**20
MOST_BYTES = 10 * MB  # a lesson bigger than this is not offered (size_of): a page that opens slowly on a phone
NAME = 'Backprop, step by step'
# the lesson's own page around the player: the player's style is player.css, as on the page
STYLE = """
body { margin: 0 auto; padding: 0.75rem 1rem 2rem; max-width: 1400px; font-family: "Source Sans", sans-serif;
  color: #31333f; background: #fff; line-height: 1.5; }
body.present { max-width: none; }
header.lesson .top { display: flex; flex-wrap: wrap; align-items: center; gap: 0.25rem 1rem; margin: 0 0 0.25rem; }
header.lesson h1 { font-size: 1.35rem; margin: 0; overflow-wrap: anywhere; flex: 1 1 20rem; }
header.lesson details { margin: 0 0 0.5rem; font-size: 0.95rem; color: #4a4c57; }
header.lesson summary { cursor: pointer; color: #0b5cad; }
header.lesson details[open] summary { display: none; }
header.lesson p { margin: 0 0 0.25rem; }
header.lesson a, section.code a { color: #0b5cad; }
header.lesson .views { display: flex; gap: 0.5rem; }
header.lesson .views button { font: inherit; font-size: 0.9rem; padding: 0.2rem 0.7rem; border-radius: 0.5rem;
  border: 1px solid #767986; background: #fff; color: #31333f; cursor: pointer; }
header.lesson .views button[aria-pressed="true"] { background: #31333f; color: #fff; border-color: #31333f; }
section.code h2 { font-size: 1.1rem; margin: 1.5rem 0 0.5rem; }
section.code pre { background: #f4f5f7; padding: 0.75rem; border-radius: 0.4rem; white-space: pre-wrap;
  overflow-wrap: anywhere; font-family: SCREEN_FONT; font-size: 0.9rem; }
@media (max-width: 640px) { body { padding: 0.5rem 0.5rem 2rem; } header.lesson h1 { font-size: 1.1rem; } }
""".replace('SCREEN_FONT', SCREEN_FONT)  # the code in the graph's font, as the page's code boxes


def too_big(size):
    return (
        f'This pass as one page would be {size_words(size)}, more than the {size_words(MOST_BYTES)} a page opens '
        'quickly on a phone or in an LMS: choose a shorter chain, or make the PDF of a range of frames below.'
    )


def size_words(size):
    """A file's bytes as people read them: '165 kB', '1.4 MB'."""
    return f'{size / MB:.1f} MB' if size >= MB else f'{max(1, size // 1024)} kB'


def lesson_html(head, graph, body, title, link=None, code=(), made=None, about=None):
    """The lesson's HTML, as text. `head`, `graph`, `body`: the run the page's player is sent, each JSON as bytes
    (components/player's lesson_run); `title`: the expression's title, as the page's heading writes it, and `about`,
    what it teaches, or None; `link`: the page's link to this scenario (where a visitor types a new formula or new
    code), an http(s) address, or None; `code`: (heading, text) of the student's own code, shown under the player;
    `made`: the date it was made, said in its note. How big it will be, size_of says before it is made."""
    head, graph, body = (part.decode() for part in (head, graph, body))
    blocks = {'head': head, 'graph': graph, 'body': body}
    blocks['fonts'] = json.dumps(_fonts(_characters(head, graph, body, title, *(t for _, t in code))))
    script = (PLAYER / 'lesson.js').read_text()
    style = STYLE + (PLAYER / 'player.css').read_text()
    styles = [style, *sorted(inline_styles(head, graph, body))]
    policy = '; '.join([
        "default-src 'none'",
        f"script-src {_hash(script)}",
        f"style-src 'unsafe-hashes' {' '.join(map(_hash, styles))}",  # 'unsafe-hashes': the style attributes hashed
        "base-uri 'none'",
        "form-action 'none'",
    ])  # fmt: skip
    place = urlsplit(link or '')  # the page's address, its query (the whole scenario) in the link alone
    page = 'the page it was made on'
    if place.scheme in ('http', 'https') and place.netloc:
        page = f'<a href="{html.escape(link)}">{html.escape(place.netloc + place.path)}</a>'
    note = (
        f'A lesson from {NAME}{f", made {made}" if made else ""}: it steps on its own, with no server. ← and → '
        f'step, Space plays. To type a new formula or your own code, open {page}.'
    )
    teaches = f'<p>{html.escape(about)}</p>' if about else ''
    code_html = ''.join(f'<h3>{html.escape(name)}</h3><pre>{html.escape(text)}</pre>' for name, text in code)
    data = ''.join(
        f'<script type="application/json" id="lesson-{name}">{_in_script(text)}</script>\n'
        for name, text in blocks.items()
    )
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{html.escape(policy)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>{html.escape(title)} · {NAME}</title>
<style>{style}</style>
</head>
<body>
<header class="lesson"><div class="top"><h1>{html.escape(title)}</h1>
<div class="views" role="group" aria-label="Views">
<button class="present" aria-pressed="false">Presentation view</button>
<button class="contrast" aria-pressed="false">High contrast</button></div></div>
<details class="about" open><summary>About this lesson</summary>{teaches}<p>{note}</p></details></header>
<main><div class="player"></div></main>
{f'<section class="code"><h2>The code it runs</h2>{code_html}</section>' if code else ''}
{data}<script>{script}</script>
</body>
</html>
"""


PAGE_AT_MOST = 8 * 1024  # bytes: the page around the blocks, its policy's hashes and its note, at their longest


def size_of(head, graph, body, title='', code=()):
    """A lesson's bytes before it is made, from its run's bytes (lesson_html's arguments), within PAGE_AT_MOST over:
    the run as the file holds it (each '<' as six characters: _in_script), the player's script and style, and the
    fonts the characters it shows take. Costs a count over the run and, at most, the fonts' subsets."""
    run = sum(len(part) + 5 * part.count(b'<') for part in (head, graph, body))
    player = sum(len((PLAYER / name).read_bytes()) for name in ('lesson.js', 'player.css')) + len(STYLE.encode())
    if run + player > MOST_BYTES:  # past the limit already: its fonts, read off the whole run, need not be counted
        return run + player
    texts = (part.decode('utf-8', 'replace') for part in (head, graph, body))
    fonts = len(json.dumps(_fonts(_characters(*texts, title, *(t for _, t in code)))))
    shown = sum(len(html.escape(t).encode()) for t in (title, title, *(t for pair in code for t in pair)))
    return run + player + fonts + shown + PAGE_AT_MOST


def _hash(text):
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def _in_script(text):
    """JSON text as a <script type="application/json"> block holds it: no '<' (JSON has it only inside strings,
    where \\u003c is the same character), so no '</script>' or '<!--' in it ends the block early."""
    return text.replace('<', '\\u003c')


class _Styles(HTMLParser):
    """The styles in HTML: each <style> element's text and each style attribute's value."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.found, self.inside = set(), False

    def handle_starttag(self, tag, attrs):
        self.found.update(value for name, value in attrs if name == 'style' and value is not None)
        self.inside = tag == 'style'

    def handle_endtag(self, tag):
        self.inside = False

    def handle_data(self, data):
        if self.inside:
            self.found.add(data)


def inline_styles(*texts):
    """Every style that the HTML in `texts` (JSON, whose strings the player writes into the page) carries: the
    lesson's policy allows these by their hash, and no other."""
    styles = set()
    for value in _strings(*texts):
        if 'style' in value:
            parser = _Styles()
            parser.feed(value)
            parser.close()
            styles.update(parser.found)
    return styles


def _strings(*texts):
    """Every string in the JSON `texts`, keys and values."""

    def walk(value):
        if isinstance(value, str):
            yield value
        elif isinstance(value, dict):
            for key, item in value.items():
                yield key
                yield from walk(item)
        elif isinstance(value, list):
            for item in value:
                yield from walk(item)

    for text in texts:
        yield from walk(json.loads(text))


def _characters(*texts):
    """The characters `texts` show, JSON's \\uXXXX escapes read as the characters they stand for."""
    shown = set()
    for text in texts:
        shown.update(text)
        shown.update(chr(int(code, 16)) for code in set(re.findall(r'\\u([0-9a-fA-F]{4})', text)))
    return shown


def _fonts(characters):
    """The page's fonts, base64, [{family, weight, data}]: the graph's, each weight the subset of `characters` (the
    page's texts are in it), and the words', Source Sans 3's Latin subset in the weights the page uses (WORDS_FONTS)."""
    used = ''.join(sorted({c for c in characters if c.isprintable()} | {' '}))
    graph = [(FAMILY, weight, font_subset(weight, used)) for weight in FONT_FILES]
    words = [(WORDS_FAMILY, weight, path.read_bytes()) for weight, path in WORDS_FONTS.items()]
    return [
        {'family': family, 'weight': weight, 'data': base64.b64encode(data).decode()}
        for family, weight, data in graph + words
    ]
