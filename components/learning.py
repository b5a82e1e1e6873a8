"""One step of learning: after the backward pass, `p.data += -lr * p.grad` for each parameter, then the forward pass
again with the new loss beside the old; and the panel that takes more steps, with the loss over them.

The player's frames go on past the pass (learning_tail): one frame per parameter updated, then the forward pass of
the graph at the new values, whose trace the page has anyway. The steps taken before this pass are a link field
(`learned`), so a link reopens the same parameters."""

import html
from dataclasses import dataclass

import pandas as pd
import streamlit as st

import shared
from components.explanation import caption, explain, explanation_html, frame_rules, number, owner
from components.graph import value_look
from components.numbers import fmt, padded
from engine import learn
from engine.frames import Frame, frames
from engine.trace import Trace


@dataclass(frozen=True)
class Learning:
    """What comes after the pass: the update it leads to, and the graph after it."""

    lr: float
    update: learn.Update  # the step from this pass's values
    after: Trace  # the graph at update.values, whose forward pass the tail shows
    descent: learn.Descent  # from the sidebar's values: the values and loss after 0, 1, ... steps


@dataclass(frozen=True)
class Tail:
    """The frames after the pass, as the player's body has them."""

    patches: list
    captions: list
    explanations: list
    rules: list
    summary: str


LINE = 'p.data += -lr * p.grad'  # micrograd's training loop: for p in model.parameters(): p.data += -lr * p.grad


def learning_after(expression, values, lr, steps):
    """(Learning, the values of the pass to show): from `values` (the sidebar's), `steps` updates at `lr`, then the
    pass at those values and the update it leads to."""
    descent = learn.descend(expression, values, lr, steps + 1)  # the last step is the one the tail shows
    now, after = descent.values[-2], descent.values[-1]
    after_trace = shared.traced(expression=expression, values=tuple(after.items()))[0]
    return Learning(lr, learn.step(expression, now, lr), after_trace, descent), now


def tail_length(trace, learning):
    """How many frames learning_tail adds after the pass: one per parameter, zero_grad, one per op (0 without)."""
    if learning is None:
        return 0
    return len(learning.update.params) + 1 + sum(1 for node in trace.nodes if node.op)


def update_line(p, lr):
    """'w.data += -lr * w.grad: 0.5000 − 0.1 × (−3.7500) = 0.8750' (plain text)."""
    step = f'{number(p.old)} − {lr:g} × {_bracketed(p.grad)}'
    return f'{owner(p.name)}.data += -lr * {owner(p.name)}.grad: {step} = {number(p.new)}'


def _bracketed(x):
    text = number(x)
    return f'({text})' if text.startswith('−') else text


def learning_tail(trace, learning, width, pass_patches, frame_patches):
    """The frames after the pass, as the player's body has them: `pass_patches` are the pass's own, to go on from,
    and `frame_patches` the player's, for the forward pass again."""
    n = len(trace.nodes)
    last = Frame('backward', 0, n, n)  # the pass done
    grads, final_after = trace.final_grads(), trace.final_after()
    index = {node.name: i for i, node in enumerate(trace.nodes) if node.is_input}
    looks = {i: list(value_look(trace, last, i, grads, final_after, width)) for i in range(n)}
    for look in looks.values():
        look[3] = ''  # no mark: the pass is over
    hot = {key for patch in pass_patches for key, label in patch['e'] if label}
    patches, captions, explanations, rules = [], [], [], []
    previous = None
    for k, p in enumerate(learning.update.params):
        i = index[p.name]
        changed = [] if k else [[j, *look] for j, look in looks.items()]  # the first: every node, unmarked
        if previous is not None:
            changed.append([previous, *looks[previous]])
        looks[i][0] = padded(p.new, width)
        changed.append([i, *looks[i][:3], 'forward'])  # blue: its data just computed
        patches.append({'v': changed, 'o': -1, 'e': [[key, ''] for key in sorted(hot)] if not k else [], 'a': i})
        line = update_line(p, learning.lr)
        captions.append(f'learning: {line}')
        rules.append([line])
        explanations.append(explanation_html(_update_parts(p, learning.lr, k, len(learning.update.params))))
        previous = i
    after = learning.after
    again = [f for f in frames(after) if f.kind in ('inputs', 'forward')]
    old, new = trace.nodes[-1].data, after.nodes[-1].data
    for k, (patch, frame) in enumerate(zip(frame_patches(after, again, width), again)):
        patches.append(patch)
        parts = explain(after, frame)
        if frame.kind == 'inputs':
            captions.append('zero_grad, then the forward pass again with the new parameters')
            parts = [('p', [('b', 'Zero the grads, forward again. '), ('c', 'p.grad = 0'),
                            ('', ' for every value (the page shows ·: not computed yet), then every op computes its '
                                 'data again from the new parameters.')])]  # fmt: skip
        else:
            captions.append(f'forward again: {caption(after, frame).removeprefix("forward pass: ")}')
        if k == len(again) - 1:
            captions[-1] += f' · loss {number(old)} → {number(new)}'
            parts = parts + [('p', [('b', f'{_compared(old, new)} '), ('', _loss_words(old, new, learning.lr))])]
        explanations.append(explanation_html(parts))
        rules.append(frame_rules(after, frame))
    return Tail(patches, captions, explanations, rules, summary_html(learning))


def _update_parts(p, lr, k, n):
    return [
        ('p', [('b', f'Learning, parameter {k + 1} of {n}. '),
               ('', 'Each parameter takes a small step against its grad, the way that makes the loss smaller:')]),
        ('code', f'for p in parameters:\n    {LINE}'),
        ('p', [('c', update_line(p, lr))]),
        ('p', [('', f'{owner(p.name)}.grad = {number(p.grad)}: ' + (
            'the loss grows with it, so it goes down.' if p.grad > 0 else
            'the loss falls as it grows, so it goes up.' if p.grad < 0 else 'the loss does not move with it here.'))]),
    ]  # fmt: skip


def _compared(old, new):
    if new < old:
        return 'Lower.'
    if new > old:
        return 'Higher.'
    return 'The same.'


def _loss_words(old, new, lr):
    said = f'The loss was {number(old)} before this step and is {number(new)} after it.'
    if new > old:
        return said + f' lr = {lr:g} is too large here: the step overshoots. Try a smaller one.'
    return said + ' Another backward pass, another step: that is the training loop.'


def update_table(learning):
    """The update, a row per parameter, its numbers as the page's other tables write them (components.numbers)."""
    rows = [(p.name, fmt(p.old), fmt(p.grad), fmt(-learning.lr * p.grad), fmt(p.new))
            for p in learning.update.params]  # fmt: skip
    columns = ['parameter', 'data before', 'grad', '−lr × grad', 'data after']
    return pd.DataFrame({c: [row[j] for row in rows] for j, c in enumerate(columns)})


def summary_html(learning):
    """At the end of the frames: the update as a table (the explanation beside it has the losses)."""
    intro = f'<p><b>One step of learning:</b> <code>{html.escape(LINE)}</code> for each parameter.</p>'
    return intro + update_table(learning).to_html(index=False, escape=True, border=0, classes='check')


def _more(steps, on_step):
    s = st.session_state
    s.learned = min(s.learned + steps, learn.MAX_STEPS)
    on_step()


def _again(on_step):
    st.session_state.learned = 0
    on_step()


def learning_panel(learning, steps_taken, on_step=lambda: None):
    """Below the player: the learning rate, buttons for more steps, and the loss over the steps so far. `on_step`
    is called when a button changes the steps taken."""
    losses = learning.descent.losses
    st.subheader('One step of learning', anchor=False)
    lr, one, ten, again = st.columns([3, 1.3, 1.3, 1.3], vertical_alignment='bottom')
    lr.select_slider('Learning rate lr', options=learn.LEARNING_RATES, key='lr', format_func='{:g}'.format)
    full = steps_taken >= learn.MAX_STEPS
    one.button('1 more step', on_click=_more, args=(1, on_step), key='learn_one', disabled=full, width='stretch')
    ten.button('10 more steps', on_click=_more, args=(10, on_step), key='learn_ten', disabled=full, width='stretch')
    again.button('Start again', on_click=_again, args=(on_step,), key='learn_again', disabled=steps_taken == 0,
                 width='stretch')  # fmt: skip
    steps = '1 step' if steps_taken == 1 else f'{steps_taken} steps'
    where = 'the inputs in the sidebar' if steps_taken == 0 else f'{steps} from the sidebar’s inputs'
    st.markdown(
        f'The graph shows the pass at {where}; after its backward pass, step through the update and the forward '
        f'pass again. Loss **{number(losses[-2])} → {number(losses[-1])}**.'
    )
    chart = pd.DataFrame({'loss': losses}, index=pd.RangeIndex(len(losses), name='step'))
    with st.container(border=True):  # the chart's toolbar, on hover, stays inside its own box
        st.line_chart(chart, x_label='learning step', y_label='loss', height=220)
