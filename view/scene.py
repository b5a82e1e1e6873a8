"""What the page shows, as one value: the expression at its inputs, in a mode, stepped through as the page asks.

The player, the share panel and the exports are given a Scene; the player's body and the whole-pass files are kept
by its key, made from every field that decides what they show, so a field added here is in the key too.
"""

from dataclasses import dataclass, field, fields

from engine.forms import FORMS
from engine.frames import frames as frames_of


def exact_key(key):
    """`key` (tuples of str, int, bool, float, None) with each float as its exact bits, so that two keys are equal only
    where the values are the same bits: in Python -0.0 == 0.0, and a file kept for one is not to be handed out for
    the other, whatever the page writes for each (today 0.0000 for both)."""
    if isinstance(key, float):
        return ('float', key.hex())
    if isinstance(key, tuple | list):
        return tuple(map(exact_key, key))
    return key


@dataclass(frozen=True, kw_only=True)
class Scene:
    expression_key: str  # engine.Expression.key: a preset's name, 'chain10', '=' and a typed formula's text
    values: tuple  # ((name, value), ...): the inputs of the pass shown (after learning's steps, where it has some)
    mode: str  # the name of the mode in force (view/modes.py), where the page's mode does not apply: 'watch'
    forward: bool  # the frames step through the forward pass too
    leaves: bool  # and through the leaves' steps
    hide: str  # which grads show '?' (engine.frames.HIDE)
    frames: tuple  # the frames the player is given (a quiz: up to its question)
    length: int  # the frames of the whole pass, a quiz's with its questions: the player's slider runs over them
    learning_key: tuple | None  # Pass.tail_key: learning's frames after the pass, a batch's plots, depend on it
    # ((name, text), ...): in mode 'code', the student's _backward bodies the trace ran, as typed (one the sandbox
    # refuses waits, and runs as nothing: engine/bodies.py); else ()
    bodies: tuple
    # in mode 'code', the form the bodies are in (engine/forms.py): 'bodies', the seed's `_backward` bodies, or
    # 'local_grads', microgpt's tuples
    form: str = 'bodies'
    wrt: int = -1  # forward mode: the input whose tangents the frames carry (its node index); else -1
    # made from the fields above, so not compared: the key is theirs
    expression: object = field(compare=False)  # the engine.Expression
    trace: object = field(compare=False)  # the trace shown: on the mode's engine (view/modes.py)
    width: int = field(compare=False)  # view.numbers.number_width, over everything shown
    numeric: dict | None = field(compare=False)  # the finite-difference grads; None while a quiz is unfinished
    # where the mode's engine is not the page's: the right trace (`+=`) beside the one shown; else None
    right: object = field(default=None, compare=False)
    learning: object = field(default=None, compare=False)  # learn mode: the view.learning.Learning after the pass
    batch: object = field(default=None, compare=False)  # a batch: view.batch.BatchLearning (the class panel's)

    @property
    def key(self):
        """What the scene is kept by: every compared field, its floats by their bits (exact_key)."""
        return exact_key(tuple(getattr(self, f.name) for f in fields(self) if f.compare))

    @property
    def mistakes(self):
        """In mode 'code', what the student's bodies (or tuples) get wrong (their form's diagnose: engine/forms.py;
        nothing in one that waits, refused by the sandbox: engine/bodies.py); else none."""
        if not self.bodies:
            return []
        form = FORMS[self.form]
        return form.diagnose(form.checked(self.bodies))

    @property
    def verdicts(self):
        """In mode 'code', the grader's verdicts on the student's bodies (or tuples: engine/grader.py); else none."""
        if not self.bodies:
            return []
        form = FORMS[self.form]
        return form.verdicts(form.checked(self.bodies))

    @property
    def in_pass(self):
        """The frames of the whole pass as watched (no questions), which the captions count."""
        return len(frames_of(self.trace, self.forward, self.leaves, wrt=self.wrt))

    @property
    def inputs(self):
        """{name: value} of the pass shown."""
        return dict(self.values)
