"""A student's `_backward` bodies as the page holds them, {name: text} or ((name, text), ...), each the text as typed,
read once by the sandbox (`checked`): a sandbox.Body, which runs, or a Waiting one, which the sandbox refuses.

This is the one place where a refusal becomes a fact the others read: a body that waits runs as nothing on the graph
(its op passes no grad back, and the graph runs the others), engine/grader.py says its verdict waits for it to run in
place of grading the expressions that use it, and engine/diagnosis.py names no slip in it: the student never wrote
the `pass` it runs as.
"""

from dataclasses import dataclass

from .exercise import OPS
from .sandbox import BodyError, check_body


@dataclass(frozen=True)
class Waiting:
    """A body the sandbox refuses, waiting for the student to make it runnable: it writes no grad until it can run."""

    op: str  # '+', '*' or 'tanh'
    text: str  # as typed
    error: BodyError  # why it cannot run, with its line and column

    writes = ()  # no line of it runs
    waits = True  # a sandbox.Body has no such attribute: exercise.Value carries it to the closure, for the view
    # the code the page shows for it: what the graph runs, said as no line of the student's
    source = 'def _backward():\n    ...  # your body cannot run yet: until it can, this op passes nothing back'

    def run(self, scope):
        """Nothing: until the body can run, its op writes no grad."""


def checked(bodies, check=check_body, waits=Waiting):
    """{name: sandbox.Body or Waiting} for each of the bodies ({name: text} or ((name, text), ...)), as typed.
    `check` and `waits` are another form's (local_grads.checked: its tuples, or WaitingGrads)."""
    out = {}
    for name, text in dict(bodies).items():
        try:
            out[name] = check(name, text)
        except BodyError as error:
            out[name] = waits(OPS[name], text, error)
    return out


def waiting(checked_bodies):
    """The names of the bodies (checked's) that wait, in order: ['mul']."""
    return [name for name, body in checked_bodies.items() if isinstance(body, Waiting)]
