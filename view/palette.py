"""The page's colours, fonts and pens, in one place: the graph (view/graph.py), the player's stylesheet (its CSS
variables), the node table's tints, the plots (view/depth_plot.py, view/learning.py), the exports and the slides all
take theirs from here. And the legend's rows, what each colour of the graph means and how a key to it is drawn,
from which both legends are drawn: the page's in HTML (view/graph.legend_html) and the files' in SVG
(exports/picture.legend_svg), each with the rows its frames draw (view/graph.legend_keys)."""

from dataclasses import dataclass

from view.numbers import HIDDEN

# Okabe-Ito colours: safe for colour-blind viewers, and strong enough for a projector
# each colour means one thing, in the graph, the legend and the table (COLOUR_MEANINGS, checked one-to-one)
ACTIVE = '#D55E00'  # vermillion: the node whose _backward runs, and the edges it writes along
FORWARD = '#0072B2'  # blue: the node the forward pass just computed
SEED = '#E69F00'  # orange: the seed, out.grad = 1 (no _backward runs)
FINAL_FILL = '#C4EBDB'  # light bluish green: this grad is final
ACCUMULATING_FILL = '#F9F4B3'  # a tint of Okabe-Ito's yellow: this grad has more += to come
# lilac, between Okabe-Ito's blue and reddish purple and 35° of hue or more from each: on the `=` engine, this grad is
# final and is not what += gives. Told apart from the other fills and white under protan, deutan and tritan vision
# (tests/unit/test_graph.py simulates them), and drawn with a dotted border besides, for a page printed in grey
WRONG_FILL = '#CFA8DD'
INK = '#1A1A1A'
FAINT = '#8A8A8A'  # lines that carry nothing now
SECONDARY = '#555555'  # the rows' titles (data, grad) and a number not computed yet (·): dark enough for a projector
UNDEFINED = '#A0307A'  # reddish purple, darker than Okabe-Ito's for text: a number that is nan or ±inf
ACTIVE_TINT = '#FBDCC6'  # a tint of the vermillion: the node table's row of the node whose _backward runs
FORWARD_TINT = '#CCE3F2'  # a tint of the blue: the node table's row of the node the forward pass just computed
SEED_TINT = '#FBE8C2'  # a tint of the orange: the node table's row of the seeded output
NOT_FINITE = ('nan', 'inf', '−inf')
TEXT_COLOURS = {**dict.fromkeys(NOT_FINITE, UNDEFINED), HIDDEN: ACTIVE}  # texts in a number's place
# Courier's metrics for the layout, by dot and by the browser's Graphviz alike (which knows no 'Courier,monospace'
# and measures that as a narrower Times); on screen, any monospace font
FONT = 'Courier'
FAMILY = 'DejaVu Sans Mono'  # the page's monospace font (static/fonts/), which the exported files embed
SCREEN_FONT = f'"{FAMILY}", Menlo, Consolas, "Liberation Mono", monospace'  # the browser's monospace font
MARK_WIDTH, HOT_WIDTH = '3', '2.5'  # the pen of a marked box, and of the op and edges a _backward writes along
SEED_WIDTH = '4'  # the seeded output's pen: thicker than a _backward's, in its own colour

# the plots' (view/depth_plot.py, view/learning.py), in the page's sans-serif; they draw in the graph's INK and
# ACTIVE, their line in its blue
PLOT_FONT = 'font-family="Source Sans, sans-serif" font-size="13"'
PLOT_LINE = FORWARD

# the same colours, fonts and pens for the player's stylesheet (components/player/player.css uses var(--active)
# and so on): written here once, sent at the head of the legend, which the player puts in its page
CSS_VARIABLES = {
    '--active': ACTIVE, '--forward': FORWARD, '--final-fill': FINAL_FILL, '--accumulating-fill': ACCUMULATING_FILL,
    '--ink': INK, '--faint': FAINT, '--secondary': SECONDARY, '--undefined': UNDEFINED, '--active-tint': ACTIVE_TINT,
    '--seed': SEED, '--seed-width': SEED_WIDTH, '--forward-tint': FORWARD_TINT, '--seed-tint': SEED_TINT,
    '--screen-font': SCREEN_FONT, '--mark-width': MARK_WIDTH, '--hot-width': HOT_WIDTH, '--wrong-fill': WRONG_FILL,
    '--pen': '1', '--active-text': ACTIVE,
}  # fmt: skip
# the high-contrast look, for a projector that washes colours out (contrast=1 in a link; the presentation view's
# switch): the pale fills darker, under ink at 7:1 and over; grey text at 7:1 and over on white; every pen thicker.
# Still told apart under protan, deutan and tritan vision (tests/unit/test_graph.py), and by border style besides
HIGH_CONTRAST = {
    '--final-fill': '#6FCBA5',  # Okabe-Ito's bluish green, lightened until ink on it is 8.9:1
    '--accumulating-fill': '#F0E442',  # Okabe-Ito's yellow itself
    '--faint': '#555555', '--secondary': '#333333', '--undefined': '#8E2A6A', '--active-text': '#8F3A00',
    '--pen': '2', '--mark-width': '4.5', '--hot-width': '4', '--seed-width': '5.5',
}  # fmt: skip
HIGH_CONTRAST_CLASS = 'high-contrast'  # the player's root has it in that look


def _rules(selector, variables):
    return selector + ' {' + ' '.join(f'{name}: {value};' for name, value in variables.items()) + '}'


PLAYER_STYLE = (
    '<style>' + _rules('.player', CSS_VARIABLES) + _rules(f'.player.{HIGH_CONTRAST_CLASS}', HIGH_CONTRAST) + '</style>'
)


def css_colour(colour):
    """`colour` as the player's stylesheet has it: its variable where it has one (so the high-contrast look
    changes it too), else the colour itself."""
    name = next((name for name, value in CSS_VARIABLES.items() if value == colour and name != '--active-text'), None)
    return f'var({name}, {colour})' if name else colour


# what each colour of the graph means: one meaning a colour, the same in the boxes, on the edges and in the legend
# (and a tint of a mark's colour is that mark's row in the node table)
COLOUR_MEANINGS = {
    FINAL_FILL: 'grad is final',
    WRONG_FILL: 'grad is wrong: the right engine, with +=, gives another',  # (the `=` mode: when it is final)
    ACCUMULATING_FILL: 'grad has more += to come',
    ACTIVE: 'its _backward runs now: local grad × upstream grad, the amount += adds, on its edges or over the graph',
    SEED: 'the seed: out.grad = 1',
    FORWARD: 'just computed (forward)',
    UNDEFINED: 'not a finite number',
}
TINTS = {ACTIVE_TINT: ACTIVE, FORWARD_TINT: FORWARD, SEED_TINT: SEED}  # the node table's row: the box's mark


# --- the legend's rows --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Key:
    """One row of the legend: a box as the graph draws it (its fill, its border's colour, line and pen) or, for a
    colour no box has, `sample`, the texts the graph writes in it; and the words beside it."""

    colour: str | None  # the colour it explains (COLOUR_MEANINGS' key); None for a box with no colour of its own
    words: str
    fill: str = 'white'
    border: str = INK
    line: str = 'solid'  # 'dashed', 'dotted': the border's, as the graph's STATE_STYLE draws it
    pen: str = '1'  # the border's width, as the graph's MARK_STYLE draws it (dot's default: 1)
    sample: tuple = ()  # the texts drawn in `colour` in place of a box


def _key(colour, **look):
    return Key(colour, COLOUR_MEANINGS[colour], **look)


NOT_COMPUTED_KEY = Key(None, 'grad not computed yet (·)')
HIDDEN_KEY = Key(None, 'grad asked for: yours to work out (?)', border=ACTIVE, sample=(HIDDEN,))  # `?` in vermillion
# the `=` engine's (or a student's body's): the box whose grad an assignment just wrote over, as its thrown-away edge
# is drawn, in ink, thick and dashed; the edge's label, where the shape shows labels, says `✗ lost` (graph.lost_label)
LOST_KEY = Key(None, 'grad just written over by =: what the dashed edge brought is lost', line='dashed', pen=MARK_WIDTH)
KEYS = {  # COLOUR_MEANINGS' colours, in its order
    FINAL_FILL: _key(FINAL_FILL, fill=FINAL_FILL),
    WRONG_FILL: _key(WRONG_FILL, fill=WRONG_FILL, line='dotted'),
    ACCUMULATING_FILL: _key(ACCUMULATING_FILL, fill=ACCUMULATING_FILL, line='dashed'),
    ACTIVE: _key(ACTIVE, border=ACTIVE, pen=MARK_WIDTH),
    SEED: _key(SEED, border=SEED, pen=SEED_WIDTH),
    FORWARD: _key(FORWARD, border=FORWARD, pen=MARK_WIDTH),
    UNDEFINED: _key(UNDEFINED, sample=tuple(t for t, c in TEXT_COLOURS.items() if c == UNDEFINED)),
}
# every row a legend may have, in the order a pass shows them: a legend (graph.legend_keys) has those its frames draw
PAGE_KEYS = (
    NOT_COMPUTED_KEY, *(KEYS[c] for c in (ACCUMULATING_FILL, FINAL_FILL, SEED, ACTIVE, FORWARD)), HIDDEN_KEY, LOST_KEY,
    KEYS[WRONG_FILL], KEYS[UNDEFINED],
)  # fmt: skip

# forward mode's legend (view/forward.py, exports/picture.legend_svg): the same looks, meaning for a tangent what
# they mean for a grad; the value just computed is the active one, its op and edges working out its tangent
TANGENT_KEYS = (
    Key(None, 'tangent not computed yet (·)'),
    Key(FINAL_FILL, 'tangent worked out', fill=FINAL_FILL),
    Key(SEED, 'the input chosen: its tangent is 1', border=SEED, pen=SEED_WIDTH),
    Key(ACTIVE, 'computed now: its data, and its tangent: local grad × tangent coming in, summed', border=ACTIVE,
        pen=MARK_WIDTH),
    KEYS[UNDEFINED],
)  # fmt: skip
