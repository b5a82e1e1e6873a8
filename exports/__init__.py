"""The files for slides, made on the server from the page's frames: a frame as SVG, PNG or DOT; the whole pass as a GIF,
a PDF, a PowerPoint deck or a ZIP of SVGs. The share panel's one door in: render (the files), queue (the line and the
bounded runs of dot and rsvg-convert), picture (a frame's SVG as the page draws it), slides (the 16:9 pages)."""

from exports import queue  # its LINE: the whole-pass exports' turns (the panel waits in it)
from exports.queue import EXPORT_BUDGET, EXPORT_LANES, ExportRefused, install_graphviz, no_dot
from exports.render import (
    EXPORT_FRAMES,
    FRAME_CHOICES,
    GIF_SECONDS,
    chosen_frames,
    frame_dot,
    frame_png,
    frame_svg,
    pass_contents,
    pass_gif,
    pass_pdf,
    pass_pptx,
    pass_zip,
    png_title,
    speaker_notes,
    too_many,
)

__all__ = [
    'EXPORT_BUDGET', 'EXPORT_FRAMES', 'EXPORT_LANES', 'FRAME_CHOICES', 'GIF_SECONDS', 'ExportRefused', 'queue',
    'chosen_frames', 'frame_dot', 'frame_png', 'frame_svg', 'install_graphviz', 'no_dot', 'pass_contents', 'pass_gif',
    'pass_pdf', 'pass_pptx', 'pass_zip', 'png_title', 'speaker_notes', 'too_many',
]  # fmt: skip
