"""The page's state and its link form: a link round-trips, and an untrusted link never breaks the page."""

import dataclasses
import math
from dataclasses import replace
from urllib.parse import parse_qsl, urlencode

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import state
from engine import batch, exercise, local_grads
from engine.forms import FORMS
from engine.frames import HIDE, clamp_frame
from engine.learn import LEARNING_RATES, MAX_STEPS
from engine.sandbox import INPUTS
from state import MAX_CHAIN, MAX_INPUTS, SPEEDS, PageState, from_query, from_session, to_query, to_session

DEFAULT = PageState()
KNOWN_KEYS = (*state.LINKS, *state.STREAMLITS_OWN)  # every key a link may carry, from the link table
MAX_FORMULA = state.MAX_LENGTH

# --- strategies ------------------------------------------------------------------------------------

text = st.text(st.characters(blacklist_categories=('Cs',)))  # no lone surrogates: a URL cannot carry them
names = st.from_regex(r'[A-Za-z][A-Za-z0-9_]{0,23}', fullmatch=True)
numbers = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)


def bodies(name):
    """Bodies a link may carry for the exercise's method `name`: any the whitelist runs, newlines and all."""
    right = exercise.answer(name)
    return st.sampled_from([exercise.TODO, right, right.replace('+=', '='), f'# mine\n{right}\n', 'pass'])


def tuples(name):
    """microgpt's local_grads a link may carry for the exercise's method `name`: any the whitelist runs."""
    right = local_grads.answer(name)
    zeros = local_grads.tuple_text(['0'] * len(INPUTS[exercise.OPS[name]]))
    return st.sampled_from([local_grads.TODO, right, '()', f'# mine\n{right}\n', zeros])


FIELDS = {  # a strategy per field of PageState, each over every value a link may set it to
    'expr': st.sampled_from(state.EXPRESSIONS),
    'formula': st.text(st.characters(blacklist_categories=('Cs',)), min_size=1, max_size=MAX_FORMULA),
    'chain_length': st.integers(1, MAX_CHAIN),
    'inputs': st.dictionaries(names, numbers, max_size=MAX_INPUTS),
    'frame': st.integers(0, 10**6),
    'forward': st.booleans(),
    'answers': st.booleans(),
    'leaves': st.booleans(),
    'speed': st.sampled_from(SPEEDS),
    'present': st.booleans(),
    'table': st.booleans(),
    'contrast': st.booleans(),
    'hide': st.sampled_from(HIDE),
    'mode': st.sampled_from(state.MODES),
    'lr': st.sampled_from(LEARNING_RATES),
    'learned': st.integers(0, MAX_STEPS),
    'point': st.integers(1, batch.MAX_POINTS),
    'data': st.sampled_from(['', 'x,y\n1,2\n3,4', 'x1,x2,target\n1,2,1']) | st.text(max_size=200),
    'together': st.booleans(),
    'room': st.text(st.characters(blacklist_categories=('Cs',)), max_size=32),  # a class's code as typed (or none)
    'form': st.sampled_from(tuple(FORMS)),
    'wrt': st.sampled_from(['', 'x1', 'a', 'w']) | st.text(st.characters(blacklist_categories=('Cs',)), max_size=24),
    **{f'code_{name}': bodies(name) for name in exercise.OPS},
    **{f'grads_{name}': tuples(name) for name in exercise.OPS},
}
page_states = st.builds(PageState, **FIELDS)


def test_the_page_states_strategy_covers_every_field_of_the_page():
    assert set(FIELDS) == {f.name for f in dataclasses.fields(PageState)}  # a new field needs its strategy here


nasty_values = st.sampled_from(
    ['', 'nan', 'NaN', 'inf', '-inf', '1e999', '-1', '0', '1', '2', '10', '1e6', '1e7', '0.5', '3.5', ' 4 ',
     '../../etc', 'custom', 'chain', 'neuron', '9' * 5000, 'x' * 10_000, '\x00', 'True']
)  # fmt: skip
nasty_keys = st.sampled_from(
    [*KNOWN_KEYS, 'v.a', 'v.b', 'v.x1', 'v.__class__', 'v._a', 'v.', 'v.1a', 'v.a-b', 'v.' + 'a' * 25, 'v.step',
     'v.ª', 'V.a', 'foo', '[x](https://example.com)']
)  # fmt: skip
queries = st.dictionaries(nasty_keys | text, nasty_values | text, max_size=12)


def expected_after_link(s):
    """What a link can carry: the formula only for a typed formula, the length only for the chain."""
    return replace(
        s,
        formula=s.formula if s.expr == state.CUSTOM else DEFAULT.formula,
        chain_length=s.chain_length if s.expr == 'chain' else DEFAULT.chain_length,
        form=s.form if s.mode == 'code' else DEFAULT.form,
        wrt=s.wrt if s.mode == 'forward' else DEFAULT.wrt,  # forward mode's input: which one the graph checks
        point=s.point if s.mode == 'batch' else DEFAULT.point,  # a batch's: the point shown, its data, a class's
        data=s.data if s.mode == 'batch' else DEFAULT.data,
        together=s.together if s.mode == 'batch' else DEFAULT.together,
        **{f'code_{n}': getattr(s if (s.mode, s.form) == ('code', 'bodies') else DEFAULT, f'code_{n}')
           for n in exercise.OPS},
        **{f'grads_{n}': getattr(s if (s.mode, s.form) == ('code', 'local_grads') else DEFAULT, f'grads_{n}')
           for n in exercise.OPS},
    )  # fmt: skip


# --- round trips -----------------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(page_states)
def test_query_round_trip_keeps_everything_a_link_carries(s):
    query = to_query(s)
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in query.items())
    back, ignored = from_query(query)
    assert ignored == []
    assert back == expected_after_link(s)


@settings(max_examples=100, deadline=None)
@given(page_states)
def test_query_round_trip_survives_url_encoding(s):
    url_query = dict(parse_qsl(urlencode(to_query(s)), keep_blank_values=True))
    back, ignored = from_query(url_query)
    assert ignored == []
    assert back == expected_after_link(s)


@settings(max_examples=100, deadline=None)
@given(page_states)
def test_session_round_trip(s):
    assert from_session(to_session(s), list(s.inputs)) == s


def test_session_reads_only_the_current_expressions_inputs():
    session = to_session(PageState(expr='reuse', inputs={'a': 2.0}))
    session[state.input_key('neuron', 'b')] = 99.0
    back = from_session(session, ['a', 'b'])
    assert back.inputs == {'a': 2.0}


def test_session_keys_are_per_expression():
    assert state.input_key('neuron', 'b') != state.input_key('reuse', 'b')
    entries = to_session(PageState(expr='lecture', inputs={'a': 3.0}))
    assert entries[state.input_key('lecture', 'a')] == 3.0
    assert entries['expr'] == 'lecture'


def test_default_page_link_is_short():
    query = to_query(PageState())
    assert query['expr'] == 'neuron'
    assert 'forward' not in query and 'speed' not in query and 'formula' not in query and 'n' not in query


def test_non_default_settings_appear_in_the_link():
    query = to_query(PageState(expr='chain', chain_length=3, forward=False, speed=0.5, frame=4))
    assert from_query(query) == (PageState(expr='chain', chain_length=3, forward=False, speed=0.5, frame=4), [])
    assert {'n', 'forward', 'speed', 'step'} <= set(query)


# --- untrusted links ---------------------------------------------------------------------------------


def check_valid(s):
    assert s.expr in state.EXPRESSIONS
    assert isinstance(s.formula, str) and 0 < len(s.formula) <= MAX_FORMULA
    assert isinstance(s.chain_length, int) and 1 <= s.chain_length <= MAX_CHAIN
    assert isinstance(s.frame, int) and 0 <= s.frame <= 10**6
    assert s.forward in (True, False)
    assert s.speed in SPEEDS
    assert len(s.inputs) <= MAX_INPUTS
    for name, value in s.inputs.items():
        assert name.isidentifier() and not name.startswith('_') and len(name) <= 24
        assert isinstance(value, float) and math.isfinite(value) and abs(value) <= 1e6


@settings(max_examples=400, deadline=None)
@given(queries)
def test_from_query_never_raises_and_always_gives_a_valid_state(query):
    s, ignored = from_query(query)
    check_valid(s)
    assert len(ignored) == len(set(ignored))
    assert set(ignored) <= set(query)


@settings(max_examples=400, deadline=None)
@given(queries)
def test_from_query_uses_exactly_the_parameters_it_does_not_ignore(query):
    s, ignored = from_query(query)
    used = {key for key in query if key not in ignored}
    assert used <= set(KNOWN_KEYS) | {key for key in query if key.startswith('v.')}
    fields = {'expr': 'expr', 'formula': 'formula', 'n': 'chain_length', 'step': 'frame', 'speed': 'speed'}
    for key, field in fields.items():
        if key in used:
            assert str(getattr(s, field)) == str(type(getattr(DEFAULT, field))(query[key]))
        else:
            assert getattr(s, field) == getattr(DEFAULT, field)
    assert s.forward == (query['forward'] == '1' if 'forward' in used else DEFAULT.forward)
    assert s.answers == (query['answers'] == '1' if 'answers' in used else DEFAULT.answers)
    assert s.leaves == (query['leaves'] == '1' if 'leaves' in used else DEFAULT.leaves)
    assert s.inputs == {key[2:]: min(max(float(query[key]), -1e6), 1e6) for key in used if key.startswith('v.')}


BAD = [
    ({'expr': '../../etc'}, 'expr'),
    ({'expr': 'NEURON'}, 'expr'),
    ({'expr': ''}, 'expr'),
    ({'step': '-1'}, 'frame'),
    ({'step': 'abc'}, 'frame'),
    ({'step': '1.5'}, 'frame'),
    ({'step': '1000001'}, 'frame'),
    ({'step': '9' * 5000}, 'frame'),
    ({'speed': '1e999'}, 'speed'),
    ({'speed': 'nan'}, 'speed'),
    ({'speed': '3'}, 'speed'),
    ({'speed': '-2'}, 'speed'),
    ({'n': '0'}, 'chain_length'),
    ({'n': '501'}, 'chain_length'),
    ({'n': '2.5'}, 'chain_length'),
    ({'forward': 'yes'}, 'forward'),
    ({'forward': ''}, 'forward'),
    ({'formula': ''}, 'formula'),
    ({'formula': 'a+' * 5000}, 'formula'),
]


@pytest.mark.parametrize(('query', 'field'), BAD)
def test_a_bad_value_falls_back_to_the_default_and_is_listed(query, field):
    s, ignored = from_query(query)
    assert getattr(s, field) == getattr(DEFAULT, field)
    assert ignored == list(query)
    check_valid(s)


@pytest.mark.parametrize('value', ['nan', 'NaN', 'abc', '', '1,5'])
def test_an_input_value_that_is_no_number_is_ignored(value):
    s, ignored = from_query({'v.a': value, 'v.b': '2'})
    assert s.inputs == {'b': 2.0}
    assert ignored == ['v.a']
    assert state.clamped_inputs({'v.a': value, 'v.b': '2'}, s.inputs) == []


@pytest.mark.parametrize(
    ('value', 'kept'), [('inf', 1e6), ('-inf', -1e6), ('1e999', 1e6), ('1e7', 1e6), ('-1000001', -1e6)]
)
def test_an_input_value_past_the_limit_is_clamped_to_the_nearer_bound_and_named(value, kept):
    query = {'v.a': value, 'v.b': '2'}
    s, ignored = from_query(query)
    assert s.inputs == {'a': kept, 'b': 2.0} and ignored == []
    assert state.clamped_inputs(query, s.inputs) == ['a']
    assert state.follow_link({}, query).clamped == ['a']  # the page says so, in a toast


@pytest.mark.parametrize('key', ['v.__class__', 'v._a', 'v.', 'v.1a', 'v.a-b', 'v.a.b', 'v.' + 'a' * 25])
def test_a_bad_input_name_is_ignored(key):
    s, ignored = from_query({key: '1', 'v.ok': '2'})
    assert s.inputs == {'ok': 2.0}
    assert ignored == [key]


def test_unknown_parameters_are_listed_but_streamlits_own_are_not():
    s, ignored = from_query({'foo': 'bar', 'embed': 'true', 'embed_options': 'light_theme'})
    assert s == DEFAULT
    assert ignored == ['foo']


def test_too_many_inputs_keeps_the_first_ones():
    query = {f'v.x{i}': str(i) for i in range(MAX_INPUTS + 3)}
    s, ignored = from_query(query)
    assert s.inputs == {f'x{i}': float(i) for i in range(MAX_INPUTS)}
    assert ignored == [f'v.x{i}' for i in range(MAX_INPUTS, MAX_INPUTS + 3)]


def test_an_input_may_be_named_like_a_page_parameter():
    s, ignored = from_query({'v.step': '3', 'step': '2'})
    assert (s.inputs, s.frame, ignored) == ({'step': 3.0}, 2, [])


def test_a_good_link_is_read_in_full():
    query = {'expr': 'lecture', 'v.a': '3', 'step': '5', 'forward': '0', 'speed': '0.5'}
    s, ignored = from_query(query)
    assert ignored == []
    assert s == PageState(expr='lecture', inputs={'a': 3.0}, frame=5, forward=False, speed=0.5)


# --- following a link, sharing a frame -------------------------------------------------------------


def test_following_a_link_sets_the_page_and_says_where_the_player_goes_writing_only_its_own_keys():
    session = {}
    opened = state.follow_link(session, {'expr': 'reuse', 'step': '3', 'v.a': '2', 'foo': 'x'})
    assert opened == state.Opened(frame=3, first=True, ignored=['foo'])
    assert session['expr'] == 'reuse' and session['frame'] == 3 and session[state.input_key('reuse', 'a')] == 2.0
    page_fields = {f.name for f in dataclasses.fields(PageState)} - {'inputs'}
    own = page_fields | {state.input_key('reuse', 'a'), state.LINK_IN_BROWSER, state.LINK_OF_PAGE, state.LINKS_BEHIND}
    assert set(session) == own  # the player's goto is the player's to write (components.player.go_to)


def test_a_link_the_page_already_shows_is_not_followed_again_and_another_one_is_not_a_first_run():
    session = {}
    state.follow_link(session, {'expr': 'reuse', 'step': '3'})
    assert state.follow_link(session, {'expr': 'reuse', 'step': '5'}) is None  # only the frame moved: the player's
    assert state.follow_link(session, {'expr': 'lecture', 'step': 'end'}) == state.Opened(state.END, False, [])


def test_the_run_that_follows_a_link_writes_none_and_the_next_writes_what_the_visitor_changed():
    session = {}
    state.follow_link(session, {'expr': 'regression', 'mode': 'learn', 'step': '3'})
    names = ['x', 'w', 'y', 'b']
    assert state.link_to_write(session, names, followed=True) is None  # the address bar holds it already
    assert state.link_to_write(session, names, followed=False) is None  # nothing changed
    session['learned'] = 1
    assert state.link_to_write(session, names, followed=False)['learned'] == '1'


def test_a_click_that_cuts_short_the_run_that_followed_a_link_is_still_written():
    session = {}  # the first run followed the link, then stopped for the click before it reached the link
    state.follow_link(session, {'expr': 'regression', 'mode': 'learn'})
    session['learned'] = 1  # the click's callback, before the next run
    link = state.link_to_write(session, ['x', 'w', 'y', 'b'], followed=False)
    assert link is not None and link['learned'] == '1' and link['mode'] == 'learn'


def test_a_late_run_carrying_the_link_from_before_the_page_wrote_its_own_does_not_undo_the_visitors_change():
    # the page writes a link at the end of a run; the browser applies it when that run's messages arrive, so a click
    # made meanwhile reruns the script with the address bar as it was: that is not the visitor going Back
    session = {}
    state.follow_link(session, {'expr': 'reuse'})
    session['expr'] = state.CUSTOM  # run 1: the visitor chose to type a formula; the page writes its link
    written = state.link_to_write(session, ['a', 'b'], followed=False)
    session['formula'] = 'tanh(x*y + z)'  # run 2, started before the browser applied run 1's link
    assert state.follow_link(session, {'expr': 'reuse'}, navigated=False) is None
    assert session['formula'] == 'tanh(x*y + z)' and session['expr'] == state.CUSTOM
    assert state.link_to_write(session, ['x', 'y', 'z'], followed=False)['formula'] == 'tanh(x*y + z)'
    assert state.follow_link(session, {**written, 'step': '2'}, navigated=False) is None  # run 1's, late too


@pytest.mark.parametrize('shown_first', [True, False])
def test_going_back_to_the_link_before_the_pages_own_is_followed(shown_first):
    session = {}
    state.follow_link(session, {'expr': 'reuse'})
    session['expr'] = 'chain'
    written = state.link_to_write(session, ['a', 'b'], followed=False)
    if shown_first:  # a run in between carried the page's link, or none did: Back is followed either way
        assert state.follow_link(session, written, navigated=False) is None
    assert state.follow_link(session, {'expr': 'reuse'}, navigated=True) == state.Opened(0, False, [])
    assert session['expr'] == 'reuse'


def test_a_link_from_before_is_followed_once_the_browser_has_shown_the_pages_own():
    session = {}  # then only a Back can have brought the old link into the address bar
    state.follow_link(session, {'expr': 'reuse'})
    session['expr'] = 'chain'
    written = state.link_to_write(session, ['a', 'b'], followed=False)
    state.follow_link(session, written, navigated=False)
    assert state.follow_link(session, {'expr': 'reuse'}, navigated=False) == state.Opened(0, False, [])


@pytest.mark.parametrize(
    ('value', 'shared'), [(0, 0), (3, 3), (8, 8), (9, state.END), (50, state.END), (-4, 0), ('3', None), (2.0, None)]
)
def test_a_share_request_is_a_frame_within_the_frames_and_the_last_one_is_end(value, shared):
    assert state.frame_to_share(value, 10) == shared  # frames 0..9; the browser may send anything


@pytest.mark.parametrize(
    ('k', 'n_frames', 'kept'), [(0, 10, 0), (9, 10, 9), (10, 10, 9), (state.END, 3, 2), (-1, 10, 0)]
)
def test_a_frame_is_kept_within_the_frames_there_are(k, n_frames, kept):
    assert clamp_frame(k, n_frames) == kept


@pytest.mark.parametrize(
    ('answers', 'hide', 'shown'),
    [(True, 'none', True), (False, 'none', False), (True, 'new', False), (True, 'all', False)],
)
def test_the_final_grads_show_only_when_asked_and_no_grad_is_hidden(answers, hide, shown):
    assert PageState(answers=answers, hide=hide).final_grads_shown is shown


def test_the_answers_are_hidden_by_default_and_an_old_link_that_asks_for_them_still_shows_them():
    assert DEFAULT.answers is False and 'answers' not in to_query(DEFAULT)  # the default link says nothing of them
    assert from_query({'expr': 'reuse', 'answers': '1'}) == (PageState(expr='reuse', answers=True), [])
    assert from_query({'expr': 'reuse', 'answers': '0'}) == (PageState(expr='reuse', answers=False), [])
    assert to_query(PageState(answers=True))['answers'] == '1'


def test_the_leaves_frames_are_shown_by_default_and_a_link_can_skip_them():
    assert DEFAULT.leaves is True and 'leaves' not in to_query(DEFAULT)  # micrograd calls every _backward
    query = to_query(PageState(leaves=False))
    assert query['leaves'] == '0'
    assert from_query(query) == (PageState(leaves=False), [])
    assert from_query({'leaves': 'no'}) == (PageState(), ['leaves'])


# --- the teaching modes (issue 12): the mode, the learning rate and the steps learned are part of the link -------


def test_a_link_carries_the_mode_the_learning_rate_and_the_steps_learned():
    page = PageState(expr='regression', mode='learn', lr=0.3, learned=12)
    assert {k: v for k, v in to_query(page).items() if k in ('mode', 'lr', 'learned')} == {
        'mode': 'learn', 'lr': '0.3', 'learned': '12'}  # fmt: skip
    assert from_query(to_query(page)) == (page, [])
    assert not {'mode', 'lr', 'learned'} & set(to_query(PageState()))  # the defaults say nothing


@pytest.mark.parametrize(
    ('key', 'text'),
    [('mode', 'evil'), ('mode', ''), ('lr', '0.5'), ('lr', 'nan'), ('lr', '1e9'), ('learned', '-1'),
     ('learned', '501'), ('learned', '1.5'), ('learned', '9' * 400)],
)  # fmt: skip
def test_a_tampered_mode_rate_or_step_count_falls_back_to_its_default(key, text):
    assert from_query({'expr': 'reuse', key: text}) == (PageState(expr='reuse'), [key])


# --- a page that reconnects (a server restart, a failover): the click that made its first run is kept ---


def test_a_reconnecting_pages_first_run_keeps_what_the_browser_sent_over_the_link():
    session = {}
    sent = {
        'answers': True,
        'input:reuse:a': 5.0,
        'chain_length': 12.0,
        'formula': 'a*b',
        'expr': 'reuse (the exercise)',
    }
    state.follow_link(session, {'expr': 'reuse', 'v.a': '3.0', 'v.b': '-2.0'}, sent=sent)
    assert session['answers'] is True and session['input:reuse:a'] == 5.0  # the click, and a typed value
    assert session['input:reuse:b'] == -2.0  # not sent: the link's
    assert session['chain_length'] == 12 and type(session['chain_length']) is int  # a number box sends floats
    assert session['formula'] == 'a*b'
    assert session['expr'] == 'reuse'  # a choice comes as its label, which is no expression: the link's stands


def test_what_a_reconnecting_page_sent_is_checked_as_a_link_is():
    session = {}
    sent = {'input:reuse:a': math.nan, 'input:reuse:b': 1e9, 'chain_length': 2.5, 'speed': 3.0, 'answers': 1.0}
    state.follow_link(session, {'expr': 'reuse', 'v.a': '3.0', 'v.b': '-2.0'}, sent=sent)
    assert (session['input:reuse:a'], session['input:reuse:b']) == (3.0, -2.0)
    assert (session['chain_length'], session['speed'], session['answers']) == (10, 2.0, False)


def test_only_a_first_run_takes_what_the_browser_sent():
    session = {}
    state.follow_link(session, {'expr': 'reuse'})
    session[state.LINK_IN_BROWSER] = None  # the browser went Back to another link: followed, and nothing else kept
    state.follow_link(session, {'expr': 'neuron'}, sent={'answers': True})
    assert session['expr'] == 'neuron' and session['answers'] is False


# --- microgpt's form in code mode (issue 31, item 5): the form and its tuples are part of the link ---


def test_a_link_carries_microgpts_form_and_its_tuples_round_trip():
    grads = {'add': '(1, 1)', 'mul': '(self.data, other.data)', 'tanh': '(t,)'}
    page = PageState(expr='reuse', mode='code', form='local_grads', **{f'grads_{n}': t for n, t in grads.items()})
    query = to_query(page)
    assert query['form'] == 'local_grads'
    assert {k: v for k, v in query.items() if k.startswith('grads.')} == {f'grads.{n}': t for n, t in grads.items()}
    assert not any(k.startswith('code.') for k in query)  # the bodies are the other form's: not in this link
    assert from_query(query) == (page, [])
    assert dict(parse_qsl(urlencode(query))) == query  # through the address bar too
    assert page.bodies == grads
    # the seed's form says nothing of a form, and carries its bodies as before
    bodies = to_query(PageState(expr='reuse', mode='code'))
    assert 'form' not in bodies and 'code.add' in bodies and not any(k.startswith('grads.') for k in bodies)
    assert 'form' not in to_query(PageState(form='local_grads'))  # outside code mode the form is not the page's


@pytest.mark.parametrize(
    ('key', 'text'), [('form', 'evil'), ('form', ''), ('form', 'BODIES'), ('grads.tanh', '(1,)' + ' ' * 500)]
)  # fmt: skip
def test_a_tampered_form_or_a_tuple_past_the_limit_falls_back_to_its_default_and_is_named(key, text):
    query = {'expr': 'reuse', 'mode': 'code', 'form': 'local_grads', key: text}
    s, ignored = from_query(query)
    assert ignored == [key]
    expected = PageState(expr='reuse', mode='code', form='bodies' if key == 'form' else 'local_grads')
    assert s == expected
    assert s.bodies == ({n: exercise.TODO for n in exercise.OPS} if key == 'form' else
                        {n: local_grads.TODO for n in exercise.OPS})  # fmt: skip


@pytest.mark.parametrize(
    ('key', 'text'),
    [('grads.mul', 'import os'), ('grads.mul', '(other.data)'), ('grads.add', '(1, 1, 1)'),
     ('grads.tanh', '(t.__class__,)'), ('grads.add', '(1, out._backward)'), ('code.mul', 'import os'),
     ('code.tanh', ''), ('code.add', 'self.grad += abs(out.grad)')],
)  # fmt: skip
def test_a_text_the_sandbox_refuses_is_kept_as_written_for_the_page_to_show_with_its_error(key, text):
    # the page's own link carries what a student typed, a text that cannot run yet too: opening it shows the same
    form = 'local_grads' if key.startswith('grads.') else 'bodies'
    query = {'expr': 'reuse', 'mode': 'code', 'form': form, key: text}
    s, ignored = from_query(query)
    assert ignored == []
    assert s.bodies[key.split('.')[1]] == text
    assert to_query(s)[key] == text  # and the page's link writes it back the same
