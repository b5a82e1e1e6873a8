"""The page's state in one place: its fields, their defaults, and their form in a link.

Streamlit keeps the live values in st.session_state under the field names; this module turns them into a
PageState and back, and a PageState into query parameters and back. Each field's form in a link is declared
once, beside the field (its link name, how its text is read and checked, how it is written): to_query and
from_query only walk that table. A link is untrusted: from_query keeps what it can read and falls back to the
default for the rest.

The session-state keys this module owns: each field of PageState under its name (the widgets that set a field are
drawn with that key; `frame` is the link's step, which the player keeps in the address bar), each input's box
(input_key), and LINK_IN_BROWSER, LINK_OF_PAGE and LINKS_BEHIND.
"""

import hashlib
import math
from collections.abc import Callable
from dataclasses import dataclass, field, fields

from engine import MAX_LENGTH, PRESETS, batch, exercise
from engine.forms import FORMS  # the exercise's two forms: the seed's _backward bodies, microgpt's local_grads
from engine.frames import HIDE, clamp_frame
from engine.learn import DEFAULT_LR, LEARNING_RATES, MAX_STEPS
from engine.parse import MAX_NAME  # the longest name a formula takes: forward mode's input in a link
from view.graph import SHAPES
from view.modes import NAMES as MODES
from view.modes import row  # what the page is for, a row each: view/modes.py

CUSTOM = 'custom'
EXPRESSIONS = (*PRESETS, CUSTOM)
MAX_CHAIN = 500
SPEEDS = (0.5, 1.0, 2.0, 4.0, 10.0)  # steps per second
MAX_INPUTS = 64
INPUT_LIMIT = 1e6  # inputs stay within ±INPUT_LIMIT: wide enough for any lesson, and far from overflow in the ops
INPUT_PREFIX = 'v.'  # inputs in a link: ?v.x1=2, so that a variable may be called "step"
END = 10**6  # step=end in a link: the last frame, whatever the number of frames
STREAMLITS_OWN = ('embed', 'embed_options')  # in the address bar for Streamlit itself: neither read nor reported
NOT_SCENARIO = ('step', *STREAMLITS_OWN)  # in the address bar, but not what the page shows
# a student's bodies (code.add, …) and tuples (grads.add, …): theirs, kept as the class moves
OWN_WORK = tuple(f'{form.link}.{name}' for form in FORMS.values() for name in exercise.OPS)
# the page's own, not the class's scenario (components/live.py)
# (a batch's point too: in a class learning together each phone is handed its own)
NOT_CLASS = ('class', 'present', 'table', 'contrast', 'point', *OWN_WORK)
INPUT_KEYS = 'input:'  # session state: 'input:<expr>:<name>', an input's box (input_key)
LINK_IN_BROWSER = 'link_in_browser'  # session state: the scenario of the link in the browser's address bar
LINK_OF_PAGE = 'link_of_page'  # session state: the scenario of the page's own link, as last written
# session state: the scenarios the address bar held before the page's latest writes, which a run may still carry
# until the browser has applied them (follow_link)
LINKS_BEHIND = 'links_behind'
KEPT_BEHIND = 8


@dataclass(frozen=True)
class Link:
    """A field's form in a link."""

    name: str  # its parameter's name
    read: Callable  # text -> value; may raise ValueError, or give None for text it refuses
    valid: Callable  # value -> whether a link may set it
    write: Callable  # value -> text
    when: Callable | None  # state -> whether a link carries the field; None: when it differs from the default


def linked(name, default, read, valid=lambda value: True, write=str, when=None):
    """A PageState field that a link carries as `name`."""
    return field(default=default, metadata={'link': Link(name, read, valid, write, when)})


def flag(name, default, when=None):
    """An on/off field, 1 or 0 in a link."""
    return linked(name, default, {'1': True, '0': False}.get, write=lambda on: '1' if on else '0', when=when)


def data_mark(text):
    """What a link holds of a dataset too long for it: '@' and the first 16 hex digits of its SHA-256."""
    return '@' + hashlib.sha256(text.encode()).hexdigest()[:16]


def linked_data(text):
    """A dataset's text as a link holds it: itself where it fits, else its mark."""
    return text if len(text) <= batch.MAX_LINK else data_mark(text)


def always(state):
    return True


def student_text(form, name):
    """A student's text for the exercise's method `name` (engine.exercise.OPS) in `form` (engine/forms.py): its
    `_backward` body, code.<name> in a link, or microgpt's local_grads tuple, grads.<name>; in a link while the mode
    is 'code' and the form is this one. A text the sandbox refuses is kept as the student wrote it, as the page's own
    link carries it: the page shows it with its error, and it waits (engine/bodies.py), as it did when typed; one
    past the length limit falls back to the exercise's own TODO."""
    form = FORMS[form]
    return linked(f'{form.link}.{name}', form.todo, str, lambda v: len(v) <= form.limit,
                  when=lambda s: row(s.mode).code and s.form == form.name)  # fmt: skip


@dataclass
class PageState:
    expr: str = linked('expr', 'neuron', str, lambda v: v in EXPRESSIONS, when=always)  # a key of PRESETS, or CUSTOM
    formula: str = linked('formula', 'tanh(x1*w1 + x2*w2 + b)', str, lambda v: 0 < len(v) <= MAX_LENGTH,
                          when=lambda s: s.expr == CUSTOM)  # fmt: skip
    chain_length: int = linked('n', 10, int, lambda v: 1 <= v <= MAX_CHAIN, when=lambda s: s.expr == 'chain')
    inputs: dict = field(default_factory=dict)  # input name -> value, v.name in a link; a missing one takes its default
    frame: int = linked('step', 0, lambda v: END if v == 'end' else int(v), lambda v: 0 <= v <= END,
                        write=lambda v: 'end' if v >= END else str(v), when=always)  # fmt: skip
    forward: bool = flag('forward', True)  # step through the forward pass too
    answers: bool = flag('answers', False)  # the node table shows the answers, each grad at the end (answers=1)
    leaves: bool = flag('leaves', True)  # step through the leaves' _backward too, which does nothing (micrograd's)
    speed: float = linked('speed', 2.0, float, lambda v: v in SPEEDS, write='{:g}'.format)
    present: bool = flag('present', False)  # the presentation view: the graph large, no sidebar
    table: bool = flag('table', False)  # the presentation view shows the node table too
    contrast: bool = flag('contrast', False)  # the high-contrast look, for a projector that washes colours out
    hide: str = linked('hide', 'none', str, lambda v: v in HIDE)  # which grads show '?' (engine.frames.HIDE)
    mode: str = linked('mode', 'watch', str, lambda v: v in MODES)  # one of MODES
    lr: float = linked('lr', DEFAULT_LR, float, lambda v: v in LEARNING_RATES, write='{:g}'.format)  # learning rate
    learned: int = linked('learned', 0, int, lambda v: 0 <= v <= MAX_STEPS)  # learning steps taken before this pass
    # learning from a batch (mode 'batch'): the point whose graph is shown (1-based), and the dataset as its text
    # (engine.batch.Dataset.text; '' is the example's), in a link where it fits, else its mark (data_mark): the
    # page keeps the text, and a class it leads keeps it for the phones
    point: int = linked('point', 1, int, lambda v: 1 <= v <= batch.MAX_POINTS, when=lambda s: row(s.mode).batch)
    data: str = linked('data', '', str, lambda v: len(v) <= batch.MAX_LINK, write=linked_data,
                       when=lambda s: row(s.mode).batch and bool(s.data))  # fmt: skip
    # a class learns together: each phone is handed a point and reports its grads, the projector adds them and steps
    together: bool = flag('together', False, when=lambda s: row(s.mode).batch and s.together)
    # the form the student writes the exercise in (mode 'code'): the seed's `_backward` bodies, or microgpt's tuples
    form: str = linked(
        'form', 'bodies', str, lambda v: v in FORMS, when=lambda s: row(s.mode).code and s.form != 'bodies'
    )
    code_add: str = student_text('bodies', 'add')  # the student's bodies (form 'bodies'): `+`, `×` and `tanh`
    code_mul: str = student_text('bodies', 'mul')
    code_tanh: str = student_text('bodies', 'tanh')
    grads_add: str = student_text('local_grads', 'add')  # the student's local_grads tuples (form 'local_grads')
    grads_mul: str = student_text('local_grads', 'mul')
    grads_tanh: str = student_text('local_grads', 'tanh')
    # forward mode's input, by name (mode 'forward'): '' or one the graph lacks is its first input (components/forward)
    wrt: str = linked('wrt', '', str, lambda v: 0 < len(v) <= MAX_NAME, when=lambda s: row(s.mode).tangents and s.wrt)
    room: str = linked('class', '', str, lambda v: 0 < len(v) <= 32)  # a live class's code (?class=CODE), as typed

    @property
    def bodies(self):
        """{'add': text, 'mul': text, 'tanh': text}: the student's texts in the form they write in (their bodies, or
        their local_grads tuples), as typed."""
        return {name: getattr(self, FORMS[self.form].field(name)) for name in exercise.OPS}

    @property
    def final_grads_shown(self):
        """Whether the node table shows the answers, each grad at the end: as asked, but never while grads are hidden
        or asked for, which the answers would give away."""
        return self.answers and self.hide == 'none' and not row(self.mode).asks


LINKS = {f.metadata['link'].name: f for f in fields(PageState) if 'link' in f.metadata}  # link name -> field
LINK_OF_FIELD = {f.name: f.metadata['link'] for f in LINKS.values()}  # field name -> its Link


def keep_widget_values(session):
    """Streamlit drops the value of a widget that a run does not draw (the formula box while a preset is shown).

    Setting each value again through session state keeps it for when the widget comes back.
    """
    names = {f.name for f in fields(PageState)}
    for key in list(session.keys()):
        if key in names or str(key).startswith(INPUT_KEYS):
            session[key] = session[key]


def forget_other_formulas(session, names):
    """Drop the boxes of typed formulas other than the one shown: a visitor who types 300 formulas would otherwise
    keep every box they ever made, and each run would re-set them all, each run slower than the last."""
    keep = {input_key(CUSTOM, name) for name in names}
    for key in [k for k in session.keys() if str(k).startswith(input_key(CUSTOM, '')) and k not in keep]:
        del session[key]


def input_key(expr, name):
    """The session-state key of one input's number box: each expression keeps its own values."""
    return f'{INPUT_KEYS}{expr}:{name}'


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
    """The query parameters of a link to `state`: each field its `when` asks for (by default, one that differs from
    its default), and every input."""
    query = {}
    for f in fields(state):
        value = getattr(state, f.name)
        if f.name == 'inputs':
            query.update({INPUT_PREFIX + name: f'{v!r}' for name, v in value.items()})
            continue
        link = f.metadata['link']
        if link.when(state) if link.when else value != f.default:
            query[link.name] = link.write(value)
    return query


def _read(read, valid, text):
    """The value that `text` stands for, or None when it cannot be read or is not valid."""
    try:
        value = read(text)
    except (ValueError, TypeError, OverflowError):
        return None
    return value if value is not None and valid(value) else None


def _input_name(name):
    return name.isidentifier() and not name.startswith('_') and len(name) <= 24


def _input_value(text):
    """An input's value from a link: a number, ±inf and any past ±INPUT_LIMIT kept at the nearer bound; nan is none
    (None), since it has no nearer bound."""
    value = float(text)
    return None if math.isnan(value) else min(max(value, -INPUT_LIMIT), INPUT_LIMIT)


def clamped_inputs(query, inputs):
    """The names of the `inputs` ({name: value}, as from_query read them from `query`) that `query` sets past
    ±INPUT_LIMIT, which from_query keeps at the nearer bound."""
    return [name for name in inputs if abs(float(query[INPUT_PREFIX + name])) > INPUT_LIMIT]


def from_query(query):
    """(PageState, names of the parameters that were ignored, in the link's order). Never raises, whatever the link
    holds: each parameter that cannot be read leaves its field at the default."""
    state, ignored = PageState(), []
    for key, text in query.items():
        if key in STREAMLITS_OWN:
            continue
        name = key[len(INPUT_PREFIX) :] if key.startswith(INPUT_PREFIX) else None
        value = None
        if key in LINKS:
            link = LINKS[key].metadata['link']
            value = _read(link.read, link.valid, text)
        elif name is not None and _input_name(name) and len(state.inputs) < MAX_INPUTS:
            value = _read(_input_value, lambda v: True, text)
        if value is None:
            ignored.append(key)
        elif key in LINKS:
            setattr(state, LINKS[key].name, value)
        else:
            state.inputs[name] = value
    return state, ignored


def frame_to_share(value, n_frames):
    """The frame a share request names ({'frame', 'shape'} as the player sends it, or the frame alone), within
    0..n_frames - 1, or None when it is not a frame number (the request comes from the browser, so it may be
    anything); the last frame is END, so that its link says step=end."""
    if isinstance(value, dict):
        value = value.get('frame')
    if type(value) is not int:
        return None
    k = clamp_frame(value, n_frames)
    return END if k == n_frames - 1 else k


def shape_to_share(value):
    """The shape (graph.SHAPES) a share request says the player showed its frame in, for the frame's files to be drawn
    in; 'wide', micrograd's, where it names none of them (a request comes from the browser)."""
    shape = value.get('shape') if isinstance(value, dict) else None
    return shape if isinstance(shape, str) and shape in SHAPES else 'wide'


def scenario(query):
    """What of a link decides the picture, apart from the frame: two links with the same scenario show the same."""
    return {key: value for key, value in query.items() if key not in NOT_SCENARIO}


@dataclass(frozen=True)
class Opened:
    """A link the page has just followed."""

    frame: int  # the link's frame (END: the last one), where the player is to go
    first: bool  # the visitor's first run: the player goes there only if it shows no frame yet (player.go_to)
    ignored: list  # the names of the parameters that could not be read, in the link's order
    clamped: list = field(default_factory=list)  # the inputs it sets past ±INPUT_LIMIT, kept at the nearer bound


def follow_link(session, query, navigated=True, sent=None):
    """At a visitor's first run, or when the browser went Back to another link: the page's state from `query`.

    Returns None when the page already shows this link, else what was Opened: the player is to be sent to its
    frame (components.player.go_to), and the parameters that could not be read are to be named.

    `navigated`: this run is the browser's Back or Forward (True where that cannot be known). Any other run that
    carries a link the address bar held before the page last wrote its own is late, not a way back: the browser
    applies a written link when that run's messages arrive, and a click made meanwhile reruns the script with the
    address bar as it was. Following it would undo the click.

    `sent`: {session key: value} of the widgets whose values the browser sent with this run. At a visitor's first
    run they are what a page that reconnected shows (after a server restart, or a failover to another replica), and
    the click that made this run may have just changed one: each that its field would take is kept (browser_values).
    """
    first = 'expr' not in session
    here = scenario(query)
    if not first and here == session.get(LINK_IN_BROWSER):
        session[LINKS_BEHIND] = []  # the browser shows the page's own link: no run can carry an older one now
        return None
    if not first and not navigated and here in session.get(LINKS_BEHIND, []):
        return None
    page, ignored = from_query(query)
    entries = to_session(page)
    session.update({**entries, **(browser_values(sent or {}, entries) if first else {})})
    session[LINK_IN_BROWSER] = here  # what the browser's address bar holds, as Streamlit sends it
    session[LINKS_BEHIND] = []
    session[LINK_OF_PAGE] = None  # the page's own link, taken as it is at the end of this run (link_to_write)
    return Opened(page.frame, first, ignored, clamped_inputs(query, page.inputs))


def browser_values(sent, entries):
    """Of the widget values a reconnecting page sent ({key: bool, float or text}), those the page's state would take
    over `entries` (to_session's, from its link): an on/off for a flag, a number for a number field or an input
    (within ±INPUT_LIMIT), a text for a text field, each as its field's check allows. A choice's value comes as its
    label, which no check accepts: the link's stands."""
    kept = {}
    for key, value in sent.items():
        value = _as_type_of(entries.get(key), value)
        if value is None:
            continue
        if str(key).startswith(INPUT_KEYS):
            ok = math.isfinite(value) and abs(value) <= INPUT_LIMIT
        else:
            ok = key in LINK_OF_FIELD and LINK_OF_FIELD[key].valid(value)
        if ok:
            kept[key] = value
    return kept


def _as_type_of(current, value):
    """`value` as the type of `current` (a bool, int, float or str), or None where it is not one: a number box sends
    a float for an int."""
    if isinstance(current, bool) or isinstance(current, str):
        return value if type(value) is type(current) else None
    if isinstance(current, int | float) and type(value) in (int, float):
        if type(current) is int:
            return int(value) if float(value).is_integer() else None
        return float(value)
    return None


def link_to_write(session, input_names, followed):
    """The link for the page as it is now, without its frame (the player keeps that in the address bar itself),
    or None when it need not be written: written only when the visitor changes something, since each write adds
    a browser-history entry. The link is also what a page reopens after a server restart.

    `followed`: this run followed a link (follow_link), so the page as it is now is that link's, and is not written.
    A run that followed a link but was cut short by the visitor's next click never got here: the next run writes
    what that click changed, as any other run does."""
    query = scenario(to_query(from_session(session, input_names)))
    if followed or session.get(LINK_OF_PAGE) == query:
        session[LINK_OF_PAGE] = query
        return None
    session[LINKS_BEHIND] = [*session.get(LINKS_BEHIND, []), session[LINK_IN_BROWSER]][-KEPT_BEHIND:]
    session[LINK_OF_PAGE] = session[LINK_IN_BROWSER] = query
    return query


def learns_together(query):
    """Whether a link's scenario (a class's) learns together from a batch: the room is the minibatch."""
    page, _ = from_query(query)
    return row(page.mode).batch and page.together


def batch_in(query, kept=''):
    """(expression, parameters, dataset, learning rate) that a link's scenario learns a batch from, or None where it
    learns none: a class's, as the room holds it, is what a phone's grads are computed from on the server, never
    what the phone says. `kept`: the dataset a class keeps, which a scenario's data mark names. Data a link holds
    that cannot be read is the example's, as the page shows it."""
    page, _ = from_query(query)
    expression = PRESETS.get(page.expr)
    if expression is None or not batch.applies(expression):
        return None
    text = kept if page.data.startswith('@') and kept and data_mark(kept) == page.data else page.data
    try:
        dataset = batch.read_text(text, batch.data_names(expression)) if text else batch.example(expression)
    except batch.DataError:
        dataset = batch.example(expression)
    start = {name: float(page.inputs.get(name, expression.defaults[name])) for name in expression.params}
    params = batch.descend(expression, start, dataset, page.lr, page.learned).values[-1] if page.learned else start
    return expression, params, dataset, page.lr
