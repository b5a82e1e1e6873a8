"""engine/answers.py: a student's number read against the right one and the mistakes' (`classify`), as a live class
grades the room's answers."""

import pytest

from engine.answers import classify

# hand-worked: a grad whose right value is 6, forgetting the `+=` on a reused input gives 3, the `=` bug gives 2
CANDIDATES = [['right', 6.0], ['forgot', 3.0], ['assign', 2.0]]


@pytest.mark.parametrize(
    'answer, group',
    [
        (6.0, 'right'),
        (6.001, 'right'),  # 6.00 to 3 significant figures
        (6.004, 'right'),  # within 0.005, half a unit of the third figure
        (6.04, 'other'),  # 6.04: not 6.00
        (3.0, 'forgot'),
        (2.0, 'assign'),
        (2.004, 'assign'),
        (7.0, 'other'),
        (-6.0, 'other'),
        (None, 'blank'),
        (float('nan'), 'other'),
    ],
)
def test_an_answer_is_the_first_candidate_it_is_right_for_else_other_or_blank(answer, group):
    assert classify(answer, CANDIDATES) == group


def test_when_two_candidates_have_one_value_the_earlier_group_wins():
    # a grad of 0 where the sign mistake gives 0 too: a 0 answer is right, never counted as the mistake
    assert classify(0.0, [['right', 0.0], ['sign', 0.0]]) == 'right'
    assert classify(3.0, [['right', 6.0], ['forgot', 3.0], ['swapped', 3.0]]) == 'forgot'


def test_with_no_candidates_an_answer_is_other():
    assert classify(1.0, []) == 'other'
