"""The bulk of what the player is sent for one expression and its inputs: the layout, then each frame's patch,
caption, explanation, sums and node table, made once here and encoded as JSON (components/player draws it)."""

import json

from view import forward
from view.depth_plot import depth_plots
from view.explanation import caption, explain, explanation_html, frame_rules
from view.graph import LEGEND, blank_label, label_width, legend_html, legend_keys
from view.learning import learning_tail
from view.modes import MODE
from view.names import frame_labels, frame_suffixes
from view.node_table import table_columns
from view.numbers import HIDDEN
from view.patches import frame_patches
from view.summary import grad_check, summary_html


def make_body(
    trace, all_frames, *, width, numeric, graph, mode='watch', right=None, learning=None, in_pass=None, mistakes=(),
    verdicts=(), params=(),
):  # fmt: skip
    """The graph (server_layout's {'svg'} or browser_layout's {'dot', …}) with each frame's patch, caption,
    explanation, sums and node table, encoded for the player; the grads each frame hides (frame.hidden) show '?' in
    all of them, and hiding every grad leaves out the grad check too, as do a last frame that hides grads and
    `numeric` None (a quiz not finished). `mode` (view/modes.py's name): where its row has a view module, `right` is
    the right trace beside `trace`, and that module adds its own parts (a student's `mistakes`, engine.diagnosis
    .diagnose's, are named at the first difference, and at the end beside the grader's `verdicts`); `learning`
    (view.learning.Learning) adds the frames of one step of learning after the pass. Each frame's number, as its
    caption says it, and its file's (names.frame_numbers) count `in_pass` frames in the pass where given (a quiz held
    at its question counts the whole pass as watched). Forward mode's last frame counts what each way costs, the
    parameters' grads (`params`) too."""
    beside, assigns = MODE[mode].view, MODE[mode].engine == 'assigns'
    every_frame = beside is not None and beside.EVERY_FRAME
    patches = frame_patches(trace, all_frames, width=width, right=right, every_frame=every_frame)
    captions = [caption(trace, f) for f in all_frames]
    parts = [explain(trace, f, assigns, right) for f in all_frames]
    marks = []
    if beside is not None:  # the mode's own parts, beside the right trace
        labels = frame_labels(all_frames, in_pass, 0)
        added, more, marks = beside.frame_texts(trace, right, frames=all_frames, labels=labels, mistakes=mistakes)
        captions = [c + a for c, a in zip(captions, added)]
        parts = [p + m for p, m in zip(parts, more)]
    explanations = [explanation_html(p) for p in parts]
    rules = [frame_rules(trace, f, assigns, right) for f in all_frames]
    plots = depth_plots(trace, all_frames)
    last = all_frames[-1]
    # the check, at the last frame, would show the grads it hides (hide=new without the leaves' steps)
    if last.hide == 'all' or numeric is None or last.hidden:
        summary = ''
    elif last.wrt >= 0:  # forward mode: the output's tangent beside the backward pass's grad
        summary = forward.summary_html(trace, last.wrt, numeric, params)
    elif beside is not None:
        summary = beside.summary_html(trace, right, numeric, mistakes=mistakes, verdicts=verdicts)
    else:
        summary = summary_html(grad_check(trace, numeric), trace.nodes[-1].name)
    if learning is not None:
        tail = learning_tail(trace, learning, width=width, pass_patches=patches, pass_frames=all_frames)
        patches += tail.patches
        captions += tail.captions
        explanations += tail.explanations
        rules += tail.rules
        summary, plots = tail.summary, tail.plots  # the loss over the steps (the chain has no loss to learn)
    after = len(captions) - len(all_frames)  # the learning step's frames
    count = None if in_pass is None else in_pass + after
    labels, files = frame_labels(all_frames, count, after), frame_suffixes(all_frames, count, after)
    table = table_columns(trace, beside, right, last.wrt)
    if last.hide != 'none' or any(f.ask for f in all_frames):
        table['finals'] = [HIDDEN] * len(trace.nodes)  # the answers are never sent where grads are asked for
    return encode_body(
        graph, patches, blank_label(width, label_width(trace, width)),
        captions=captions, explanations=explanations, rules=rules, table=table, near=neighbours(trace),
        summary=summary, plots=plots, legend=legend(patches, last), labels=labels,
        files=files, marks=marks,
    )  # fmt: skip


def legend(patches, frame):
    """The legend under the player: the looks its frames' patches draw (graph.legend_keys), in every mode; said of
    tangents where the frames carry them (forward mode)."""
    return legend_html(legend_keys(patches, tangents=frame.wrt >= 0))


def neighbours(trace):
    """Per value: [its inputs, the values it feeds], which the player keeps in sight with it when it scrolls."""
    feeds = [[] for _ in trace.nodes]
    for i, node in enumerate(trace.nodes):
        for child in dict.fromkeys(node.children):
            feeds[child].append(i)
    return [[list(dict.fromkeys(node.children)), feeds[i]] for i, node in enumerate(trace.nodes)]


def encode_body(
    graph, patches, blank, captions, explanations, table, summary, rules=(), plots=None, near=(), legend=LEGEND,
    labels=None, files=None, marks=()
):  # fmt: skip
    """The bulk of what the player is sent, for one expression, its inputs and the forward switch: encoded once.

    graph: the layout, {'svg': dot's SVG}, or what the browser lays out itself (browser_layout).
    blank: what an edge that carries nothing shows (graph.blank_label), its lines joined by a newline.
    captions, explanations: one per frame (plain text; HTML made by view.explanation).
    rules: one list of plain-text lines per frame, the presentation view's sums (explanation.frame_rules).
    table: {'names': [...], 'ops': [...], 'finals': [...]}, the node table's columns that no frame changes;
    the others are the value boxes' own texts. summary: the grad check's HTML, shown at the last frame.
    plots: the chain's |grad| plot (view.depth_plot.depth_plots) or learning's loss plot
    (view.learning.loss_plots), or None where neither applies.
    near: per value, [its inputs, the values it feeds] (neighbours), kept in sight with it when the view scrolls.
    labels, files: per frame, 'Frame 3 of 16' before its caption and '_f03' in a saved frame's file name
    (names.frame_labels, names.frame_suffixes); by default the frames counted from 1.
    marks: the frames the slider marks: a student's first difference from the right engine.
    """
    body = {
        **graph, 'patches': patches, 'blank': blank, 'legend': legend,
        'captions': captions, 'explanations': explanations, 'table': table, 'summary': summary,
        'rules': list(rules) or [[] for _ in patches], 'plots': plots, 'near': list(near),
        'labels': frame_labels([], after=len(patches)) if labels is None else list(labels),
        'files': frame_suffixes([], after=len(patches)) if files is None else list(files), 'marks': list(marks),
    }  # fmt: skip
    return json.dumps(body, separators=(',', ':')).encode()
