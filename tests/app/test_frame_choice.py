"""What a whole-pass export holds, as a lecturer chooses it: every frame, the backward pass, the frames without the
leaves' no-op steps, or a range; a question before each step; the notes as the page explains each step; and the
GIF's time a frame. Every chosen frame keeps the number and title the page gives it."""

import io
import zipfile

import pytest
from PIL import Image

import exports
from engine import PRESETS, chain, trace_backward
from engine.frames import frames
from exports import ExportRefused
from view import names


def traced(expression):
    leaves, out = expression.build(None)
    return trace_backward(out, leaves)


@pytest.fixture(scope='module')
def reuse():
    return traced(PRESETS['reuse'])


@pytest.fixture(scope='module')
def long_chain():
    return traced(chain(100))


def test_the_backward_pass_is_the_seed_and_every_backward_step(reuse):
    all_frames = frames(reuse)
    keep = exports.chosen_frames(reuse, all_frames, 'backward')
    assert [all_frames[k].kind for k in keep] == ['seed'] + ['backward'] * len(reuse.nodes)


def test_without_the_leaves_every_frame_but_a_leafs_backward_step_is_kept(reuse):
    all_frames = frames(reuse)
    keep = exports.chosen_frames(reuse, all_frames, 'ops')
    dropped = [f for k, f in enumerate(all_frames) if k not in keep]
    leaves = [i for i, node in enumerate(reuse.nodes) if not node.op]
    assert sorted(f.node for f in dropped) == sorted(leaves)
    assert all(f.kind == 'backward' for f in dropped)


def test_a_chosen_frames_file_is_named_by_the_number_the_page_gives_it(reuse):
    """reuse, out = a*b + a*a: the inputs, 3 ops computed, the seed at frame 5, then 5 backward steps to frame 10;
    without the leaves, a, b's steps (the last two) go."""
    all_frames = frames(reuse)
    for choice, numbers in (('backward', range(5, 11)), ('ops', range(1, 9))):
        keep = exports.chosen_frames(reuse, all_frames, choice)
        with zipfile.ZipFile(io.BytesIO(exports.pass_zip(reuse, all_frames, 8, 'reuse', keep=keep))) as archive:
            assert archive.namelist() == [f'reuse_f{n:02d}.svg' for n in numbers]


def test_a_range_keeps_the_frames_numbered_from_its_first_to_its_last(long_chain):
    all_frames = frames(long_chain)
    keep = exports.chosen_frames(long_chain, all_frames, 'all', first=101, last=300)
    labels = names.frame_labels(all_frames)
    assert [labels[k] for k in (keep[0], keep[-1])] == ['Frame 101 of 404', 'Frame 300 of 404']
    assert len(keep) == 200


@pytest.mark.parametrize('first, last', [(0, 5), (5, 4), (1, 405), (-3, 2)])
def test_a_range_outside_the_pass_is_refused_with_the_frames_there_are(long_chain, first, last):
    with pytest.raises(ExportRefused, match='choose from frame 1 to frame 404'):
        exports.chosen_frames(long_chain, frames(long_chain), choice='all', first=first, last=last)


def test_a_choice_that_leaves_no_frame_is_refused_and_says_how_to_widen_it(reuse):
    all_frames = frames(reuse)  # the forward pass first: its frames are not the backward pass's
    with pytest.raises(ExportRefused, match='leaves no frame to export'):
        exports.chosen_frames(reuse, all_frames, 'backward', first=1, last=2)


def test_an_unknown_choice_is_refused_with_the_choices_there_are(reuse):
    with pytest.raises(ExportRefused, match='The backward pass'):
        exports.chosen_frames(reuse, frames(reuse), 'everything')


def test_the_frame_cap_applies_to_the_chosen_frames_and_says_how_to_choose_fewer(long_chain, dot_processes):
    all_frames = frames(long_chain)  # 404 frames, over the cap of 200
    with pytest.raises(ExportRefused, match='Choose fewer frames: the backward pass, without the leaves, or a range'):
        exports.pass_zip(long_chain, all_frames, 8, 'chain')
    assert dot_processes == []  # refused before any dot ran
    keep = exports.chosen_frames(long_chain, all_frames, 'all', first=1, last=3)
    archive = exports.pass_zip(long_chain, all_frames, 8, 'chain', keep=keep)
    assert len(dot_processes) == 3 and archive


def test_a_question_comes_before_each_op_step_with_the_number_of_the_step_it_asks(reuse):
    asked = frames(reuse, ask=True)
    labels = names.frame_labels(asked)
    ops = [i for i, node in enumerate(reuse.nodes) if node.op]
    questions = [k for k, f in enumerate(asked) if f.ask]
    assert sorted(asked[k].node for k in questions) == sorted(ops)
    for k in questions:
        assert not asked[k + 1].ask and asked[k + 1].node == asked[k].node
        assert labels[k] == labels[k + 1]  # asked and answered: one step, one number, as the page counts it
    assert labels[-1] == f'Frame {len(frames(reuse))} of {len(frames(reuse))}'


def test_what_a_chosen_export_holds_is_said_by_the_pages_numbers(long_chain, reuse):
    all_frames = frames(long_chain)
    keep = exports.chosen_frames(long_chain, all_frames, 'all', first=101, last=300)
    assert 'frames 101 to 300 of 404' in exports.pass_contents(all_frames, keep=keep)
    asked = frames(reuse, ask=True)
    contents = exports.pass_contents(asked)
    questions = sum(node.op is not None and node.op != '' for node in reuse.nodes)
    assert f'{len(frames(reuse))} frames and {questions} questions' in contents


def test_the_notes_of_a_step_say_each_grad_before_and_after_as_the_page_does(reuse):
    """reuse: out = a*b + a*a at a = 3, b = -2. By hand: a*a's step adds a.data × 1 = 3 to a.grad twice, · → 3 → 6,
    and a*b's step adds b.data × 1 = -2 more: 6 → 4, final; b.grad gets a.data = 3."""
    all_frames = frames(reuse)
    square = next(f for f in all_frames if f.kind == 'backward' and reuse.nodes[f.node].name == 'a*a')
    notes = exports.speaker_notes(reuse, square).splitlines()
    line = 'a.grad += a.data × (a*a).grad = 3.0000 × 1.0000 = 3.0000'  # the same for both uses of a
    assert notes[-4:] == [line, 'a.grad: · → 3.0000 (more to come)', line, 'a.grad: 3.0000 → 6.0000 (more to come)']
    product = next(f for f in all_frames if f.kind == 'backward' and reuse.nodes[f.node].name == 'a*b')
    notes = exports.speaker_notes(reuse, product).splitlines()
    assert 'a.grad: 6.0000 → 4.0000 (final)' in notes and 'b.grad: · → 3.0000 (final)' in notes
    assert 'local gradient for a: b.data = −2.0000' in notes


def test_a_questions_notes_hold_its_answer(reuse):
    asked = frames(reuse, ask=True)
    question = next(f for f in asked if f.ask and reuse.nodes[f.node].name == 'a*a')
    assert 'a.grad: 3.0000 → 6.0000 (more to come)' in exports.speaker_notes(reuse, question)


@pytest.mark.parametrize('seconds', exports.GIF_SECONDS)
def test_a_gifs_frames_last_the_seconds_chosen_and_the_last_is_held_longer(reuse, seconds):
    all_frames = frames(reuse)
    keep = exports.chosen_frames(reuse, all_frames, 'backward', first=len(all_frames) - 2)
    gif = Image.open(io.BytesIO(exports.pass_gif(reuse, all_frames, 8, keep=keep, seconds=seconds)))
    durations = []
    for k in range(gif.n_frames):
        gif.seek(k)
        durations.append(gif.info['duration'])
    assert len(durations) == len(keep) == 3
    assert durations[:-1] == [1000 * seconds] * 2 and durations[-1] >= max(4000, 1000 * seconds)
