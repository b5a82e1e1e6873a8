"""Learning from a batch on the page (mode=batch), through AppTest: the graph is one point's pass at the parameters
after the steps taken; what its backward adds to each parameter's grad; the step on the mean; the data typed,
uploaded, or in a link, bad data named by its line and column with the last good data kept. Every expected number is
worked out by hand from the regression's formula, L = (w·x + b − y)², never read back from the engine."""

import json
from pathlib import Path

import pytest
import test_app
from streamlit.testing.v1 import AppTest
from test_forward_mode import lead as lecturer_page  # a lecturer's presentation view, its class started

import state
from components.batch import PLACE
from engine.batch import EXAMPLES, MAX_LINK, Dataset
from server.live import ROOMS, share_grads
from server.rooms import QuestionClosed

source, start = test_app.source, test_app.start
APP = str(Path(__file__).parents[2] / 'app.py')
POINTS = EXAMPLES['regression']  # the example's data, as the test's own reference for the hand-worked numbers


def link(page):
    values = {key: page.query_params[key] for key in page.query_params}
    return {key: value[0] if isinstance(value, list) else value for key, value in values.items()}


def grads_by_hand(w, b, points):
    """∂L/∂w and ∂L/∂b of each point: 2(w·x + b − y)·x and 2(w·x + b − y)."""
    return [(2 * (w * x + b - y) * x, 2 * (w * x + b - y)) for x, y in points]


def written(x, bracket=False):
    """x as the page's lines write it: 4 decimals, a true minus, and in brackets where it is negative and added."""
    text = f'{x:.4f}'.replace('-', '−')
    return f'({text})' if bracket and x < 0 else text


def codes(page):
    return [c.value for c in page.code]


def test_the_graph_is_the_chosen_points_pass_and_the_page_says_what_its_backward_adds(start):
    page = start(query={'expr': 'regression', 'mode': 'batch', 'point': '3'})
    x, y = POINTS[2]
    page.go(page.last_frame)
    assert (page.data()['x'], page.data()['y'], page.data()['w']) == (f'{x:.4f}', f'{y:.4f}', '0.5000')
    shares = grads_by_hand(0.5, 0.0, POINTS)
    before, added = sum(g for g, _ in shares[:2]), shares[2][0]
    assert page.grads()['w'] == f'{added:.4f}'
    line = next(line for line in codes(page)[0].splitlines() if line.startswith('w.grad'))
    assert line == (f'w.grad += {written(added)} from point 3: {written(before)} + {written(added, bracket=True)} = '
                    f'{written(before + added)}')  # fmt: skip
    boxes = [box.label for box in page.sidebar.number_input if box.key.startswith('input:')]
    assert boxes == ['w (start)', 'b (start)']  # x and y are the point's


def test_the_step_is_on_the_mean_grad_of_all_the_points(start):
    page = start(query={'expr': 'regression', 'mode': 'batch'})
    shares = grads_by_hand(0.5, 0.0, POINTS)
    n = len(POINTS)
    dw, db = sum(g for g, _ in shares) / n, sum(g for _, g in shares) / n
    step = codes(page)[1]
    assert f'w.grad /= {n}: {written(sum(g for g, _ in shares))} ÷ {n} = {written(dw)}' in step
    assert f'= {written(0.5 - 0.1 * dw)}' in step and f'= {written(-0.1 * db)}' in step
    page.button(key='learn_one').click().run()
    assert link(page)['learned'] == '1'
    page.go(0)
    assert (page.data()['w'], page.data()['b']) == (f'{0.5 - 0.1 * dw:.4f}', f'{-0.1 * db:.4f}')


def test_next_point_shows_the_next_points_graph_and_keeps_the_parameters(start):
    page = start(query={'expr': 'regression', 'mode': 'batch'})
    page.button[[b.label for b in page.button].index('Next point ▸')].click().run()
    assert link(page)['point'] == '2'
    page.go(0)
    assert page.data()['x'] == f'{POINTS[1][0]:.4f}'


def data_box(page):
    return page.text_area(key='data_text')


def use_data(page, text):
    data_box(page).set_value(text)
    page.button[[b.label for b in page.button].index('Use this data')].click().run()
    return page


def test_typed_data_is_used_and_the_link_carries_it(start):
    page = use_data(start(query={'expr': 'regression', 'mode': 'batch'}), '1, 3\n2, 5')
    assert not page.error
    assert link(page)['data'] == 'x,y\n1,3\n2,5'
    # w = 0.5, b = 0: errors −2.5 and −4; mean ∂w = (2·−2.5·1 + 2·−4·2)/2 = −10.5, so w → 0.5 + 1.05 = 1.55
    assert '= 1.5500' in codes(page)[1]
    opened = start(query={'expr': 'regression', 'mode': 'batch', 'data': 'x,y\n1,3\n2,5', 'point': '2'})
    opened.go(0)
    assert (opened.data()['x'], opened.data()['y']) == ('2.0000', '5.0000')


@pytest.mark.parametrize(
    ('text', 'said'),
    [
        ('1, 3\n2, abc', 'Line 2 (point 2), column y: “abc” is not a number.'),
        ('1, nan', 'column y: “nan” is not a finite number'),
        ('x, z\n1, 2', 'column “z” is not one of this example’s data (x, y)'),
        ('1, <script>alert(1)</script>', '“<script>alert(1)</script>” is not a number'),
    ],
)
def test_bad_data_is_named_and_the_last_good_data_is_kept(start, text, said):
    page = use_data(start(query={'expr': 'regression', 'mode': 'batch'}), text)
    (error,) = page.error
    shown = error.value.replace('\\', '')  # the page escapes every punctuation mark (components/markdown.md)
    assert said in shown and 'The page keeps the last good data.' in shown
    if '<' in text:  # printed, never rendered: the markup's marks are escaped
        assert '\\<script\\>' in error.value
    assert 'data' not in link(page)
    assert data_box(page).value == text  # kept in the box, to be put right
    page.go(0)
    assert page.data()['x'] == f'{POINTS[0][0]:.4f}'


def test_a_tampered_links_data_falls_back_to_the_example_with_a_toast(start):
    page = start(query={'expr': 'regression', 'mode': 'batch', 'data': 'x,y\n1,zzz'})
    assert not page.exception
    assert any('could not be read' in t.value and 'zzz' in t.value for t in page.toast)
    page.go(0)
    assert page.data()['x'] == f'{POINTS[0][0]:.4f}'


def test_a_dataset_too_long_for_a_link_stays_on_the_page_and_says_so(start):
    rows = '\n'.join(f'{k * 1.234567891:.9f}, {k / 7:.9f}' for k in range(200))
    assert len(Dataset(('x', 'y'), tuple((k * 1.234567891, k / 7) for k in range(200))).text()) > MAX_LINK
    page = use_data(start(query={'expr': 'regression', 'mode': 'batch'}), rows)
    assert not page.error
    text = page.session_state['data']
    assert link(page)['data'] == state.data_mark(text) and len(link(page)['data']) == 17  # its mark alone
    assert any('longer than a link holds' in c.value for c in page.at.caption)
    assert any('200 points' in e.label for e in page.expander)
    opened = start(query={'expr': 'regression', 'mode': 'batch', 'data': state.data_mark(text)})  # no class keeps it
    assert any('kept with a class this page does not follow' in t.value for t in opened.toast)
    opened.go(0)
    assert opened.data()['x'] == f'{POINTS[0][0]:.4f}'  # the example's


def test_a_graph_with_no_data_says_why_and_shows_its_pass(start):
    page = start(query={'expr': 'reuse', 'mode': 'batch'})
    assert any('Learning from a batch needs parameters' in i.value for i in page.info)


# --- learning together --------------------------------------------------------------------------------------------


def phone_page(code):
    """A phone that opened the join link, its player having told the page its id (AppTest has no browser)."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params['class'] = code
    at.session_state['graph'] = {'student': ROOMS.join(code)}
    return at.run()


def follow(at, code):
    """The phone follows the class's new scenario, as its player does: the class's link, opened again."""
    held = ROOMS.state(code)
    for key in list(at.query_params):
        del at.query_params[key]
    at.query_params.update({**held.scenario, 'class': code})
    return at.run()


def post_scenario(lecturer, code, secret):
    """The lecturer's player posts its page's scenario to the class, as it does at each frame."""
    scenario = {k: v for k, v in state.scenario(link(lecturer)).items() if k not in state.NOT_CLASS}
    ROOMS.step(code, secret, scenario, 0)


def shown_point(at):
    return at.session_state[PLACE][1] % len(POINTS)


def player_room(at):
    """What the page told the phone's player of the class (the head of its data)."""
    (player,) = [e for e in at.main if getattr(e, 'key', None) == 'graph']
    return json.loads(player.proto.bytes.split(b'\n', 1)[0])['room']


def send(at, code):
    """The player's *Send my grads*: the class's /grads route, with the phone's id and the scenario its link shows."""
    shown = {k: v for k, v in state.scenario(link(at)).items() if k not in state.NOT_CLASS}
    return share_grads(ROOMS, code, at.session_state['graph']['student'], shown)


def test_the_room_learns_together_each_phone_sends_its_points_grads_and_the_step_is_on_their_mean():
    lecturer, (code, secret) = lecturer_page({'expr': 'regression', 'mode': 'batch'})
    lecturer.button(key='learn_together').click().run()
    assert not lecturer.exception and link(lecturer)['together'] == '1'
    post_scenario(lecturer, code, secret)
    phones = [phone_page(code) for _ in range(3)]
    for phone in phones:
        assert not phone.exception
        phone.run()  # the page asks the room for its point, and shows its graph
    assert [shown_point(phone) for phone in phones] == [0, 1, 2]  # round-robin, in the order they asked
    third = phones[2]
    assert player_room(third)['together'] == {'point': 3, 'of': len(POINTS)}
    assert any(f'Your point: **3 of {len(POINTS)}**' in m.value for m in third.markdown)
    shares = grads_by_hand(0.5, 0.0, POINTS[:3])
    sent = [send(phone, code) for phone in phones[:2]]
    assert [s['point'] for s in sent] == [1, 2]
    assert sent[1]['grads'] == pytest.approx({'w': shares[1][0], 'b': shares[1][1]}, rel=1e-12)
    # the projector: 2 of 20 points in, each grad's sum over them worked by hand
    lecturer.run()
    said = ' '.join(c.value for c in lecturer.code)
    assert f'w.grad: Σ {written(shares[0][0] + shares[1][0])} over 2 of {len(POINTS)} points' in said
    assert any('2 of 20 points in' in m.value for m in lecturer.markdown)
    lecturer.button(key='class_step').click().run()
    dw = (shares[0][0] + shares[1][0]) / 2
    db = (shares[0][1] + shares[1][1]) / 2
    assert float(link(lecturer)['v.w']) == pytest.approx(0.5 - 0.1 * dw, rel=1e-12)
    assert float(link(lecturer)['v.b']) == pytest.approx(-0.1 * db, rel=1e-12)
    post_scenario(lecturer, code, secret)
    # a phone still showing the batch before the step is refused; once it follows the class, it is taken
    with pytest.raises(QuestionClosed, match='does not show the class’s batch'):
        send(third, code)
    follow(third, code)
    assert send(third, code)['point'] == 3
    assert ROOMS.reports(code, secret)[0].keys() == {2}
    ROOMS.close(code, secret)


def test_a_phones_grads_are_computed_from_the_classs_parameters_never_from_the_page():
    lecturer, (code, secret) = lecturer_page({'expr': 'regression', 'mode': 'batch'})
    lecturer.button(key='learn_together').click().run()
    post_scenario(lecturer, code, secret)
    phone = phone_page(code)
    phone.run()
    student = phone.session_state['graph']['student']
    scenario = ROOMS.state(code).scenario
    with pytest.raises(QuestionClosed):  # a scenario of other parameters is another batch
        share_grads(ROOMS, code, student, {**scenario, 'v.w': '100'})
    assert ROOMS.reports(code, secret) == ({}, 0)
    share_grads(ROOMS, code, student, {**scenario, 'hide': 'all'})  # a look of its own is the same batch
    (report,) = ROOMS.reports(code, secret)[0].values()
    (shares,) = grads_by_hand(0.5, 0.0, [POINTS[0]])
    assert report['grads'] == {'w': pytest.approx(shares[0], rel=1e-12), 'b': pytest.approx(shares[1], rel=1e-12)}
    ROOMS.close(code, secret)


def test_a_dataset_too_long_for_a_link_is_kept_with_the_class_and_every_phone_learns_from_it():
    rows = [(k * 1.234567891 - 100, k / 7 - 10) for k in range(200)]
    text = 'x,y\n' + '\n'.join(f'{x!r},{y!r}' for x, y in rows)
    lecturer, (code, secret) = lecturer_page({'expr': 'regression', 'mode': 'batch'})
    lecturer.session_state['data'] = text  # the lecturer's page took it in the data box before the class
    lecturer.run()
    lecturer.button(key='learn_together').click().run()
    assert not lecturer.exception and ROOMS.data(code) == text
    post_scenario(lecturer, code, secret)
    assert ROOMS.state(code).scenario['data'].startswith('@')
    phone = phone_page(code)
    phone.run()
    seen = test_app.Page(phone, 'dot').go(0)  # the player's data, as the phone shows it
    assert (seen.data()['x'], seen.data()['y']) == (f'{rows[0][0]:.4f}', f'{rows[0][1]:.4f}')
    assert player_room(phone)['together'] == {'point': 1, 'of': 200}
    share = send(phone, code)
    x, y = rows[0]
    assert share['grads']['w'] == pytest.approx(2 * (0.5 * x - y) * x, rel=1e-12)
    ROOMS.close(code, secret)


def test_the_class_step_is_taken_once_from_the_parameters_the_shares_were_computed_at():
    lecturer, (code, secret) = lecturer_page({'expr': 'regression', 'mode': 'batch'})
    lecturer.button(key='learn_together').click().run()
    post_scenario(lecturer, code, secret)
    phone = phone_page(code)
    phone.run()
    send(phone, code)
    lecturer.session_state['learned'] = 10  # steps of the page's own since (its sidebar): the class's are not those
    lecturer.run()
    lecturer.button(key='class_step').click().run()
    ((dw, db),) = grads_by_hand(0.5, 0.0, POINTS[:1])
    assert float(link(lecturer)['v.w']) == pytest.approx(0.5 - 0.1 * dw, rel=1e-12)
    assert 'learned' not in link(lecturer)  # the class's parameters are the page's inputs, with no steps on top
    assert lecturer.button(key='class_step').disabled  # a second click waits for the class to have the first
    post_scenario(lecturer, code, secret)
    lecturer.run()
    assert lecturer.button(key='class_step').disabled  # and a new batch has no shares yet
    ROOMS.close(code, secret)


def test_a_class_ended_takes_learning_together_with_it_and_a_question_left_open_is_closed():
    lecturer, (code, secret) = lecturer_page({'expr': 'regression', 'mode': 'batch'})
    ROOMS.ask(code, secret, frame=3, asked=[{'node': 'w', 'label': 'w.grad', 'candidates': [['right', 1.0]]}])
    lecturer.run()
    assert ROOMS.state(code).question is None  # a batch asks no question: one left open is closed
    lecturer.button(key='learn_together').click().run()
    lecturer.button(key='end_class').click().run()
    assert 'together' not in link(lecturer)
    lecturer.button(key='start_class').click().run()
    assert lecturer.button(key='learn_together')  # the new class learns together once asked


def test_a_graph_the_batch_does_not_apply_to_keeps_its_input_boxes(start):
    page = start(query={'expr': 'neuron', 'mode': 'batch'})
    boxes = {box.label for box in page.sidebar.number_input if box.key.startswith('input:')}
    assert boxes == {'x1', 'w1', 'x2', 'w2', 'b'}  # the neuron has no data to learn from: every input its box
