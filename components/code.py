"""Your own `_backward` (mode=code): the exercise's three methods with a box for each body, the grader's verdict, and
hints in steps. The bodies are untrusted text: engine/sandbox.py checks them against its whitelist and runs them by
walking their trees; here they are only ever printed (st.code, escaped markdown), never rendered."""

import functools

import streamlit as st

from components.markdown import md
from components.picker import TYPED
from engine import diagnosis, exercise, grader, ops, sandbox
from engine.bodies import Waiting, checked

WAITS = 'waits'  # verdict_word's word for bodies one of which cannot run yet
HINTS = 'code_hints'  # session state: (the bodies the hints are for, how many hints are shown)
BOX_STYLE = (
    '<style>.st-key-code_add textarea, .st-key-code_mul textarea, .st-key-code_tanh textarea {font-family: '
    '"DejaVu Sans Mono", "Source Code Pro", monospace; font-size: 0.85rem}</style>'
)  # code in a code font


def _reset():
    for name in exercise.OPS:
        st.session_state[f'code_{name}'] = exercise.TODO


def _answer():
    for name in exercise.OPS:
        st.session_state[f'code_{name}'] = exercise.answer(name)
    st.session_state[HINTS] = None
    st.toast('The right bodies are filled in: engine/value.py’s own lines.', icon=':material/check:')


def checked_bodies(bodies, boxes=True):
    """((name, text), ...) of the bodies to run, from {name: text}, as typed: one the sandbox refuses waits
    (engine/bodies.py: the graph runs it as nothing, the grader and the hints wait for it) and, with `boxes`, its error
    is shown under its box. Draws the boxes when `boxes`."""
    columns = st.columns(3) if boxes else [None] * 3
    for column, (name, body) in zip(columns, checked(bodies).items()):
        if column is not None:
            with column:
                _box(name, body.error if isinstance(body, Waiting) else None)
    return tuple(bodies.items())


def _box(name, error):
    head, indent, tail = exercise.around(name)
    st.code(head, language='python', wrap_lines=True)
    st.text_area(f'`{exercise.METHODS[name]}`: the body of its `_backward`', key=f'code_{name}', height=90,
                 max_chars=sandbox.MAX_BODY, label_visibility='collapsed',
                 placeholder='self.grad += …  (write grads with +=)')  # fmt: skip
    if error is not None:
        st.error(
            f'**This body can’t run yet** (until it can, its op passes nothing back, and the grader waits for '
            f'it): {md(error)}',
            icon=':material/code:',
        )
        pointed = error.pointed(st.session_state[f'code_{name}'])
        if pointed:
            st.code(pointed, language=None)
    st.code(tail, language='python', wrap_lines=True)


@functools.lru_cache(maxsize=256)
def _graded(bodies):
    read = checked(bodies)
    return grader.verdicts(read), diagnosis.diagnose(read)


def code_boxes(page):
    """Above the graph: the exercise's three methods, a box for each body, and the buttons; the bodies to run,
    ((name, text), ...)."""
    st.html(BOX_STYLE)
    with st.expander('Your `_backward` bodies', expanded=True, icon=':material/code:'):
        st.markdown(
            'Fill in the three `_backward` bodies, as in the exercise: each passes `out.grad` back to its inputs, '
            'scaled by the local gradient, always with `+=`. The graph runs yours, step by step, beside the right '
            'engine (Ctrl+Enter or a click outside a box runs it).'
        )
        bodies = checked_bodies(page.bodies)
        left, right = st.columns(2)
        left.button('Reset to the exercise', on_click=_reset, icon=':material/restart_alt:', width='stretch')
        right.button('Show the answer', on_click=_answer, icon=':material/visibility:', width='stretch')
    return bodies


def verdict_word(verdicts, mistakes):
    """The bodies' verdict in a word, as a live class counts them: 'right', or their mistakes' kinds
    (diagnosis.MISTAKES) and 'waits' where a body cannot run yet, joined by commas, or 'other' where the grader finds
    them wrong and no kind names why."""
    if all(v.right for v in verdicts):
        return 'right'
    kinds = {m.kind for m in mistakes} | ({WAITS} if any(v.waits for v in verdicts) else set())
    return ','.join(sorted(kinds)) or 'other'


def code_verdict(bodies):
    """Under the graph: the grader's verdict on the bodies, and hints in steps. Returns it in a word (verdict_word)."""
    verdicts, mistakes = _graded(bodies)
    st.markdown('**The grader’s verdict** (`grads_of` at the exercise’s inputs, rounded to 9 digits):')
    st.code('\n'.join(v.line for v in verdicts), language=None)
    own = [v for v in verdicts if v.expression not in grader.PITFALLS]
    pitfalls = [v.expression for v in verdicts if v.expression in grader.PITFALLS and v.wrong]
    if all(v.right for v in own) and pitfalls:
        st.warning(
            f'Your bodies pass the exercise’s own three expressions, and fail {md(_and(pitfalls))}: a value used '
            'twice by one op (`a + a`) or by two paths. The exercise’s grader would not catch it. To watch '
            f'{"it" if len(pitfalls) == 1 else "one"} step by step, under *Expression* {_and(_watch(pitfalls), "or")}.',
            icon=':material/warning:',
        )
    _hints(bodies, mistakes)
    return verdict_word(verdicts, mistakes)


def _and(items, word='and'):
    """'a', 'a and b', 'a, b and c'."""
    return items[0] if len(items) == 1 else f'{", ".join(items[:-1])} {word} {items[-1]}'


def _watch(keys):
    """How the page draws each of these graded expressions (grader.GRADED's keys): a preset picked by its name, or a
    formula typed, which the page draws at the inputs the grader uses."""
    said = []
    for expression in (grader.GRADED[key] for key in keys):
        if expression.menu:
            said.append(f'pick *{md(expression.menu)}*')
        else:
            said.append(f'pick *{md(TYPED)}* and type `{expression.title}`')
    return said


def _hints(bodies, mistakes):
    """Hints in steps, for a student who wants less than the answer: which op, which input, the right local
    gradient."""
    if not mistakes:
        return
    shown = st.session_state.get(HINTS)
    level = shown[1] if shown and shown[0] == bodies else 0
    m = mistakes[0]
    steps = [
        f'Look at your `{ops.symbol(exercise.OPS[m.name])}` (`{exercise.METHODS[m.name]}`).',
        f'In `{exercise.METHODS[m.name]}`, the line for `{m.target}.grad`: {diagnosis.MISTAKES[m.kind]}.',
        f'The right line: `{m.right}`.',
    ]
    for text in steps[:level]:
        st.info(text, icon=':material/lightbulb:')
    if level < len(steps):
        label = 'A hint' if level == 0 else 'Another hint'
        st.button(label, on_click=lambda: st.session_state.update({HINTS: (bodies, level + 1)}),
                  icon=':material/lightbulb:')  # fmt: skip
