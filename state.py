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
    query['step'] = str(state.frame)
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
    step = read('step', int, lambda v: 0 <= v <= 10**6)
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
