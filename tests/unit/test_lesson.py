"""A lesson in one file (exports/lesson.py), as text: its policy allows its own script and styles alone, by their
hashes, and nothing else; everything it shows of a visitor's is escaped; it refuses to be bigger than MOST_BYTES."""

import base64
import hashlib
import html
import io
import json
import re
from html.parser import HTMLParser

import pytest
from fontTools.ttLib import TTFont

from exports import lesson

HEAD = json.dumps({'layout': 'x', 'graph': 'g', 'note': '</script><script>alert(1)</script>'})
GRAPH = json.dumps({'svg': '<svg viewBox="0 0 10 10"><text>a</text></svg>', 'fits': {}})
BODY = json.dumps(
    {
        'legend': '<style>.k{color:red}</style><span style="margin-right:1.2em">key</span>',
        'explanations': ['<b style="color:#D55E00">x</b> → ∂'],
        'note': '<!-- not a comment -->',
    }
)


class Page(HTMLParser):
    """What a browser reads of the lesson: its policy, its elements by tag, each <script> and <style> text."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.policy, self.tags, self.scripts, self.styles, self._in = None, [], [], [], None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append((tag, attrs))
        if tag == 'meta' and attrs.get('http-equiv') == 'Content-Security-Policy':
            self.policy = attrs['content']
        self._in = (tag, attrs) if tag in ('script', 'style') else None

    def handle_data(self, data):
        if self._in and self._in[0] == 'script':
            self.scripts.append((self._in[1], data))
        elif self._in:
            self.styles.append(data)

    def handle_endtag(self, tag):
        self._in = None


def made(**given):
    run = (HEAD.encode(), GRAPH.encode(), BODY.encode())
    return lesson.lesson_html(*run, title=given.pop('title', 'a*b + a*a'), **given)


def sha(text):
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def directives(policy):
    return {d.split()[0]: d.split()[1:] for d in policy.split('; ')}


def test_its_policy_allows_nothing_but_its_own_inline_script_and_styles_by_their_hashes():
    page = Page(made())
    policy = directives(page.policy)
    assert policy['default-src'] == ["'none'"]
    assert set(policy) == {'default-src', 'script-src', 'style-src', 'base-uri', 'form-action'}
    (code,) = [text for attrs, text in page.scripts if 'type' not in attrs]
    assert policy['script-src'] == [sha(code)]
    allowed = set(policy['style-src']) - {"'unsafe-hashes'"}
    assert all(source.startswith("'sha256-") for source in allowed)
    assert {sha(text) for text in page.styles} <= allowed
    # the styles the player writes into the page from the run: the legend's <style> and each style attribute
    assert {sha('.k{color:red}'), sha('margin-right:1.2em'), sha('color:#D55E00')} <= allowed


def test_it_links_to_nothing_and_loads_nothing_but_the_page_it_came_from():
    page = Page(made(link='https://backprop.example.edu/?expr=reuse&step=end'))
    for tag, attrs in page.tags:
        assert 'src' not in attrs and tag not in ('link', 'iframe', 'img', 'object', 'embed', 'base'), tag
        if 'href' in attrs:
            assert attrs['href'] == 'https://backprop.example.edu/?expr=reuse&step=end'


def test_the_run_is_in_json_blocks_that_nothing_in_it_can_end_early_and_reads_back_the_same():
    page = Page(made())
    blocks = {attrs['id']: text for attrs, text in page.scripts if attrs.get('type') == 'application/json'}
    assert [json.loads(blocks[f'lesson-{name}']) for name in ('head', 'graph', 'body')] == [
        json.loads(HEAD), json.loads(GRAPH), json.loads(BODY)]  # fmt: skip
    assert all('<' not in text for text in blocks.values())


def test_the_title_the_link_and_the_students_code_are_printed_never_read_as_markup():
    hostile = '</pre><script>alert(1)</script><img src=x onerror=alert(2)>'
    text = made(title=f'x{hostile}', link=f'https://example.edu/?a="{hostile}', code=(('add', hostile),))
    page = Page(text)
    assert [tag for tag, _ in page.tags if tag in ('img',)] == []
    assert [attrs for attrs, _ in page.scripts if 'type' not in attrs and 'src' in attrs] == []
    assert len([1 for attrs, _ in page.scripts if 'type' not in attrs]) == 1  # the lesson's own, alone
    assert html.escape(hostile) in text


def test_its_fonts_are_the_graphs_subset_of_the_characters_it_shows_and_the_words_latin_faces():
    page = Page(made())
    fonts = json.loads({attrs['id']: t for attrs, t in page.scripts if attrs.get('id')}['lesson-fonts'])
    faces = {(f['family'], f['weight']): base64.b64decode(f['data']) for f in fonts}
    assert set(faces) == {('DejaVu Sans Mono', 'normal'), ('DejaVu Sans Mono', 'bold'), ('Source Sans', '400'),
                          ('Source Sans', '600'), ('Source Sans', '700')}  # fmt: skip
    for weight in ('normal', 'bold'):
        cmap = TTFont(io.BytesIO(faces['DejaVu Sans Mono', weight])).getBestCmap()
        assert {ord(c) for c in 'a*b→∂'} <= set(cmap) and ord('Z') not in cmap  # 'Z' is in no text of the run
    for weight in ('400', '600', '700'):  # the vendored WOFF2 files, whole (static/fonts/source-sans-3/)
        data = faces['Source Sans', weight]
        assert (
            data[:4] == b'wOF2' and data == (lesson.WORDS / f'source-sans-3-latin-{weight}-normal.woff2').read_bytes()
        )


@pytest.mark.parametrize('given', [
    {},
    {'title': 'Σ αβγ: 日本語 ∂', 'about': 'What it teaches', 'link': 'https://backprop.example.edu/?expr=reuse'},
    {'code': (('__add__: its body', '</pre>' * 200 + '∑ ≠ ≤'), ('tanh: its body', 'x' * 5000))},
])  # fmt: skip
def test_the_size_said_before_it_is_made_is_at_most_a_few_kb_over_its_bytes(given):
    run = (HEAD.encode(), GRAPH.encode(), BODY.encode())
    size = len(made(**dict(given)).encode())
    said = lesson.size_of(*run, title=given.get('title', 'a*b + a*a'), code=given.get('code', ()))
    assert size <= said <= size + lesson.PAGE_AT_MOST


def test_the_note_says_typing_needs_the_page_with_its_link_where_there_is_one():
    with_link = made(link='https://backprop.example.edu/?expr=reuse')
    assert re.search(r'To type a new formula or your own code, open <a href="https://backprop.example.edu/', with_link)
    assert 'open the page it was made on' in made()
    # a link no browser opens from a file (no host, or not the web's) is not written as one
    assert 'open the page it was made on' in made(link='?expr=reuse')
    hostile = made(link='javascript:alert(1)')
    assert 'href="javascript' not in hostile and 'open the page it was made on' in hostile
