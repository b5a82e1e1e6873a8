"""The two forms a student can write the exercise in (mode=code), one row each: the seed's, a `_backward` body per op
(engine/exercise.py, checked by engine/sandbox.py, engine/bodies.py, engine/diagnosis.py), and microgpt's, a
local_grads tuple per op (engine/local_grads.py). The page, its link (state.py), the grader and the view take what
differs between them from here: the rest runs the same for both.
"""

from collections.abc import Callable
from dataclasses import dataclass

from . import bodies, diagnosis, exercise, grader, local_grads, sandbox


@dataclass(frozen=True)
class Form:
    name: str  # in a link: form=local_grads ('bodies', the seed's, is the default)
    label: str  # the page's switch
    link: str  # each op's text in a link is '<link>.add' (code.add, grads.add); its field and box '<link>_add'
    engine: str  # the engine that runs it, a name of engine.ENGINES
    what: str  # one of them, in the grader's line when it cannot run: 'body', 'local_grads'
    plural: str  # the three, in the page's sentences: 'bodies', 'tuples'
    todo: str  # each op's text as the exercise gives it
    limit: int  # characters each
    check: Callable  # (name, text) -> the checked text (it runs), or sandbox.BodyError
    checked: Callable  # {name: text} -> {name: the checked text, or one that waits}
    yours: Callable  # checked -> the Value class that runs them
    answer: Callable  # name -> the right text, read off engine/value.py's own op
    diagnose: Callable  # checked -> [diagnosis.Mistake], each with its kind's words
    mistakes: dict  # kind -> its words
    kinds: Callable  # op -> the kinds diagnose can name in it

    def verdicts(self, checked):
        """The grader's verdicts on the checked texts (engine/grader.py), on this form's engine."""
        return grader.verdicts(checked, self.yours, self.what)

    def field(self, name):
        """The PageState field (and session-state key, and box) of the text of the exercise's method `name`."""
        return f'{self.link}_{name}'


FORMS = {
    'bodies': Form(
        'bodies', 'micrograd: a _backward per op', 'code', 'bodies', 'body', 'bodies', exercise.TODO,
        sandbox.MAX_BODY, sandbox.check_body, bodies.checked, exercise.yours, exercise.answer, diagnosis.diagnose,
        diagnosis.MISTAKES, diagnosis.kinds,
    ),
    'local_grads': Form(
        'local_grads', 'microgpt: local_grads, one loop', 'grads', 'grads', 'local_grads', 'tuples', local_grads.TODO,
        local_grads.MAX_GRADS, local_grads.check_grads, local_grads.checked, local_grads.yours, local_grads.answer,
        local_grads.diagnose, local_grads.MISTAKES, local_grads.kinds,
    ),
}  # fmt: skip
