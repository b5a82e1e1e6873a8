"""A live class on the page (components/live.py): the presentation view's *Start a class* shows a code and a join
link, never the lecturer's secret; a student's link with an unknown code says so and the ordinary page goes on."""

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from components.live import ENDED, JOINED, LECTURER, lost_words
from engine import exercise
from server.live import ROOMS
from server.rooms import RoomError, RoomShut, StoreDown

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


def test_a_join_link_opened_while_the_store_cannot_be_reached_follows_the_class_once_it_can(monkeypatch):
    lecturer = ROOMS.create({'expr': 'chain', 'n': '3'}, frame=2)
    state = ROOMS.state

    def away(code):
        raise StoreDown('The class cannot be reached just now: try again in a moment.')

    monkeypatch.setattr(ROOMS, 'state', away)
    at = page({'class': lecturer.code})
    assert not at.exception and not at.warning  # not "the ordinary page, on its own"
    assert [i.value.replace('\\', '') for i in at.info] == [
        f'The class **{lecturer.code}** cannot be reached just now: this page joins it as soon as it can.'
    ]
    (player,) = [e for e in at.main if getattr(e, 'key', None) == 'graph']
    room = json.loads(player.proto.bytes.split(b'\n', 1)[0])['room']
    assert room['code'] == lecturer.code and room['follow']  # the player follows, and lands once the class answers
    monkeypatch.setattr(ROOMS, 'state', state)
    at.run()
    assert at.session_state[JOINED] == lecturer.code and not at.info
    ROOMS.close(lecturer.code, lecturer.secret)


def test_a_class_code_from_a_link_is_printed_never_rendered():
    at = page({'class': '[join](http://e.vl) **now**'})  # within the link's 32 characters
    assert not at.exception
    (said,) = [w.value for w in at.warning if 'No class has the code' in w.value]
    assert '\\[JOIN\\]\\(HTTP' in said and '\\*\\*NOW\\*\\*' in said  # every mark escaped: no link, no bold


def lead(query):
    """A lecturer's presentation view with a class started: the page, and the class's (code, secret)."""
    at = page({**query, 'present': '1'})
    at.button(key='start_class').click().run()
    assert not at.exception
    return at, at.session_state[LECTURER]


def test_the_lecturer_closes_the_room_to_new_students_and_those_in_it_stay():
    at, (code, secret) = lead({'expr': 'reuse'})
    ana = ROOMS.join(code)
    assert at.toggle(key=f'taking:{code}').value is True
    at.toggle(key=f'taking:{code}').set_value(False).run()
    assert not at.exception and not ROOMS.taking(code)
    with pytest.raises(RoomShut):
        ROOMS.join(code)
    assert ROOMS.join(code, ana) == ana  # ana's phone, reloaded
    assert any('1 student follows' in text for text in texts(at.run()))
    ROOMS.shut(code, secret, False)  # opened again from another tab of the lecturer's: the toggle follows the room
    assert at.run().toggle(key=f'taking:{code}').value is True
    ROOMS.join(code)
    ROOMS.close(code, secret)


def test_ask_the_room_asks_the_next_backward_step_and_the_projector_counts_the_answers_by_mistake():
    # reuse at a=3, b=-2: out = a*b + a*a = -6 + 9 = 3. Frame 0 is the inputs, then forward frames, the seed, and
    # out's own `+` is the first _backward: it passes out.grad = 1 to (a*b) and (a*a) alike
    at, (code, secret) = lead({'expr': 'reuse'})
    at.button(key='ask_room').click().run()
    assert not at.exception
    question = ROOMS.state(code).question
    assert [item['label'] for item in question['asked']] == ['(a*b).grad', '(a*a).grad']
    assert not question['revealed'] and 'right' not in question['asked'][0]  # the phones are not told
    students = [ROOMS.join(code) for _ in range(4)]
    node = question['asked'][0]['node']
    for student, said in zip(students, ['1', '1.0001', '-1', 'abc']):
        try:
            ROOMS.answer(code, student, question['id'], {node: said})
        except RoomError:
            pass  # 'abc' is refused, and not counted
    at.run()
    shown = texts(at)
    assert any('3 of 4' in text for text in shown)  # answered, of those who follow
    assert any('2 right' in text and '1 sign slip' in text for text in shown)  # 1 and -1: out.grad = 1 passed back
    at.button(key='reveal_room').click().run()
    assert not at.exception
    assert ROOMS.state(code).question['revealed']
    shown = [text.replace('\\', '') for text in texts(at)]  # as read: Markdown's escapes dropped
    assert any('Right:** (a*b).grad = 1.0000, (a*a).grad = 1.0000' in text for text in shown)
    assert any('(a*b).grad += out.grad = 1.0000' in text for text in shown)  # the arithmetic: + passes it on
    at.button(key='close_question').click().run()
    assert ROOMS.state(code).question is None
    ROOMS.close(code, secret)


def downloads(at):
    """The download buttons' keys the page shows."""
    return sorted(element.key for element in at.get('download_button'))


def test_the_answers_to_take_home_are_offered_once_a_question_is_asked_and_after_the_class_ends():
    at, (code, secret) = lead({'expr': 'reuse'})
    assert downloads(at) == []  # nothing asked: nothing to take home
    at.button(key='ask_room').click().run()
    assert downloads(at) == [f'answers_csv:{code}', f'counts_csv:{code}']
    student = ROOMS.join(code)
    question = ROOMS.state(code).question
    ROOMS.answer(code, student, question['id'], {question['asked'][0]['node']: '1'})
    at.button(key='close_question').click().run()
    assert downloads(at) == [f'answers_csv:{code}', f'counts_csv:{code}']  # kept after the question closed
    at.button(key='end_class').click().run()
    assert not at.exception and LECTURER not in at.session_state
    assert downloads(at) == [f'answers_csv:{code}', f'counts_csv:{code}']  # the ended class's, beside Start a class
    (record,) = [at.session_state[ENDED][1]]
    assert [(q['id'], len(q['answers'])) for q in record] == [(1, 1)]


def test_a_class_lost_with_its_store_leaves_the_lecturers_page_able_to_start_another():
    at, (code, secret) = lead({'expr': 'reuse'})
    room = f'backprop:room:{code}'
    ROOMS.backend.store.run(lambda tx: tx.delete(room), (room,))  # as a Redis restarted with no files forgets it
    at.run()
    assert not at.exception and LECTURER not in at.session_state
    assert [w.value.replace('\\', '') for w in at.warning] == [lost_words(code)]  # as read: md()'s escapes dropped
    assert at.button(key='start_class') and not [b for b in at.button if b.key == 'end_class']
    at.button(key='start_class').click().run()  # a new class, with a new code
    new_code, _ = at.session_state[LECTURER]
    assert new_code != code and ROOMS.students(new_code) == 0


def test_ask_the_room_is_off_where_no_backward_step_is_left_to_ask():
    at, (code, secret) = lead({'expr': 'reuse', 'step': 'end'})
    ROOMS.step(code, secret, ROOMS.state(code).scenario, frame=99)  # the player posts its last frame
    at.run()
    assert at.button(key='ask_room').disabled
    ROOMS.close(code, secret)


def test_a_students_bodies_reach_the_projector_with_no_name_grouped_by_their_mistake():
    at, (code, secret) = lead({'expr': 'reuse', 'mode': 'code'})
    wrong = {'add': 'self.grad = out.grad\nother.grad = out.grad', 'mul': exercise.answer('mul'),
             'tanh': exercise.answer('tanh')}  # fmt: skip
    for student, bodies, verdict in [(ROOMS.join(code), wrong, 'assign'), (ROOMS.join(code), None, 'right')]:
        bodies = bodies or {name: exercise.answer(name) for name in exercise.OPS}
        ROOMS.send_bodies(code, student, bodies, verdict)
    at.run()
    shown = texts(at)
    assert any('2 bodies sent' in text and '1 right' in text for text in shown)
    assert not any(student in text for text in shown for student in ROOMS.sent_bodies(code, secret))  # no ids
    at.button(key='show_body:assign').click().run()
    assert not at.exception
    assert at.session_state['code_add'] == wrong['add']  # that body runs on the projector
    ROOMS.close(code, secret)


def test_a_student_sends_their_bodies_with_the_graders_verdict_in_a_word():
    lecturer = ROOMS.create({'expr': 'reuse', 'mode': 'code'})
    at = page({'class': lecturer.code})
    student = ROOMS.join(lecturer.code)
    assert 'send_bodies' not in [b.key for b in at.button]  # until the player says the id its browser keeps
    at.session_state['graph'] = {'student': student}  # what the player says (AppTest has no browser)
    at.session_state['code_add'] = 'self.grad = out.grad\nother.grad = out.grad'
    at.session_state['code_mul'], at.session_state['code_tanh'] = exercise.answer('mul'), exercise.answer('tanh')
    at.run()
    at.button(key='send_bodies').click().run()
    assert not at.exception
    (sent,) = ROOMS.sent_bodies(lecturer.code, lecturer.secret).values()
    assert sent['bodies']['add'] == 'self.grad = out.grad\nother.grad = out.grad'
    assert sent['verdict'] == 'assign'  # = where += belongs (diagnosis), and nothing else wrong
    at.button(key='send_bodies').click().run()  # sent again: it replaces the last
    assert len(ROOMS.sent_bodies(lecturer.code, lecturer.secret)) == 1
    ROOMS.close(lecturer.code, lecturer.secret)


def test_a_students_body_that_cannot_run_is_sent_as_typed_and_counted_as_waiting_not_as_a_pass():
    projector, (code, secret) = lead({'expr': 'reuse', 'mode': 'code'})
    at = page({'class': code})
    at.session_state['graph'] = {'student': ROOMS.join(code)}  # what the player says (AppTest has no browser)
    at.session_state['code_add'], at.session_state['code_tanh'] = exercise.answer('add'), exercise.answer('tanh')
    at.session_state['code_mul'] = 'self.grad += other.data * out.grad\nimport os'
    at.run()
    at.button(key='send_bodies').click().run()
    assert not at.exception
    (sent,) = ROOMS.sent_bodies(code, secret).values()
    assert sent['bodies']['mul'] == 'self.grad += other.data * out.grad\nimport os'  # as typed, not a `pass`
    assert sent['verdict'] == 'waits'  # the others are right: the grader waits for the ×
    projector.run()
    assert any('**1** · a body that cannot run yet' in text for text in texts(projector))
    projector.button(key='show_body:waits').click().run()
    assert not projector.exception
    assert projector.session_state['code_mul'] == sent['bodies']['mul']  # it runs on the projector, as nothing
    ROOMS.close(code, secret)


def test_a_question_ends_when_the_projector_shows_another_pass_whose_frames_are_not_its():
    at, (code, secret) = lead({'expr': 'reuse'})
    at.button(key='ask_room').click().run()
    assert ROOMS.state(code).question is not None
    at.session_state['forward'] = False  # the same graph without the forward frames: every frame number moves
    at.run()
    assert not at.exception
    assert ROOMS.state(code).question is None
    assert at.button(key='ask_room')  # asked again, of this pass
    ROOMS.close(code, secret)
