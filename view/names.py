"""How frames and files are named wherever people read them: the caption's "Frame 6 of 10", the share panel, every
export's titles and file names (`reuse_a3_b-2_f06.png`). Pure: the player and the exports both read it."""

import re
import unicodedata

from view.explanation import caption
from view.numbers import file_number

STEM_CHARS = 48  # a file name's stem; the inputs are left out of it when they would make it longer


def _safe(text):
    """Only letters, digits, '.', '_' and '-': accents dropped, anything else (/, .., spaces, symbols) a '_'."""
    ascii_text = unicodedata.normalize('NFKD', text).encode('ascii', 'ignore').decode()
    return re.sub(r'\.{2,}', '.', re.sub(r'[^A-Za-z0-9.-]+', '_', ascii_text)).strip('._-')


def file_stem(expression_name, inputs=None):
    """A file name's stem that says what it shows: 'neuron', 'reuse_a3_b-2'. The inputs ({name: value}) only when
    the stem stays within STEM_CHARS; a typed name is reduced to safe characters, so it cannot leave its folder."""
    stem = _safe(str(expression_name))[:STEM_CHARS].strip('._-') or 'graph'
    if re.fullmatch(r'(?i)(con|prn|aux|nul|com\d|lpt\d)', stem):
        stem += '_'  # names Windows reserves for devices
    values = '_'.join(_safe(f'{name}{file_number(value)}') for name, value in (inputs or {}).items())
    with_values = f'{stem}_{values}' if values else stem
    return with_values if len(with_values) <= STEM_CHARS else stem


def frame_suffix(frames, index, count=None):
    """'_f03': the frame's number as the page says it (frame_numbers), zero-padded to the digits of the count, so the
    files sort in order; a quiz's question '_f06_asked' and the frame that answers it '_f06_shown'."""
    return frame_suffixes(frames, count)[index]


def frame_suffixes(frames, count=None, after=0):
    """frame_suffix for each frame, and for `after` frames more (frame_numbers)."""
    numbers, total = frame_numbers(frames, count, after)
    asked = [f.ask for f in frames] + [False] * after
    shown = [not a and k > 0 and asked[k - 1] for k, a in enumerate(asked)]
    digits = len(str(total))
    return [f'_f{n:0{digits}d}' + ('_asked' if a else '_shown' if s else '') for n, a, s in zip(numbers, asked, shown)]


# --- one frame ---------------------------------------------------------------------------------------------------


def frame_numbers(frames, count=None, after=0):
    """(each frame's number, the count it is read against), as people read them everywhere: the page's caption, the
    share panel, the exports' titles and files. Frames are counted from 1, 'Frame 10 of 10' the last; a link's step=
    is the frame's place in the list, from 0, so that old links open the same frame. A quiz's question (Frame.ask)
    has the number of the frame after it, which shows the same step answered: a step has one number whether it is
    watched or asked, and the count is the pass's frames as watched. `after`: frames more after these, numbered on
    (the learning step after the pass). `count`: the count, where these frames stop before the page's (a quiz held at
    its question, or a pass exported without the learning step after it); by default the frames' own."""
    numbers, watched = [], 0
    for frame in frames:
        watched += not frame.ask
        numbers.append(watched + frame.ask)
    numbers += range(watched + 1, watched + after + 1)
    return numbers, watched + after if count is None else count


def frame_label(number, count):
    """'Frame 3 of 16', for frame_numbers' number and count."""
    return f'Frame {number} of {count}'


def frame_labels(frames, count=None, after=0):
    """frame_label for each frame (frame_numbers), and for `after` frames more."""
    numbers, count = frame_numbers(frames, count, after)
    return [frame_label(number, count) for number in numbers]


def frame_title(trace, frames, index, count=None):
    """'Frame 3 of 16: forward pass: x1*w1 = x1 × w1', as the page says it (frame_numbers)."""
    return f'{frame_labels(frames, count)[index]}: {caption(trace, frames[index])}'
