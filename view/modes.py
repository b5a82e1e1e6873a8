"""What the page is for, one row a mode: its name in links, its label and help in the sidebar, when it does not apply
to a graph and why, the engine its trace runs on (with the right trace beside it, or alone), and the view module
that draws its own parts, and what it changes of the page (its flags). state.py takes the names and flags from here,
components/modes.py the labels and why_not, its page parts (PARTS) the engine, view/player_body.py the view module,
and app.py the flags; docs/adding-a-mode.md says how to add one.

A mode's view module (view.bug, view.exercise) draws what the mode adds beside the right trace, under these names:
COLUMN, the node table's column of the right grads beside 'grad now'; STATE_WORDS, a grad's state in the table's
words (view.node_table.STATE_WORDS with 'wrong'); EVERY_FRAME, whether a grad that is not the right one at a frame
is drawn wrong there, or only once it is final;
frame_texts(trace, right, frames, labels, mistakes), (what each caption adds, the parts each explanation adds, the
frames the slider marks); summary_html(trace, right, numeric, mistakes, verdicts), the check at the last frame
(the grader's `verdicts` on a student's bodies, engine/grader.py).
"""

import math
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

from engine import PRESETS, batch, learn
from view import bug, exercise

MAX_QUIZ_VALUES = 200  # a question a step: past this a quiz is a chore, and each answer sends the player anew


def always(expression, trace):
    return None


def needs(applies, what):
    """A mode's why_not where it applies to the expressions `applies` accepts: else "`what`: pick one of the
    examples that have it", named from PRESETS."""

    def why_not(expression, trace):
        if applies(expression):
            return None
        having = ' or '.join(f'"{e.menu}"' for e in PRESETS.values() if applies(e))
        return (f'{what}: pick {having} among the examples. This expression has none, so the page shows its '
                'backward pass.')  # fmt: skip

    return why_not


learn_why_not = needs(learn.applies, 'One step of learning needs a loss and parameters to learn')
batch_why_not = needs(batch.applies, 'Learning from a batch needs parameters to learn and data to learn them from')


def quiz_why_not(expression, trace):
    if len(trace.nodes) > MAX_QUIZ_VALUES:
        return (
            f'Predict the grad asks one question a step; this graph has {len(trace.nodes):,} values, more than '
            f'the {MAX_QUIZ_VALUES} a quiz takes. Pick a smaller graph (a shorter chain).'
        )
    if not all(math.isfinite(g) for g in trace.final_grads()):
        return 'Predict the grad needs finite grads to ask for; this pass has nan or inf in it.'
    return None


def forward_why_not(expression, trace):
    if any(node.is_input for node in trace.nodes):
        return None
    return (
        'Forward mode carries the derivative by one input forward through the graph: this expression has no inputs '
        '(only numbers), so there is none to choose. The page shows its backward pass.'
    )


@dataclass(frozen=True)
class Mode:
    name: str  # what a link and the code call it (mode=bug)
    label: str  # the sidebar's switch
    help: str  # its sentence in the switch's help
    # (expression, the `+=` trace of its inputs) -> why the mode does not apply to this graph (plain text), or None
    why_not: Callable = always
    # what the trace shown runs on: '' the page's engine, alone; 'assigns' engine/assign.py, where each _backward
    # assigns, or 'bodies' the student's own _backward bodies (engine/exercise.py): each with the right trace beside
    engine: str = ''
    view: ModuleType | None = None  # beside the right trace: the module that draws the mode's own parts (above)
    # forward mode: the frames carry one input's tangents forward (engine/forward.py, engine.frames.tangent_frames),
    # the input chosen in the sidebar or by wrt= in a link, and the page counts what each way costs
    tangents: bool = False
    asks: bool = False  # each step asks for the grads it writes before showing them: the table never shows answers
    learns: bool = False  # the inputs start at the parameters, and the pass is at the steps of learning taken
    batch: bool = False  # the data inputs come from a dataset, a point at a time: the sidebar has no box for them
    code: bool = False  # the student writes the exercise's code: its form and their texts are carried in links


MODES = (
    Mode('watch', 'Watch backward()', '**Watch**: every step of the pass.'),
    Mode(
        'bug',
        'What if _backward used = ?',
        '**=**: the same graph on an engine whose `_backward` assigns instead of adding: '
        'see which grads it gets wrong.',
        engine='assigns',
        view=bug,
    ),
    Mode(
        'quiz',
        'Predict the grad',
        '**Predict**: each step asks for the grads it writes before it shows them.',
        why_not=quiz_why_not,
        asks=True,
    ),
    Mode(
        'learn',
        'One step of learning',
        '**Learning**: after the pass, one gradient-descent step and the forward pass again.',
        why_not=learn_why_not,
        learns=True,
    ),
    Mode(
        'batch',
        'Learn from a batch',
        '**Batch**: the graph once per data point, each point’s grads collected into the parameters’ grads with `+=`, '
        'then one step on the mean grad, and the loss over the whole dataset.',
        why_not=batch_why_not,
        learns=True,
        batch=True,
    ),
    Mode(
        'code',
        'Your own _backward',
        "**Your own**: write the exercise's three `_backward` bodies and watch them run beside the right engine.",
        engine='bodies',
        view=exercise,
        code=True,
    ),
    Mode(
        'forward',
        'Forward mode',
        '**Forward**: the derivative by one input carried forward beside the data, op by op, to the output; and '
        'what getting every grad costs that way and backward.',
        why_not=forward_why_not,
        tangents=True,
    ),
)
MODE = {mode.name: mode for mode in MODES}  # by name
NAMES = tuple(MODE)
HELP = ' '.join(mode.help for mode in MODES)  # the switch's help: every mode's sentence


def row(name):
    """The row of the mode `name`; watch's where there is none of that name (a session that names no mode yet)."""
    return MODE.get(name, MODE['watch'])


def in_force(name, expression, trace):
    """(the mode the page shows, why the mode `name` does not apply to this graph or None): `name`'s row where it
    applies, else watch's."""
    reason = MODE[name].why_not(expression, trace)
    return (MODE[name], None) if reason is None else (MODE['watch'], reason)
