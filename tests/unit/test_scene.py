"""The one value for what the page shows: the player's body and the whole-pass files are kept by its key."""

import dataclasses

from engine import PRESETS, trace_backward
from engine.frames import frames
from view.numbers import number_width
from view.scene import Scene


def scene_of(values, **changed):
    expression = PRESETS['reuse']
    leaves, out = expression.build(values)
    trace = trace_backward(out, leaves)
    all_frames = tuple(frames(trace))
    scene = Scene(
        expression_key=expression.key, values=tuple(values.items()), mode='watch', forward=True, leaves=True,
        hide='none', frames=all_frames, length=len(all_frames), learning_key=None, bodies=(), expression=expression,
        trace=trace, width=number_width(trace), numeric=None,
    )  # fmt: skip
    return dataclasses.replace(scene, **changed)


def test_every_field_that_decides_the_picture_is_in_the_key():
    scene = scene_of({'a': 3.0, 'b': -2.0})
    compared = [f.name for f in dataclasses.fields(Scene) if f.compare]
    assert {'expression_key', 'values', 'mode', 'hide', 'frames', 'learning_key', 'bodies'} <= set(compared)
    for name in compared:
        assert dataclasses.replace(scene, **{name: object()}).key != scene.key, name


def test_minus_zero_and_zero_are_two_scenes():
    # -0.0 == 0.0 in Python, but the graph shows a = −0.0000 at one and a = 0.0000 at the other
    assert scene_of({'a': -0.0, 'b': 1.0}).key != scene_of({'a': 0.0, 'b': 1.0}).key
    assert scene_of({'a': 0.0, 'b': 1.0}).key == scene_of({'a': 0.0, 'b': 1.0}).key


def test_the_frames_as_watched_are_counted_without_a_quizs_questions():
    scene = scene_of({'a': 3.0, 'b': -2.0})
    asked = dataclasses.replace(scene, mode='quiz', frames=tuple(frames(scene.trace, ask=True)))
    assert asked.in_pass == scene.in_pass == len(scene.frames) < len(asked.frames)
