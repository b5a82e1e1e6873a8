"""The chain's lesson, drawn: |grad| along the chain's main path as the backward pass reaches it, on a log scale.

For the chain preset only (chain_path says where it applies): a small SVG per frame, made here like the
explanations are (every text escaped), sent once in the player's body and shown by the player at each step.
Frames that look the same share one SVG, and a long chain shows at most MAX_POINTS of its path, so the body
stays small. A line under the plot says why w's grad is the largest: it collects += from every use (or how the
code that ran writes it instead).
"""

import bisect
import html
import math
import re

from view.numbers import fmt, power_label
from view.palette import ACTIVE, INK, PLOT_FONT, PLOT_LINE

ZERO_ROW = 22  # px under the lowest decade for grads that are 0 (or too small for a float)
MAX_POINTS = 64  # a longer path is thinned to every s-th node (s even: all h's), its ends kept
WIDTH, HEIGHT = 560, 236  # the SVG's size in px, drawn at this size (or narrower, never larger)
LEFT, RIGHT, TOP, BOTTOM = 66, 18, 46, 48  # the margins around the plotting area: room for the axes' labels
AXIS, GRID = '#6B6B6B', '#E6E9EF'  # the plots' greys: axes and words (darker than the graph's FAINT), the grid


def chain_path(trace):
    """The chain's main path from the output back to x: [h_n, z_n, h_(n-1), …, h1, z1, x] as node indices.

    None for anything but the chain preset's shape (h_k = tanh(z_k), z_k = h_(k-1) × w, h_0 = x, with x and w
    inputs): the plot applies there only, and every other expression gets no plot.
    """
    nodes = trace.nodes
    w = next((i for i, node in enumerate(nodes) if node.name == 'w' and node.is_input and not node.op), None)
    top = nodes[trace.output]
    n = int(top.name[1:]) if re.fullmatch(r'h[1-9][0-9]*', top.name) else 0
    if w is None or n == 0:
        return None
    path, i = [], trace.output
    for k in range(n, 0, -1):
        h = nodes[i]
        if h.name != f'h{k}' or h.op != 'tanh' or len(h.children) != 1:
            return None
        z = nodes[h.children[0]]
        if z.name != f'z{k}' or z.op != '*' or len(z.children) != 2 or z.children[1] != w:
            return None
        path += [i, h.children[0]]
        i = z.children[0]
    x = nodes[i]
    if x.name != 'x' or not x.is_input or x.op:
        return None
    return path + [i]


def shown_points(length, most=MAX_POINTS):
    """Which places along a path of `length` nodes the plot shows: all, or every s-th (s even), the ends kept."""
    if length <= most:
        return list(range(length))
    stride = math.ceil((length - 1) / (most - 1))
    stride += stride % 2  # an even stride keeps to the h's: a thinned path does not zigzag between h and z
    return sorted(set(range(0, length, stride)) | {length - 1})


def w_uses(trace):
    """(w's node index, how many input slots use it): the chain's w is used once per step."""
    w = next(i for i, node in enumerate(trace.nodes) if node.name == 'w' and node.is_input)
    return w, sum(node.children.count(w) for node in trace.nodes)


def w_facts(trace):
    """What the w line is worked out from: (w's node index, its uses, the steps that wrote its grad, the grads left,
    how each of those steps' lines wrote it: '+=', '=', '-='). A student's `_backward` for × may never write
    other.grad: then no step writes w's, and the last three are empty."""
    w, uses = w_uses(trace)
    history = trace.grad_history(w)
    steps = tuple(k for k, _ in history)
    hows = tuple(c.how for k in steps for c in trace.steps[k].contributions if c.child == w)
    return w, uses, steps, tuple(g for _, g in history), hows


def w_line(trace, frame, facts=None):
    """One line on w's grad at this frame, worked out from the trace: its uses, how the code writes it (+=, or
    = on the `=` engine and in a student's ×, or -=), and once every use has written it, its grad.

    '' before the backward pass reaches w; no number while w's grad has more to come or the frame hides it.
    """
    w, uses, written, grads, hows = facts or w_facts(trace)
    history = grads[: bisect.bisect_left(written, frame.steps_done)]  # step k (from 0) is done after k + 1 steps
    steps = f'all {uses} steps' if uses > 1 else 'the one step'
    if not history:
        return ''
    waiting = len(history) < uses or w in frame.hidden  # the same line till the last write
    if set(hows) == {'='}:  # each use's write replaces the one before: the `=` engine's, or a student's ×
        if waiting:
            return f'w is used in {steps} of the chain: with =, each use replaces the grad the use before wrote.'
        return f"w's grad, {fmt(history[-1])}, is its last use's contribution alone: = threw the others away."
    if set(hows) != {'+='}:  # a student's × that subtracts, or writes with more than one sign
        said = ' and '.join(dict.fromkeys(hows))
        if waiting:
            return f'w is used in {steps} of the chain: your × writes its grad with {said}, one use a step back.'
        return f"w's grad, {fmt(history[-1])}, is final: w is used in {steps}, and your × writes its grad with {said}."
    if waiting:
        return f'w is used in {steps} of the chain: its grad collects += from each use, one a step back.'
    x = chain_path(trace)[-1]
    x_grad = trace.grads(frame.steps_done)[x]
    largest = x_grad is not None and abs(history[-1]) > abs(x_grad)
    said = 'is the largest input grad' if largest else 'is final'
    if uses == 1:
        return f"w's grad, {fmt(history[-1])}, {said}: w is used once, so one += makes it."
    return f"w's grad, {fmt(history[-1])}, {said}: w is used in {steps}, and its grad collects += from each."


def _y_range(values):
    """Whole decades around the finite non-zero values (log10), at least one decade."""
    logs = [math.log10(v) for v in values if v > 0 and math.isfinite(v)]
    if not logs:
        return -1, 1
    lo, hi = math.floor(min(logs)), math.ceil(max(logs))
    return (lo, hi) if hi > lo else (lo, lo + 1)


class _Axes:
    """Where a path place and an |grad| go in the SVG: x at the left, h_n at the right, as the graph lays them out."""

    def __init__(self, length, lo, hi, zeros=False):
        self.length, self.lo, self.hi, self.zeros = length, lo, hi, zeros
        self.w, self.h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
        self.decades = self.h - (ZERO_ROW if zeros else 0)  # a log scale has no 0: zeros get a row of their own

    def x(self, j):  # j: the place along the path, 0 the output
        return LEFT + self.w * (1 - j / (self.length - 1)) if self.length > 1 else LEFT + self.w / 2

    def y(self, g):  # 0 on the floor, nan and inf at the ceiling
        if not math.isfinite(g):
            return TOP
        if g <= 0:
            return TOP + self.h
        share = (math.log10(g) - self.lo) / (self.hi - self.lo)
        return TOP + self.decades * (1 - min(1.0, max(0.0, share)))


def svg_text(x, y, text, anchor='middle', fill=AXIS, extra=''):
    """A plot's text at (x, y) px, escaped: the plots' (this one's and view/learning.py's) one way to write it."""
    return f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" fill="{fill}"{extra}>{html.escape(text)}</text>'


def _head(axes, names, stride):
    """The SVG's opening and everything no frame changes: the title, the axes and their labels."""
    a, out = axes, []
    label = html.escape('|grad| along the chain, on a log scale')
    out.append(
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}"'
        f' {PLOT_FONT} role="img" aria-label="{label}">'
        f'<defs><marker id="depth-dot" viewBox="0 0 8 8" refX="4" refY="4" markerWidth="8" markerHeight="8"'
        f' markerUnits="userSpaceOnUse"><circle cx="4" cy="4" r="3.5" fill="{PLOT_LINE}"/></marker></defs>'
    )
    out.append(
        svg_text(LEFT, 16, '|grad| along the chain, as backward() reaches it', 'start', INK, ' font-weight="600"')
    )
    step = next(s for s in (1, 2, 5, 10, 20, 25, 50, 100, 200, 500) if s * 5 >= a.hi - a.lo)  # 6 lines at most
    for e in (e for e in range(a.hi, a.lo - 1, -1) if e % step == 0):
        y = a.y(10.0**e)
        out.append(f'<path d="M{LEFT} {y:.0f}H{WIDTH - RIGHT}" stroke="{GRID}"/>')
        out.append(svg_text(LEFT - 6, y + 4, power_label(e), 'end'))
    if a.zeros:
        out.append(svg_text(LEFT - 6, TOP + a.h + 4, '0', 'end'))
    bottom = TOP + a.h
    out.append(f'<path d="M{LEFT} {TOP}V{bottom}H{WIDTH - RIGHT}" fill="none" stroke="{AXIS}"/>')
    ends = {0: names[0], a.length - 1: names[-1]}
    if a.length > 4:
        middle = (a.length - 1) // 2
        ends[middle - middle % 2] = names[middle - middle % 2]  # an h: the thinned plot shows the h's
    for j, name in ends.items():
        out.append(svg_text(a.x(j), bottom + 17, name))
    thinned = f', 1 in {stride} nodes shown' if stride > 1 else ''
    out.append(svg_text(LEFT + a.w / 2, bottom + 40, f'← the grad flows back along the chain{thinned}'))
    out.append(
        svg_text(14, TOP + a.h / 2, '|grad|, log scale', extra=f' transform="rotate(-90 14 {TOP + a.h / 2:.1f})"')
    )
    return ''.join(out)


def _part(axes, names, points, current):
    """What one look of the plot adds to the head: the points reached so far, [(place, |grad|)], as one line with a
    dot at each (data-points: how many), the current one (a place or None) ringed and named at the top right, the
    first (the output's) labelled beside it."""
    a, out = axes, []
    if points:
        line = 'L'.join(f'{a.x(j):.0f} {a.y(g):.0f}' for j, g in points)
        dots = ' '.join(f'marker-{end}="url(#depth-dot)"' for end in ('start', 'mid', 'end'))
        out.append(
            f'<path class="pts" data-points="{len(points)}" d="M{line}" fill="none" stroke="{PLOT_LINE}"'
            f' stroke-opacity="0.5" stroke-width="1.2" {dots}/>'
        )
        for j, g in points:
            if not (g > 0 and math.isfinite(g)):  # 0 on the floor, nan and inf at the ceiling: hollow
                out.append(f'<circle cx="{a.x(j):.0f}" cy="{a.y(g):.0f}" r="4" fill="white" stroke="{PLOT_LINE}"/>')
        (fj, fg), now = points[0], dict(points).get(current)
        if fj != current:  # the output's grad, that the others are measured against
            out.append(svg_text(a.x(fj) + 4, a.y(fg) - 9, f'{names[fj]}: {fmt(fg)}', 'end', INK))  # above it
        if current is not None:
            x, y = a.x(current), a.y(now)
            ring = f'cx="{x:.0f}" cy="{y:.0f}" r="6.5" fill="none" stroke="{ACTIVE}" stroke-width="2.5"'
            out.append(f'<circle class="now" {ring}/>')
            # the current one's name and |grad| at the top right, in its ring's colour: never over the points
            out.append(
                svg_text(WIDTH - RIGHT, 16, f'{names[current]}: {fmt(now)}', 'end', ACTIVE, ' font-weight="600"')
            )
    return ''.join(out) + '</svg>'


def _points(path, places, written, final, frame):
    """[(place, |grad|)]: the places shown whose grad the frame shows. Each node of the path is written once, at
    step written[i] (trace.final_after; the output at the seed), so its grad then is its final grad."""
    reached = (j for j in places if written[path[j]] <= frame.steps_done and path[j] not in frame.hidden)
    return [(j, abs(final[path[j]])) for j in reached]


def plot_points(trace, frame):
    """[(node index, |grad|)]: the points shown at `frame`, from the output back; [] where there is no plot."""
    path = chain_path(trace)
    if path is None or frame.hide == 'all':
        return []
    points = _points(path, shown_points(len(path)), trace.final_after(), trace.final_grads(), frame)
    return [(path[j], g) for j, g in points]


def depth_plots(trace, all_frames):
    """The plot for each frame, or None where it does not apply (not the chain) or would tell the answers (hide=all).

    {'head': the SVG's opening with its axes, 'parts': [the rest of a distinct look: the points, '</svg>', a <p> on
    w's grad], 'at': [for each frame, its look's index in 'parts']}: a frame's plot is head + parts[at[k]], and
    frames that look the same share one part. Our own SVG and HTML, every text escaped. w's line says how the code
    that ran writes w's grad (w_line).
    """
    path = chain_path(trace)
    if path is None or any(f.hide == 'all' or f.wrt >= 0 for f in all_frames):  # forward mode: no grads to plot
        return None
    names = [trace.nodes[i].name for i in path]
    places = shown_points(len(path))
    stride = places[1] - places[0] if len(places) > 1 else 1
    final = trace.final_grads()
    shown = [abs(final[path[j]]) for j in places]
    axes = _Axes(len(path), *_y_range(shown), zeros=0 in shown)
    parts, index, at = [], {}, []
    written, facts = trace.final_after(), w_facts(trace)
    for frame in all_frames:
        points = _points(path, places, written, final, frame)
        current = points[-1][0] if points else None
        words = w_line(trace, frame, facts)
        key = (len(points), current, words)
        if key not in index:
            index[key] = len(parts)
            wline = f'<p class="wline">{html.escape(words)}</p>' if words else ''
            parts.append(_part(axes, names, points, current) + wline)
        at.append(index[key])
    return {'head': _head(axes, names, stride), 'parts': parts, 'at': at}


def plot_html(plots, k):
    """Frame k's plot as the player shows it: what player.js's go(k) puts in the page ('' for no plot)."""
    return plots['head'] + plots['parts'][plots['at'][k]] if plots else ''
