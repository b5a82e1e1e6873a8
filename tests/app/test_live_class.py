"""A live class on the page (components/live.py): the presentation view's *Start a class* shows a code and a join
link, never the lecturer's secret; a student's link with an unknown code says so and the ordinary page goes on."""

import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

from components.live import JOINED, LECTURER
from server.live import ROOMS

APP = str(Path(__file__).parents[2] / 'app.py')


def page(query):
    at = AppTest.from_file(APP, default_timeout=60)
    for key, value in query.items():
        at.query_params[key] = value
    return at.run()


def texts(at):
    """Every text the page shows: markdown, code blocks, captions, warnings."""
    parts = [e.value for e in at.markdown] + [e.value for e in at.code] + [e.value for e in at.caption]
    return parts + [e.value for e in at.warning]


def test_start_a_class_shows_a_code_and_a_join_link_and_never_the_secret():
    at = page({'expr': 'reuse', 'present': '1'})
    assert not at.exception
    at.button(key='start_class').click().run()
    assert not at.exception
    code, secret = at.session_state[LECTURER]
    shown = texts(at)
    assert any(' '.join(code) in text for text in shown)  # the code, spaced to be read aloud
    assert any(f'?class={code}' in text for text in shown)  # the join link
    assert not any(secret in text for text in shown)
    assert secret not in json.dumps(dict(at.query_params))
    assert ROOMS.students(code) == 0
    at.button(key='end_class').click().run()
    assert not at.exception
    assert LECTURER not in at.session_state
    assert at.button(key='start_class')


def test_a_student_joins_a_class_and_opens_its_scenario():
    lecturer = ROOMS.create({'expr': 'chain', 'n': '3'}, frame=2)
    at = page({'class': lecturer.code.lower()})
    assert not at.exception
    assert at.session_state['expr'] == 'chain' and at.session_state['chain_length'] == 3
    assert any(lecturer.code in text for text in texts(at))
    assert at.session_state[JOINED] == lecturer.code  # counted once its player follows (the events route)
    ROOMS.close(lecturer.code, lecturer.secret)


def test_a_bad_or_ended_class_code_says_so_and_the_page_goes_on():
    at = page({'class': 'BADCODE'})
    assert not at.exception
    assert any('No class has the code' in w.value for w in at.warning)
    assert at.session_state['room'] == ''
    lecturer = ROOMS.create({'expr': 'reuse'})
    ROOMS.close(lecturer.code, lecturer.secret)
    at = page({'class': lecturer.code})
    assert not at.exception
    assert any('has ended' in w.value for w in at.warning)


def test_a_class_code_from_a_link_is_printed_never_rendered():
    at = page({'class': '[join](http://e.vl) **now**'})  # within the link's 32 characters
    assert not at.exception
    (said,) = [w.value for w in at.warning if 'No class has the code' in w.value]
    assert '\\[JOIN\\]\\(HTTP' in said and '\\*\\*NOW\\*\\*' in said  # every mark escaped: no link, no bold
