"""One step of learning: after the backward pass, `p.data += -lr * p.grad` for each parameter, then zero_grad and the
forward pass again with the new loss beside the old; and the panel that takes more steps.

The player's frames go on past the pass (learning_tail): one frame per parameter updated, zero_grad, then the forward
pass of the graph at the new values, whose trace the page has anyway. The loss over the steps is drawn in the player,
a plot per frame (loss_plots), each point from the frame that computes it on: nothing the frames have not reached. The
steps taken before this pass are a link field (`learned`), so a link reopens the same parameters."""

import html
import math
from dataclasses import dataclass

import pandas as pd

from engine import learn
from engine.frames import frames
from engine.trace import Trace
from view.depth_plot import AXIS, GRID, WIDTH, svg_text
from view.explanation import caption, explain, explanation_html, frame_rules, owner
from view.graph import value_look
from view.numbers import as_shown, equals, fmt, number, number_word, padded, tick_label
from view.palette import ACTIVE, INK, PLOT_FONT, PLOT_LINE
from view.patches import frame_patches


@dataclass(frozen=True)
class Learning:
    """What comes after the pass: the update it leads to, and the graph after it."""

    lr: float
    update: learn.Update  # the step from this pass's values
    after: Trace  # the graph at update.values, whose forward pass the tail shows
    descent: learn.Descent  # from the sidebar's values: the values and loss after 0, 1, ... steps

    @property
    def steps_taken(self):
        """The steps taken before this pass: the descent goes one further, to the step the tail shows."""
        return len(self.descent.losses) - 2

    @property
    def key(self):
        """What the frames after the pass depend on beyond the pass's own values: the rate, and the steps taken from
        where (the loss plot draws them). Two histories can meet at the same values."""
        return self.lr, self.steps_taken, tuple(self.descent.values[0].items())


@dataclass(frozen=True)
class Tail:
    """The frames after the pass, as the player's body has them."""

    patches: list
    captions: list
    explanations: list
    rules: list
    summary: str
    plots: dict  # the loss plot of every frame, the pass's and the tail's (loss_plots)


UPDATE = 'p.data += -lr * p.grad'  # micrograd's training loop: for p in model.parameters(): p.data += -lr * p.grad
ZERO_GRAD = 'zero_grad: every grad is set back to 0 before the next backward pass'


def tail_length(trace, learning):
    """How many frames learning_tail adds after the pass: one per parameter, zero_grad, one per op (0 without)."""
    if learning is None:
        return 0
    return len(learning.update.params) + 1 + sum(1 for node in trace.nodes if node.op)


def update_line(p, lr):
    """'w.data += -lr * w.grad: 0.5000 − 0.1 × (−3.7500) = 0.8750' (plain text); '≈' before the new value where the
    numbers shown do not work out to it (numbers.equals)."""
    step = f'{number(p.old)} − {number_word(lr)} × {_bracketed(p.grad)}'
    sign = equals(p.new, as_shown(p.old) + -lr * as_shown(p.grad))
    return f'{owner(p.name)}.data += -lr * {owner(p.name)}.grad: {step} {sign} {number(p.new)}'


def _bracketed(x):
    text = number(x)
    return f'({text})' if text.startswith('−') else text


def learning_tail(trace, learning, width, pass_patches, pass_frames=()):
    """The frames after the pass, as the player's body has them: `pass_patches` are the pass's own, to go on from;
    `pass_frames`, the pass's frames, for the loss plot's points along them."""
    n = len(trace.nodes)
    last = frames(trace)[-1]  # the pass done
    grads, final_after = trace.final_grads(), trace.final_after()
    index = {node.name: i for i, node in enumerate(trace.nodes) if node.is_input}
    looks = {i: list(value_look(trace, last, i=i, grads=grads, final_after=final_after, width=width)) for i in range(n)}
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
        if frame.kind == 'inputs':  # where every grad goes back to ·: zero_grad, said in each of the frame's texts
            captions.append(f'{ZERO_GRAD}, then forward again')
            parts = _zero_grad_parts([p.name for p in learning.update.params])
            rules.append(['zero_grad: p.grad = 0.0 for every parameter; every grad shows · (0, nothing added yet)'])
        else:
            captions.append(f'forward again: {caption(after, frame).removeprefix("forward pass: ")}')
            rules.append(frame_rules(after, frame))
        if k == len(again) - 1:
            captions[-1] += f' · loss {number(old)} → {number(new)}'
            parts = parts + [('p', [('b', f'{_compared(old, new)} '), ('', _loss_words(old, new, learning.lr))])]
        explanations.append(explanation_html(parts))
    plots = loss_plots(trace, learning, pass_frames=pass_frames, n_updates=len(learning.update.params), again=again)
    return Tail(patches, captions, explanations=explanations, rules=rules, summary=summary_html(learning), plots=plots)


def _zero_grad_parts(names):
    """zero_grad's frame in words: every grad back to 0, shown as the page shows a grad no backward pass has added to
    (·), and the ops' data waiting for the forward pass again. `names`: the parameters'."""
    return [
        ('p', [('b', 'zero_grad. '),
               ('', 'Every grad is set back to 0 before the next backward pass: backward() adds into each grad with '),
               ('c', '+='), ('', ', so the grads this pass left would be added to.')]),
        ('code', 'for p in parameters:\n    p.grad = 0.0'),
        ('p', [('', f'The parameters’ grads ({", ".join(names)}) are 0 now; the other values, the data and the ops, '
                    'are made again by the forward pass, each with '), ('c', 'grad = 0.0'),
               ('', ' as a new Value starts. The page shows a grad that no backward pass has added to yet as ·, as at '
                    'the start of every pass.')]),
        ('p', [('b', 'Forward again. '),
               ('', 'Each op computes its data again from the new parameters; until then it shows ·.')]),
    ]  # fmt: skip


def _update_parts(p, lr, k, n):
    return [
        ('p', [('b', f'Learning, parameter {k + 1} of {n}. '),
               ('', 'Each parameter takes a small step against its grad, the way that makes the loss smaller:')]),
        ('code', f'for p in parameters:\n    {UPDATE}'),
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
        return said + f' lr = {number_word(lr)} is too large here: the step overshoots. Try a smaller one.'
    return said + ' Another backward pass, another step: that is the training loop.'


def update_table(learning):
    """The update, a row per parameter, its numbers as the page's other tables write them (view.numbers)."""
    rows = [(p.name, fmt(p.old), fmt(p.grad), fmt(-learning.lr * p.grad), fmt(p.new))
            for p in learning.update.params]  # fmt: skip
    columns = ['parameter', 'data before', 'grad', '−lr × grad', 'data after']
    return pd.DataFrame({c: [row[j] for row in rows] for j, c in enumerate(columns)})


def summary_html(learning):
    """At the end of the frames: the update as a table (the explanation beside it has the losses)."""
    intro = f'<p><b>One step of learning:</b> <code>{html.escape(UPDATE)}</code> for each parameter.</p>'
    return intro + update_table(learning).to_html(index=False, escape=True, border=0, classes='check')


# --- the loss over the steps, a plot per frame --------------------------------------------------------------------

HEIGHT = 224  # px; as wide as the chain's plot (view/depth_plot.py), in the same box of the player
LEFT, RIGHT, TOP, BOTTOM = 66, 18, 40, 44  # the margins around the plotting area
DOTS_UP_TO = 60  # points: more are drawn as the line alone


def shown_losses(trace, learning, pass_frames, n_updates, again):
    """How many of learning.descent.losses each frame's plot shows, the pass's frames then the tail's: a point is
    shown from the frame that computes it on. The passes before this one's: at every frame; this pass's loss: once
    its forward pass has computed the output; the loss after this step: once the forward pass again has."""
    k = learning.steps_taken
    counts = [k + 1 if frame.has_data(trace, trace.output) else k for frame in pass_frames]
    counts += [k + 1] * n_updates
    return counts + [k + 2 if frame.has_data(learning.after, learning.after.output) else k + 1 for frame in again]


def loss_plots(trace, learning, pass_frames, n_updates, again):
    """The loss over the learning steps at each frame of the pass and of its tail, as the player's body carries a plot
    (view.depth_plot.depth_plots: a frame's plot is head + parts[at[k]]); the frames that show the same points
    share one part. Our own SVG and HTML, every text escaped."""
    name, k, losses = trace.nodes[-1].name, learning.steps_taken, learning.descent.losses
    counts = shown_losses(trace, learning, pass_frames=pass_frames, n_updates=n_updates, again=again)
    looks = sorted(set(counts))
    parts = [_loss_part(name, losses[:count], k) + _loss_words_html(name, losses, count, k) for count in looks]
    return {'head': _loss_head(name, k), 'parts': parts, 'at': [looks.index(count) for count in counts]}


def steps_text(j):
    return '1 step' if j == 1 else f'{j} steps'


def _when(j):
    """The loss after j steps, as the plot names it: 'before any step', 'after 1 step'."""
    return 'before any step' if j == 0 else f'after {steps_text(j)}'


def _x(j, k):
    """Where the loss after j steps goes: 0 at the left, k + 1 (after this step) at the right."""
    return LEFT + (WIDTH - LEFT - RIGHT) * j / (k + 1)


def nice_ticks(lo, hi, integers=False):
    """Round numbers from at or below lo to at or above hi, 3 to 6 of them: 0, 0.5, 1, 1.5."""
    span = hi - lo
    if not (math.isfinite(span) and span > 0):
        return [lo, hi] if hi > lo else [lo, lo + 1]
    magnitude = 10.0 ** math.floor(math.log10(span / 4))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= span / 5)
    if integers:
        step = max(1, round(step))
    first, last = math.floor(lo / step), math.ceil(hi / step)
    ticks = [i * step for i in range(first, last + 1)]
    return ticks if math.isfinite(ticks[0]) and math.isfinite(ticks[-1]) else [lo, hi]  # near the largest float


def _loss_head(name, k):
    """The plot's opening and what no frame changes: the title, the steps along the bottom, the place of this step's
    new loss (a dashed line at k + 1)."""
    bottom = HEIGHT - BOTTOM
    label = html.escape(f'The loss, {name}, over the learning steps')
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}"'
        f' {PLOT_FONT} role="img" aria-label="{label}">'
        f'<defs><marker id="loss-dot" viewBox="0 0 8 8" refX="4" refY="4" markerWidth="8" markerHeight="8"'
        f' markerUnits="userSpaceOnUse"><circle cx="4" cy="4" r="3.5" fill="{PLOT_LINE}"/></marker></defs>',
        svg_text(LEFT, 16, 'Loss over the learning steps', 'start', INK, ' font-weight="600"'),
        f'<path d="M{_x(k + 1, k):.1f} {TOP}V{bottom}" stroke="{AXIS}" stroke-dasharray="4 4"/>',
    ]
    for j in (j for j in nice_ticks(0, k + 1, integers=True) if j <= k + 1):
        out.append(svg_text(_x(j, k), bottom + 17, str(j)))
    out.append(svg_text(LEFT + (WIDTH - LEFT - RIGHT) / 2, bottom + 38, 'learning steps taken (dashed: this step)'))
    middle = TOP + (bottom - TOP) / 2
    out.append(svg_text(14, middle, name, extra=f' transform="rotate(-90 14 {middle:.1f})"'))
    return ''.join(out)


def _loss_part(name, shown, k):
    """The rest of the plot, for the losses shown (those after 0, 1, ... steps): the axis they are drawn against,
    their line with a dot at each (data-points: how many), the last ringed and written at the top right, and
    '</svg>'. A nan or inf loss is a hollow dot at the top, off the line."""
    bottom = HEIGHT - BOTTOM
    finite = [v for v in shown if math.isfinite(v)]
    ticks = nice_ticks(min([0.0, *finite]), max([0.0, *finite])) if finite else []  # no axis before a point
    lo, hi = (ticks[0], ticks[-1]) if ticks else (0.0, 1.0)

    def y(v):
        return TOP if not math.isfinite(v) else bottom - (bottom - TOP) * ((v - lo) / (hi - lo))  # no overflow

    out = []
    for v in ticks:
        out.append(f'<path d="M{LEFT} {y(v):.1f}H{WIDTH - RIGHT}" stroke="{GRID}"/>')
        out.append(svg_text(LEFT - 6, y(v) + 4, tick_label(v), 'end'))
    out.append(f'<path d="M{LEFT} {TOP}V{bottom}H{WIDTH - RIGHT}" fill="none" stroke="{AXIS}"/>')
    runs, run = [], []  # the line, broken where a loss is not finite
    for j, v in enumerate(shown):
        if math.isfinite(v):
            run.append(f'{_x(j, k):.1f} {y(v):.1f}')
        else:
            out.append(f'<circle cx="{_x(j, k):.1f}" cy="{TOP}" r="4" fill="white" stroke="{PLOT_LINE}"/>')
            runs, run = runs + [run] * bool(run), []
    runs += [run] * bool(run)
    if runs:
        dots = ' '.join(f'marker-{end}="url(#loss-dot)"' for end in ('start', 'mid', 'end'))
        line = ''.join(f'M{"L".join(r)}' for r in runs)
        out.append(
            f'<path class="pts" data-points="{len(shown)}" d="{line}" fill="none" stroke="{PLOT_LINE}"'
            f' stroke-width="1.5"{" " + dots if len(shown) <= DOTS_UP_TO else ""}/>'
        )
    if shown:
        j, v = len(shown) - 1, shown[-1]
        ring = f'cx="{_x(j, k):.1f}" cy="{y(v):.1f}" r="6.5" fill="none" stroke="{ACTIVE}" stroke-width="2.5"'
        out.append(f'<circle class="now" {ring}/>')
        said = f'{name} {_when(j)}: {number(v)}'
        out.append(svg_text(WIDTH - RIGHT, 16, said, 'end', ACTIVE, ' font-weight="600"'))
    return ''.join(out) + '</svg>'


def _loss_words_html(name, losses, count, k):
    """The line under the plot: which points it shows, and when the next one comes."""
    if count == k + 2:
        old, new = losses[k], losses[k + 1]
        words = f'After this step: {name} {number(old)} → {number(new)}. {_compared(old, new)}'
    else:
        before = {0: '', 1: f'{name} before any step, from the pass before this one. '}.get(
            k, f'{name} from the {k} passes before this one, after 0 to {steps_text(k - 1)}. '
        )
        if count == k:
            this = f'This pass’s {name}, {_when(k)}, appears when its forward pass computes it; '
        else:
            this = f'This pass: {name} = {number(losses[k])}, {_when(k)}. '
        words = before + this + f'{name} after this step appears at the end of the frames, when the forward pass again '
        words += 'computes it.'
    return f'<p class="wline">{html.escape(words)}</p>'
