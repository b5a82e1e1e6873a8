"""The page's state in one place: its fields, their defaults, and their form in a link.

Streamlit keeps the live values in st.session_state under the keys below; this module turns them
into a PageState and back, and a PageState into query parameters and back. A link is untrusted:
from_query keeps what it can read and falls back to the default for the rest.
"""

import math
from dataclasses import dataclass, field, fields

from engine import MAX_LENGTH, PRESETS

CUSTOM = 'custom'
EXPRESSIONS = (*PRESETS, CUSTOM)
MAX_CHAIN = 500
SPEEDS = (0.5, 1.0, 2.0, 4.0, 10.0)  # steps per second
MAX_INPUTS = 64
INPUT_PREFIX = 'v.'  # inputs in a link: ?v.x1=2, so that a variable may be called "step"
END = 10**6  # step=end in a link: the last frame, whatever the number of frames
NOT_SCENARIO = ('step', 'embed', 'embed_options')  # in the address bar, but not what the page shows


@dataclass
class PageState:
    expr: str = 'neuron'  # a key of PRESETS, or CUSTOM for a typed formula
    formula: str = 'tanh(x1*w1 + x2*w2 + b)'
    chain_length: int = 10
    inputs: dict = field(default_factory=dict)  # input name -> value; a missing one takes the expression's default
    frame: int = 0
    forward: bool = True  # step through the forward pass too
    answers: bool = True  # the node table shows each final grad from the start
    speed: float = 2.0


def keep_widget_values(session):
    """Streamlit drops the value of a widget that a run does not draw (the formula box while a preset is shown).

    Setting each value again through session state keeps it for when the widget comes back.
    """
    names = {f.name for f in fields(PageState)}
    for key in list(session.keys()):
        if key in names or str(key).startswith('input:'):
            session[key] = session[key]


def forget_other_formulas(session, names):
    """Drop the boxes of typed formulas other than the one shown: a visitor who types 300 formulas would otherwise
    keep every box they ever made, and each run would re-set them all (80 ms a run became 620 ms)."""
    keep = {input_key(CUSTOM, name) for name in names}
    for key in [k for k in session.keys() if str(k).startswith(input_key(CUSTOM, '')) and k not in keep]:
        del session[key]


def input_key(expr, name):
    """The session-state key of one input's number box: each expression keeps its own values."""
    return f'input:{expr}:{name}'


def to_session(state):
    """The session-state entries that set the page's widgets to `state`."""
    entries = {f.name: getattr(state, f.name) for f in fields(state) if f.name != 'inputs'}
    entries.update({input_key(state.expr, name): value for name, value in state.inputs.items()})
    return entries


def from_session(session, input_names):
    values = {f.name: session[f.name] for f in fields(PageState) if f.name != 'inputs' and f.name in session}
    expr = values.get('expr', PageState.expr)
    inputs = {name: session[input_key(expr, name)] for name in input_names if input_key(expr, name) in session}
    return PageState(**values, inputs=inputs)


def to_query(state):
    """The query parameters of a link to `state`: only what differs from the defaults, and all inputs."""
    default = PageState()
    query = {'expr': state.expr}
    if state.expr == CUSTOM:
        query['formula'] = state.formula
    if state.expr == 'chain':
        query['n'] = str(state.chain_length)
    query.update({INPUT_PREFIX + name: f'{value!r}' for name, value in state.inputs.items()})
    query['step'] = 'end' if state.frame >= END else str(state.frame)
    for flag in ('forward', 'answers'):
        if getattr(state, flag) != getattr(default, flag):
            query[flag] = '1' if getattr(state, flag) else '0'
    if state.speed != default.speed:
        query['speed'] = f'{state.speed:g}'
    return query


def from_query(query):
    """(PageState, names of the parameters that were ignored). Never raises, whatever the link holds."""
    state, ignored = PageState(), []

    def read(key, parse, valid):
        if key not in query:
            return None
        try:
            value = parse(query[key])
        except (ValueError, TypeError, OverflowError):
            value = None
        if value is None or not valid(value):
            ignored.append(key)
            return None
        return value

    expr = read('expr', str, lambda v: v in EXPRESSIONS)
    formula = read('formula', str, lambda v: 0 < len(v) <= MAX_LENGTH)
    n = read('n', int, lambda v: 1 <= v <= MAX_CHAIN)
    step = read('step', lambda v: END if v == 'end' else int(v), lambda v: 0 <= v <= END)
    flags = {flag: read(flag, str, lambda v: v in ('0', '1')) for flag in ('forward', 'answers')}
    speed = read('speed', float, lambda v: v in SPEEDS)
    for key, value in (('expr', expr), ('formula', formula), ('chain_length', n), ('frame', step), ('speed', speed)):
        if value is not None:
            setattr(state, key, value)
    for flag, value in flags.items():
        if value is not None:
            setattr(state, flag, value == '1')
    for key in query:
        if key.startswith(INPUT_PREFIX):
            name = key[len(INPUT_PREFIX) :]
            if (
                not (name.isidentifier() and not name.startswith('_') and len(name) <= 24)
                or len(state.inputs) >= MAX_INPUTS
            ):
                ignored.append(key)
                continue
            value = read(key, float, lambda v: math.isfinite(v) and abs(v) <= 1e6)
            if value is not None:
                state.inputs[name] = value
        elif key not in ('expr', 'formula', 'n', 'step', 'forward', 'answers', 'speed', 'embed', 'embed_options'):
            ignored.append(key)
    return state, ignored


def frame_to_share(value, n_frames):
    """The frame a share request names, within 0..n_frames - 1, or None when it is not a frame number (the request
    comes from the browser, so it may be anything); the last frame is END, so that its link says step=end."""
    if type(value) is not int:
        return None
    k = max(0, min(value, n_frames - 1))
    return END if k == n_frames - 1 else k


def scenario(query):
    """What of a link decides the picture, apart from the frame: two links with the same scenario show the same."""
    return {key: value for key, value in query.items() if key not in NOT_SCENARIO}


def follow_link(session, query):
    """At a visitor's first run, or when the browser went Back to another link: the page's state from `query`.

    Returns None when the page already shows this link, else the names of the parameters it could not read.
    The player is sent to the link's frame: an 'open' goto (a first run) moves only a player that shows
    nothing yet, so a page that reconnects after a server restart keeps the frame it shows.
    """
    first = 'expr' not in session
    if not first and scenario(query) == session.get('link_in_browser'):
        return None
    page, ignored = from_query(query)
    session.update(to_session(page))
    goto = session.get('player_goto', {'id': 0})
    session['player_goto'] = {'id': goto['id'] + 1, 'frame': page.frame, 'open': first}
    session['link_in_browser'] = scenario(query)  # what the browser's address bar holds, as Streamlit sends it
    session['link_of_page'] = None  # the page's own link, taken as it is at the end of this run
    return ignored


def link_to_write(session, input_names):
    """The link for the page as it is now, without its frame (the player keeps that in the address bar itself),
    or None when it need not be written: written only when the visitor changes something, since each write adds
    a browser-history entry. The link is also what a page reopens after a server restart."""
    query = scenario(to_query(from_session(session, input_names)))
    if session.get('link_of_page') in (None, query):
        session['link_of_page'] = query
        return None
    session['link_of_page'] = session['link_in_browser'] = query
    return query
