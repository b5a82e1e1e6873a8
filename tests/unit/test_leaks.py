"""No answer leaks while grads are hidden or asked (issue 18, 2.1): for every preset, in hide=new, hide=all and the
quiz, at every frame, nothing the player is sent for that frame shows a hidden grad, the local gradient of a hidden
grad, or the contribution made from it.

The bodies are made by make_body, as the page makes them (the quiz's: up to each question, without the check; in the
presentation view, the whole pass). What is forbidden is worked out here from the trace's raw floats, written as the
page writes numbers (view.numbers.fmt). A forbidden number can still be on the page for a reason of its own
(a local gradient of 1.0000 where the upstream grad is 1.0000 too, or a data value): so each text is allowed the
visible numbers it may name, each as often as it may name them, and a leak is a forbidden number found more often than
that. The sums and the edge labels must also say '?' for the local gradient itself, not only for the result: a line
`e.grad += d.grad = −2.0000 = ?` names no forbidden number beyond the upstream grad, and still gives the answer.
"""

import html
import json
import re
from collections import Counter

import pytest

from components.learning import learning_after
from engine import PRESETS, learn
from engine.frames import frames
from server.cache import traced
from view.depth_plot import plot_html
from view.graph import build_dot
from view.numbers import fmt, number_width
from view.player_body import make_body

HIDDEN = '?'
NOTHING = Counter()  # a text that may name no forbidden number
NUMBER = re.compile(r'[-−]?(?:\d+\.\d+(?:e[-+]\d+)?|inf)|nan')  # a number as fmt writes it, with either minus


def numbers_in(text):
    """Counter of the numbers in `text`, each written as fmt writes it (a true minus read as '-')."""
    return Counter(token.replace('−', '-') for token in NUMBER.findall(text))


def written(values):
    return Counter(fmt(x).replace('−', '-') for x in values if x is not None)


def text_of(markup):
    """The text of the player's HTML, a line for each paragraph, item and line break."""
    lines = re.sub(r'<br>|</p>|</li>|</pre>|</tr>', '\n', markup)
    return html.unescape(re.sub(r'<[^>]*>', ' ', lines))


def replay(patches):
    """Each frame's (looks {node: look}, edge labels {op_slot: label}), as player.js applies the patches."""
    looks, labels, out = {}, {}, []
    for patch in patches:
        looks.update({i: look for i, *look in patch['v']})
        labels.update({key: label for key, label in patch['e']})
        out.append((dict(looks), {k: v for k, v in labels.items() if v}))
    return out


# --- what a frame hides, from the trace --------------------------------------------------------------------------


def hidden_at(trace, frame, hide):
    """The nodes whose grad the frame hides: every grad but the seed's (hide=all), or the grads this step writes
    (hide=new, and a quiz's question)."""
    if frame.kind in ('inputs', 'forward'):
        return set()
    if hide == 'all':
        return set(range(len(trace.nodes))) - {len(trace.nodes) - 1}
    if frame.kind == 'backward' and (hide == 'new' or frame.ask):
        return set(trace.nodes[frame.node].children)
    return set()


def unrevealed(trace, frame, hidden, hide):
    """The contributions no frame so far has shown the result of: this step's into a hidden grad, and with hide=all
    every step's so far."""
    if frame.kind != 'backward':
        return []
    done = range(frame.steps_done) if hide == 'all' else [frame.steps_done - 1]
    return [(k, c) for k in done for c in trace.steps[k].contributions if c.child in hidden]


class Frame:
    """What frame k may and may not show, worked out from the trace's floats."""

    def __init__(self, trace, frame, hide, right):
        self.hidden = hidden_at(trace, frame, hide)
        grads = trace.grads(frame.steps_done) if frame.steps_done >= 0 else [None] * len(trace.nodes)
        right_grads = right.grads(frame.steps_done) if right is not None and frame.steps_done >= 0 else None
        self.grads, self.right_grads = grads, right_grads
        self.unrevealed = unrevealed(trace, frame, self.hidden, hide)
        values = [x for _, c in self.unrevealed for x in (c.local_grad, c.amount, c.after)]
        values += [grads[i] for i in self.hidden]
        if right is not None:  # beside `=`: what += gives the same grads, and the contributions it adds
            values += [right_grads[i] for i in self.hidden]
            values += [x for k, c in self.unrevealed for x in (lambda r: (r.amount, r.after))(
                right.steps[k].contributions[c.slot])]  # fmt: skip
        self.forbidden = written(values)
        self.forbidden_size = written([abs(x) for x in values if x is not None])  # the chain's plot draws |grad|
        visible = [i for i, g in enumerate(grads) if g is not None and i not in self.hidden]
        shown = [grads[i] for i in visible] + ([right_grads[i] for i in visible] if right_grads is not None else [])
        self.visible_grads, self.visible_sizes = written(shown), written(abs(x) for x in shown)
        step = trace.steps[frame.steps_done - 1] if frame.kind == 'backward' else None
        self.op_step = step if step is not None and trace.nodes[frame.node].op else None
        self.upstream = written([step.out_grad] if step is not None and frame.node not in self.hidden else [])
        self.own_data = written([trace.nodes[frame.node].data] if self.op_step else [])
        # the grads before this step, shown at the frame before (a*a's second write starts from its first: not shown)
        revealed, firsts = [], set()
        for c in step.contributions if step is not None and hide != 'all' else ():
            if c.child not in firsts and c.before is not None:
                revealed.append(c.before)
            firsts.add(c.child)
        self.revealed = written(revealed)
        # the `=` engine names the contribution each write threw away: shown, unless no frame has shown it yet
        lost = {(k, c.slot) for k, c in self.unrevealed}
        thrown = [c.overwrote for c in step.contributions if c.overwrote is not None] if step is not None else []
        self.thrown = written(trace.steps[k].contributions[slot].amount for k, slot in thrown if (k, slot) not in lost)

    def leaks(self, text, allowed=NOTHING, sizes=False):
        """The forbidden numbers found in `text` (or its numbers_in) more often than `allowed` lets it name them."""
        found = numbers_in(text) if isinstance(text, str) else text
        forbidden = self.forbidden + self.forbidden_size if sizes else self.forbidden
        return {x: found[x] for x in forbidden if found[x] > allowed[x]}


# --- the bodies the page sends ---------------------------------------------------------------------------------


def pages(key):
    """(what, trace, frames, hide, right, body) for each way the page can hide grads on preset `key`."""
    expression = PRESETS[key]
    values = tuple(expression.defaults.items())
    trace, width, numeric = traced(expression=expression, values=values)
    for leaves in (True, False):
        for hide in ('new', 'all'):
            watch = frames(trace, leaves=leaves, hide=hide)
            yield f'watch hide={hide}', trace, watch, hide, None, body(trace, watch, width, numeric)
            wrong, wrong_width, _ = traced(expression=expression, values=values, engine='assigns')
            both = max(width, wrong_width)
            bug = frames(wrong, leaves=leaves, hide=hide)
            yield f'bug hide={hide}', wrong, bug, hide, trace, body(wrong, bug, both, numeric, 'bug', right=trace)
            if learn.applies(expression):
                learning, _ = learning_after(expression, dict(values), learn.DEFAULT_LR, 0)
                wide = max(width, number_width(learning.after))
                yield (
                    f'learn hide={hide}',
                    trace,
                    watch,
                    hide,
                    None,
                    body(trace, watch, wide, numeric, learning=learning),
                )
        quiz = frames(trace, leaves=leaves, ask=True)
        for at in (k for k, f in enumerate(quiz) if f.ask):  # the quiz panel's page: up to its question, no check
            yield f'quiz at {at}', trace, quiz[: at + 1], 'none', None, body(trace, quiz[: at + 1], width, None)
        yield 'quiz presented', trace, quiz, 'none', None, body(trace, quiz, width, numeric)


def body(trace, all_frames, width, numeric, mode='watch', right=None, learning=None):
    graph = {'dot': build_dot(trace, None, width).source}  # the layout: the same value-free DOT the page lays out
    made = make_body(trace, all_frames, width=width, numeric=numeric, graph=graph, mode=mode, right=right,
                     learning=learning)  # fmt: skip
    return json.loads(made)


def frame_leaks(trace, all_frames, hide, right, body, first=0):
    """Every leak in `body` at frames `first` on, as [(frame, where, what)]."""
    out = []
    states = replay(body['patches'])
    layout = numbers_in(body.get('svg') or body.get('dot') or '')
    finals = body['table']['finals']
    for k, frame in enumerate(all_frames):
        if k < first:
            continue
        f = Frame(trace, frame, hide, right)
        if not f.forbidden and not f.hidden:
            continue

        def leak(where, text, allowed=NOTHING, sizes=False, f=f, k=k):
            found = f.leaks(text, allowed, sizes)
            if found:
                out.append((k, where, text if isinstance(text, str) and len(text) < 300 else found))

        looks, labels = states[k]
        for i, (_data, grad, _state, _mark, *beside) in looks.items():
            if i in f.hidden and any(text.strip() not in (HIDDEN, '·') for text in (grad, *beside)):
                out.append((k, f'box of {trace.nodes[i].name}', (grad, *beside)))
            if i not in f.hidden and f.grads[i] is not None and grad.strip() != fmt(f.grads[i]):
                out.append((k, f'box of {trace.nodes[i].name} shows another number', grad))
        if f.op_step is not None and f.hidden:
            for c in f.op_step.contributions:
                label = labels.get(f'{f.op_step.node}_{c.slot}', '')
                leak('edge label', label, f.upstream)
                if c.child in f.hidden and label.count(HIDDEN) < 2:  # the local gradient is asked for, as is the sum
                    out.append((k, 'edge label gives the local gradient', label))
        lost = {(j, c.slot) for j, c in f.unrevealed}  # the `=` engine strikes a thrown-away edge's own label through
        # pages() gives a right trace on the `=` engine's pages alone
        for c in f.op_step.contributions if f.op_step is not None and right is not None else ():
            if c.overwrote in lost:
                earlier = trace.steps[c.overwrote[0]]
                upstream = written([earlier.out_grad] if earlier.node not in f.hidden else [])
                leak('struck label', labels.get(f'{earlier.node}_{c.overwrote[1]}', ''), upstream)
        rules = body['rules'][k]
        for line in rules:
            leak('sums', line, f.upstream)
            if f.op_step is not None and f.hidden and line.count(HIDDEN) < 2:
                out.append((k, 'sums give the local gradient', line))
        leak('caption', body['captions'][k], f.thrown)
        explanation = text_of(body['explanations'][k])
        n = len(f.op_step.contributions) if f.op_step else 0
        # a thrown-away amount twice: where `=` replaced it, and after its row's grad, '✗ lost 3.0000'
        allowed = f.upstream + Counter({x: n * m for x, m in f.upstream.items()}) + f.own_data + f.revealed
        allowed += f.thrown + f.thrown
        leak('explanation', explanation, allowed + f.visible_grads)
        if f.op_step is not None and f.hidden:
            if 'passes the grad through' in explanation:
                out.append((k, 'explanation says the grad passes through (local gradient ±1)', explanation))
            for said in re.findall(r'local gradient(?: for [^\n]*?:)? ([^\n]*)$', explanation, flags=re.M):
                if said.strip() != HIDDEN:
                    out.append((k, 'explanation gives a local gradient', said))
        if k == len(body['patches']) - 1 and body['summary']:  # player.js shows the check at the last frame only
            leak('summary', text_of(body['summary']), f.visible_grads + f.visible_grads)
        if body['plots']:
            leak('plot', text_of(plot_html(body['plots'], k)), f.visible_grads + f.visible_sizes, sizes=True)
        leak('layout', layout)
        if any(x != HIDDEN for x in finals):
            out.append((k, 'the table’s answers', finals))
    return out


CASES = [(key, what) for key in PRESETS for what in ('watch', 'bug', 'learn', 'quiz')]


@pytest.mark.parametrize(('key', 'kind'), CASES)
def test_no_hidden_or_asked_grad_leaks_in_what_the_player_is_sent(key, kind):
    checked = 0
    for what, trace, all_frames, hide, right, sent in pages(key):
        if not what.startswith(kind):
            continue
        first = len(all_frames) - 1 if what.startswith('quiz at') else 0  # before it: as in the whole pass, checked
        leaks = frame_leaks(trace, all_frames, hide, right, sent, first)
        assert not leaks, f'{key}, {what}: {leaks[:6]}'
        checked += 1
    if kind == 'learn' and not learn.applies(PRESETS[key]):
        assert checked == 0
    else:
        assert checked > 0


def test_the_check_finds_the_leaks_it_is_for():
    """The check itself: the issue's own lines, where they were sent, are leaks; the same lines with the local
    gradient asked for are not."""
    expression = PRESETS['lecture']  # L = d·f, d = e + c, e = a·b; a 2, b −3, c 10, f −2
    trace = traced(expression=expression, values=tuple(expression.defaults.items()))[0]
    all_frames = frames(trace)
    k = next(k for k, f in enumerate(all_frames) if f.kind == 'backward' and trace.nodes[f.node].name == 'd')
    f = Frame(trace, all_frames[k], 'new', None)
    assert f.leaks('1.0000 × −2.0000\n\n= ?', f.upstream)  # the edge label: the local gradient 1
    assert not f.leaks('? × −2.0000\n\n= ?', f.upstream)
    assert not f.leaks('e.grad += d.grad = −2.0000 = ?', f.upstream)  # no number too many: the '?' rule catches it
    assert f.leaks('e.grad += d.grad = −2.0000 = −2.0000', f.upstream)
    q = next(k for k, f in enumerate(all_frames) if f.kind == 'backward' and trace.nodes[f.node].name == 'L')
    f = Frame(trace, all_frames[q], 'new', None)
    assert f.leaks('d.grad += f.data × L.grad = −2.0000 × 1.0000 = ?', f.upstream)  # the quiz's bullet: f = −2


@pytest.mark.parametrize('key', ['chain', 'reuse'])
def test_a_body_that_hides_nothing_leaks_in_every_place_the_check_reads(key):
    """The check is not blind: the body the page sends with every grad shown, read as if it hid the new grads, leaks
    in the boxes, on the edges, in the sums, the explanation, the plot (the chain's) and the check at the end."""
    expression = PRESETS[key]
    trace, width, numeric = traced(expression=expression, values=tuple(expression.defaults.items()))
    all_frames = frames(trace, leaves=False)  # the last frame is a step's own, whose grads hide=new hides
    shown = body(trace, all_frames, width, numeric)
    wheres = {where.split(' of ')[0] for _, where, _ in frame_leaks(trace, all_frames, 'new', None, shown)}
    expected = {'box', 'edge label', 'edge label gives the local gradient', 'sums', 'sums give the local gradient',
                'explanation', 'explanation gives a local gradient', 'summary', 'the table’s answers'}  # fmt: skip
    assert expected | ({'plot'} if key == 'chain' else set()) <= wheres
