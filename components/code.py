"""Your own `_backward` (mode=code): the exercise's three methods with a box for each body, the grader's verdict, and
hints in steps; or, in microgpt's form (form=local_grads), a box for each op's local_grads tuple, with its one backward
loop shown under them (engine/forms.py: the two forms). The texts are untrusted: engine/sandbox.py checks them against
its whitelist and runs them by walking their trees; here they are only ever printed (st.code, escaped markdown), never
rendered."""

import functools

import streamlit as st

from components.markdown import md
from components.picker import TYPED
from components.player import send_to
from engine import PRESETS, exercise, grader, local_grads, ops
from engine.bodies import Waiting
from engine.forms import FORMS
from engine.frames import frames
from engine.value import topological_order
from server.cache import traced
from state import CUSTOM, input_key
from view.exercise import SHOW_WHERE, first_difference, listed

WAITS = 'waits'  # verdict_word's word for bodies one of which cannot run yet
HINTS = 'code_hints'  # session state: (the bodies the hints are for, how many hints are shown)
BOXES = ', '.join(f'.st-key-{form.field(name)} textarea' for form in FORMS.values() for name in exercise.OPS)
CODE_FONT = '{font-family: "DejaVu Sans Mono", "Source Code Pro", monospace; font-size: 0.85rem}'
BOX_STYLE = f'<style>{BOXES} {CODE_FONT}</style>'  # code in a code font


def _reset(form):
    for name in exercise.OPS:
        st.session_state[form.field(name)] = form.todo


def _answer(form):
    for name in exercise.OPS:
        st.session_state[form.field(name)] = form.answer(name)
    st.session_state[HINTS] = None
    st.toast(f'The right {form.plural} are filled in, read off engine/value.py’s own ops.', icon=':material/check:')


def checked_bodies(page, boxes=True):
    """((name, text), ...) of the bodies (or microgpt's tuples: page.form) to run, as typed: one the sandbox refuses
    waits (engine/bodies.py: the graph runs it as nothing, the grader and the hints wait for it) and, with `boxes`,
    its error is shown under its box. Draws the boxes when `boxes`."""
    form, texts = FORMS[page.form], page.bodies
    if boxes and form.name == 'local_grads':
        st.code(local_grads.CLASS, language='python', wrap_lines=True)
    columns = st.columns(3) if boxes else [None] * 3
    for column, (name, body) in zip(columns, form.checked(texts).items()):
        if column is not None:
            with column:
                _box(form, name, body.error if isinstance(body, Waiting) else None)
    if boxes and form.name == 'local_grads':
        st.code(local_grads.LOOP, language='python', wrap_lines=True)
    return tuple(texts.items())


def _box(form, name, error):
    if form.name == 'local_grads':
        head, tail = local_grads.around(name)
        label, placeholder = 'its local_grads tuple', '(…, …)  one local gradient per input'
    else:
        head, _, tail = exercise.around(name)
        label, placeholder = 'the body of its `_backward`', 'self.grad += …  (write grads with +=)'
    key = form.field(name)
    st.code(head, language='python', wrap_lines=True)
    st.text_area(f'`{exercise.METHODS[name]}`: {label}', key=key, height=90 if form.name == 'bodies' else 68,
                 max_chars=form.limit, label_visibility='collapsed', placeholder=placeholder)  # fmt: skip
    if error is not None:
        it = 'it' if form.name == 'bodies' else 'them'
        st.error(
            f'**This {"body" if form.name == "bodies" else "tuple"} can’t run yet** (until it can, its op passes '
            f'nothing back, and the grader waits for {it}): {md(error)}',
            icon=':material/code:',
        )
        pointed = error.pointed(st.session_state[key])
        if pointed:
            st.code(pointed, language=None)
    st.code(tail, language='python', wrap_lines=True)


@functools.lru_cache(maxsize=256)
def _graded(form, bodies):
    form = FORMS[form]
    read = form.checked(bodies)
    return form.verdicts(read), form.diagnose(read)


INTRO = {
    'bodies': 'Fill in the three `_backward` bodies, as in the exercise: each passes `out.grad` back to its inputs, '
    'scaled by the local gradient, always with `+=`.',
    'local_grads': 'Fill in each op’s `local_grads`, as microgpt writes them: a tuple of the local gradient for each '
    'input, in the children’s order. One loop in `backward()` multiplies each by the grad coming back and adds it to '
    'the child’s grad.',
}


def code_boxes(page):
    """Above the graph: the form, the exercise's three methods with a box for each body (or tuple), and the buttons;
    the texts to run, ((name, text), ...)."""
    st.html(BOX_STYLE)
    with st.expander('Your `_backward` bodies', expanded=True, icon=':material/code:'):
        st.radio('Write the exercise as', tuple(FORMS), key='form', format_func=lambda name: FORMS[name].label,
                 horizontal=True,
                 help='micrograd’s seed: a `_backward` closure per op. Karpathy’s microgpt (2026): each op returns its '
                      'local gradients as a tuple, and one loop in `backward()` does the chain rule.')  # fmt: skip
        st.markdown(
            INTRO[page.form] + ' The graph runs yours, step by step, beside the right engine (Ctrl+Enter or a click '
            'outside a box runs it).'
        )
        bodies = checked_bodies(page)
        form = FORMS[page.form]
        left, right = st.columns(2)
        left.button('Reset to the exercise', on_click=_reset, args=(form,), icon=':material/restart_alt:',
                    width='stretch')  # fmt: skip
        right.button('Show the answer', on_click=_answer, args=(form,), icon=':material/visibility:', width='stretch')
    return bodies


def verdict_word(verdicts, mistakes):
    """The bodies' verdict in a word, as a live class counts them: 'right', or their mistakes' kinds
    (diagnosis.MISTAKES) and 'waits' where a body cannot run yet, joined by commas, or 'other' where the grader finds
    them wrong and no kind names why."""
    if all(v.right for v in verdicts):
        return 'right'
    kinds = {m.kind for m in mistakes} | ({WAITS} if any(v.waits for v in verdicts) else set())
    return ','.join(sorted(kinds)) or 'other'


def code_verdict(bodies, form='bodies'):
    """Under the graph: the grader's verdict on the bodies (or microgpt's tuples: `form`), and hints in steps. Returns
    it in a word (verdict_word)."""
    verdicts, mistakes = _graded(form, bodies)
    st.markdown('**The grader’s verdict** (`grads_of` at the exercise’s inputs, rounded to 9 digits):')
    st.code('\n'.join(v.line for v in verdicts), language=None)
    own = [v for v in verdicts if v.expression not in grader.PITFALLS]
    pitfalls = [v.expression for v in verdicts if v.expression in grader.PITFALLS and v.wrong]
    if all(v.right for v in own) and pitfalls:
        st.warning(
            f'Your {FORMS[form].plural} pass the exercise’s own three expressions, and fail {md(listed(pitfalls))}: a '
            'value used twice by one op (`a + a`) or by two paths. The exercise’s grader would not catch it. To watch '
            f'{"it" if len(pitfalls) == 1 else "one"} step by step, under *Expression* '
            f'{listed(_watch(pitfalls), "or")}.',
            icon=':material/warning:',
        )
    failing = smallest_failing(verdicts)
    if failing is not None:
        st.button(SHOW_WHERE, on_click=_show_where, args=(failing, form, bodies), icon=':material/search:',
                  help=f'Opens {grader.GRADED[failing].title}, the smallest expression the grader finds wrong, at the '
                       'first frame where a grad of yours differs from the right one.')  # fmt: skip
    _hints(bodies, mistakes, form)
    return verdict_word(verdicts, mistakes)


@functools.cache
def _size(key):
    """The nodes of a graded expression's graph (grader.GRADED's key)."""
    return len(topological_order(grader.GRADED[key].build()[1]))


def smallest_failing(verdicts):
    """The key of the smallest graded expression (by its graph's nodes) the grader finds wrong, or None."""
    failing = [v.expression for v in verdicts if v.wrong]
    return min(failing, key=_size) if failing else None


def _show_where(key, form, bodies):
    """Draw the graded expression `key` at the grader's inputs, and send the player to the frame of its first
    difference, as the page will step it (its toggles: the forward pass, the leaves, what is hidden)."""
    s, expression = st.session_state, grader.GRADED[key]
    preset = next((name for name, p in PRESETS.items() if p.key == expression.key), None)
    s.expr = preset or CUSTOM
    if preset is None:
        s.formula = expression.title
    elif preset == 'chain':
        s.chain_length = int(expression.key.removeprefix('chain'))  # chain(10)'s key: 'chain10'
    for name, value in expression.defaults.items():
        s[input_key(s.expr, name)] = float(value)
    s.learned = 0
    values = tuple(expression.defaults.items())
    right, _, _ = traced(expression=expression, values=values)
    yours, _, _ = traced(expression=expression, values=values, engine=FORMS[form].engine, bodies=bodies)
    first = first_difference(yours, right, frames(yours, s.forward, s.leaves, hide=s.hide))
    send_to(first or 0)


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


def _hints(bodies, mistakes, form='bodies'):
    """Hints in steps, for a student who wants less than the answer: which op, which input, the right local
    gradient (in microgpt's form: the right entry of its tuple)."""
    if not mistakes:
        return
    shown = st.session_state.get(HINTS)
    level = shown[1] if shown and shown[0] == (form, bodies) else 0
    m = mistakes[0]
    method = exercise.METHODS[m.name]
    if form == 'local_grads':
        steps = [
            f'Look at your `{ops.symbol(exercise.OPS[m.name])}` (`{method}`): its `local_grads`.',
            f'In `{method}`’s `local_grads`, the entry for `{m.target}`: {m.words}.',
            f'The right entry for `{m.target}`: `{m.right}`.',
        ]
    else:
        steps = [
            f'Look at your `{ops.symbol(exercise.OPS[m.name])}` (`{method}`).',
            f'In `{method}`, the line for `{m.target}.grad`: {m.words}.',
            f'The right line: `{m.right}`.',
        ]
    for text in steps[:level]:
        st.info(text, icon=':material/lightbulb:')
    if level < len(steps):
        label = 'A hint' if level == 0 else 'Another hint'
        st.button(label, on_click=lambda: st.session_state.update({HINTS: ((form, bodies), level + 1)}),
                  icon=':material/lightbulb:')  # fmt: skip
