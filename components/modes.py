"""The modes' page parts, one row a mode (the modes themselves are view/modes.py's rows): what each adds to the
sidebar, what it does to the pass before the player draws it (the engine its trace runs on, the frames it keeps),
and what stands below the player. app.py calls the same three for every mode, on the Pass it builds; the mode
switch in the sidebar, and the note where the mode asked for does not apply to the graph shown (the page then
watches backward() instead, so no control is there that does nothing).

docs/adding-a-mode.md: a mode is its row here and in view/modes.py, and its module."""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import streamlit as st

from components.batch import (
    batch_learning,
    batch_panel,
    class_point,
    dataset_in_use,
    point_control,
    show_params,
    together_panel,
    together_room,
)
from components.bug import show_bug_note
from components.code import checked_bodies, code_boxes, code_verdict
from components.forward import chosen_input, forward_panel
from components.inputs import show_learned
from components.learning import learning_after, learning_panel
from components.live import led_class, send_bodies_button
from components.player import send_to
from components.quiz import quiz_panel
from engine import batch
from engine.forms import FORMS
from server.cache import traced
from view.modes import HELP, MODE, NAMES, in_force
from view.numbers import number_width, tangent_width


def mode_control():
    st.radio('Mode', NAMES, key='mode', format_func=lambda name: MODE[name].label, help=HELP)


def input_boxes(asked, expression):
    """The inputs whose boxes the sidebar draws, for the mode `asked` (a view.modes.Mode): every one, but a batch's
    data where the batch applies (its points are the data)."""
    data = batch.data_names(expression) if asked.batch and batch.applies(expression) else ()
    return [name for name in expression.defaults if name not in data]


def mode_in_force(name, expression, trace):
    """The mode the page shows (a view.modes.Mode): `name`'s, or watch's with a note on the page saying why `name`'s
    does not apply."""
    mode, reason = in_force(name, expression, trace)
    if reason is not None:
        st.info(reason, icon=':material/info:')
    return mode


@dataclass
class Pass:
    """The pass the page shows, as app.py and the mode's parts build it: the trace the player draws (on the mode's
    engine), the right one beside it where there is one, and what each part leaves for the next."""

    page: Any  # state.PageState
    expression: Any
    values: dict
    trace: Any
    width: int
    numeric: Any
    box: Any = None  # the sidebar's place for the mode's own control (parts.sidebar), or the presentation view's
    learned_box: Any = None  # the sidebar's place for the steps learning took
    from_link: bool = False  # the page was opened from a link this run
    right: Any = None  # the right (+=) trace beside `trace`, on a mode with an engine of its own
    bodies: tuple = ()  # the student's texts, in code mode
    form: str = 'bodies'  # the form they write in (engine/forms.py)
    learning: Any = None  # view.learning.Learning, in learning mode
    batch: Any = None  # view.batch.BatchLearning, learning from a batch
    wrt: int = -1  # forward mode's input: its tangents flow forward in the frames (engine/forward.py)
    frames: list | None = None

    @property
    def tail_key(self):
        """What the pass's frames and files depend on beyond its own values: learning's steps, or a batch's data and
        steps (its plots close the deck)."""
        return (self.learning or self.batch) and (self.learning or self.batch).key

    def on_engine(self, engine):
        """The same graph on `engine` (engine.ENGINES), the right trace kept beside it."""
        self.right, right_width = self.trace, self.width
        values = tuple(self.values.items())
        self.trace, self.width, _ = traced(expression=self.expression, values=values, engine=engine,
                                           bodies=self.bodies)  # fmt: skip
        self.width = max(self.width, right_width)


def nothing(*args):
    return None


def keep_frames(built):
    return built.frames, built.numeric


def same_room(built, room):
    return room


@dataclass(frozen=True)
class Parts:
    sidebar: Callable = nothing  # () -> the sidebar's place for the mode's own control, after the mode switch
    before: Callable = nothing  # (Pass) before the frames are made: the trace on the mode's engine, its inputs
    frames: Callable = keep_frames  # (Pass) -> (the frames the player gets, the numeric check shown with them)
    below: Callable = nothing  # (Pass, room, the player's student) below the player
    room: Callable = same_room  # (Pass, the class's room for the player, or None) -> what the player is told of it


def _bug_before(built):
    show_bug_note(built.trace)  # what the `=` engine does, above the graph
    built.on_engine(MODE['bug'].engine)


def _code_before(built):
    # the student's own _backward bodies, or microgpt's local_grads tuples (engine/forms.py)
    page = built.page
    built.bodies = checked_bodies(page, boxes=False) if page.present else code_boxes(page)
    built.form = page.form
    built.on_engine(FORMS[built.form].engine)


def _code_below(built, room, student):
    if built.page.present:
        return
    verdict = code_verdict(built.bodies, built.form)  # the grader's verdict, and hints; in a class, sent to it
    if built.form == 'bodies':  # a live class takes the seed's bodies (server/rooms.py)
        send_bodies_button(room, student, built.bodies, verdict)


def _quiz_frames(built):
    # the player gets the frames up to the question, and no answers
    if built.page.present:
        return keep_frames(built)
    key = repr((built.expression.key, tuple(built.values.items()), built.page.forward, built.page.leaves))
    shown = quiz_panel(built.trace, built.frames, key)
    return built.frames[:shown], built.numeric if shown == len(built.frames) else None


def _learn_before(built):
    # the pass at the parameters after the steps taken, then the step it leads to
    page = built.page
    built.learning, built.values = learning_after(built.expression, built.values, page.lr, page.learned)
    if built.learned_box is not None:
        show_learned(built.learned_box, built.learning)
    built.trace, built.width, built.numeric = traced(expression=built.expression, values=tuple(built.values.items()))
    built.width = max(built.width, number_width(built.learning.after))


def _learn_below(built, room, student):
    if built.page.present:
        return
    # after more steps, the player shows the next update
    learning_panel(built.learning, built.page.learned, on_step=lambda: send_to(len(built.frames)))


def _batch_before(built):
    # the graph of one point, at the parameters after the steps taken on the whole batch
    page, expression = built.page, built.expression
    dataset = dataset_in_use(expression, page.data, built.from_link, room=page.room or led_class())
    handed = class_point(page, len(dataset))  # a phone learning together: the point the room handed it
    point_control(built.box if handed is None else None, len(dataset), compact=page.present)
    point = handed or st.session_state.point
    built.batch = batch_learning(expression, built.values, dataset, point, page.lr, page.learned)
    if built.learned_box is not None:
        show_params(built.learned_box, built.batch)
    built.values = {**built.values, **built.batch.params, **dataset.point(built.batch.point)}
    built.trace, built.width, built.numeric = traced(expression=expression, values=tuple(built.values.items()))


def _batch_below(built, room, student):
    if built.page.present:  # the projector's class panel has the batch (components/batch.class_together)
        return
    if built.page.together and room is not None and room.get('follow'):
        together_panel(built.batch, room, student)
        return
    batch_panel(built.batch, batch.example(built.expression), on_step=lambda: None)


def _batch_room(built, room):
    # a phone learning together: its point, for the player's box that sends its grads
    together = together_room(built.page, built.batch)
    return room if room is None or together is None else {**room, 'together': together}


def _forward_before(built):
    names = list(built.expression.defaults)
    built.wrt = chosen_input(built.box, built.trace, names, from_link=built.from_link, compact=built.page.present)
    built.width = max(built.width, tangent_width(built.trace, built.wrt))


def _forward_below(built, room, student):
    # what getting every grad costs each way, and the paths from the input to the output
    forward_panel(built.trace, built.wrt, built.expression.params, present=built.page.present)


def own_control(name):
    """Whether the mode `name` has a control of its own (forward mode's input, a batch's point): the presentation
    view keeps it a place in its row."""
    return name in PARTS and PARTS[name].sidebar is not nothing


PARTS = {
    'watch': Parts(),
    'bug': Parts(before=_bug_before),
    'quiz': Parts(frames=_quiz_frames),
    'learn': Parts(before=_learn_before, below=_learn_below),
    'batch': Parts(sidebar=st.container, before=_batch_before, below=_batch_below, room=_batch_room),
    'code': Parts(before=_code_before, below=_code_below),
    'forward': Parts(sidebar=st.container, before=_forward_before, below=_forward_below),
}
