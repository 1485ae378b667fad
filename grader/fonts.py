"""The fonts pages and figures name, so that Chinese text (lesson titles, tags such as "方差证明")
is drawn with real glyphs instead of missing-glyph boxes.

Pages load no font (their Content-Security-Policy forbids it): they name a stack of system fonts
that ends in fonts with Chinese and Japanese glyphs, and the browser takes each character from the
first font that has it. ``.ci/run`` installs Debian's ``fonts-noto-cjk``. Figures are drawn by
matplotlib, which falls back per glyph along ``font.family`` (matplotlib >= 3.6).
"""
from __future__ import annotations

import functools
import logging

#: CSS ``font-family`` of every page: the system's interface font, then fonts with CJK glyphs.
PAGE_FONT_STACK = ('system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Noto Sans CJK SC", '
                   '"Source Han Sans SC", "Source Han Sans", "PingFang SC", "Microsoft YaHei", '
                   '"WenQuanYi Micro Hei", sans-serif')
#: CSS ``font-family`` of code and program output: a monospace font, then monospace CJK fonts.
PAGE_MONOSPACE_STACK = ('ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", '
                        '"Noto Sans Mono CJK SC", "Noto Sans CJK SC", "Source Han Sans SC", '
                        '"WenQuanYi Micro Hei Mono", monospace')

#: matplotlib's own font, which has Latin, Greek and maths glyphs but no Chinese.
LATIN_FIGURE_FONT = "DejaVu Sans"
#: Fonts with Chinese glyphs, the first installed one is matplotlib's fallback.
CJK_FIGURE_FONTS = ("Noto Sans CJK SC", "Source Han Sans SC", "Source Han Sans", "WenQuanYi Micro Hei",
                    "WenQuanYi Zen Hei", "Noto Sans CJK JP", "Droid Sans Fallback")
CJK_FONT_PACKAGE = "fonts-noto-cjk"

_log = logging.getLogger(__name__)


@functools.cache
def figure_font_family() -> tuple[str, ...]:
    """matplotlib's ``font.family`` for figures: DejaVu Sans, then the first installed CJK font.

    Only installed families are named (matplotlib warns for each missing one on every text). A
    font installed after matplotlib built its font cache is not in that cache: the system's font
    files are read once more before concluding there is none.
    """
    from matplotlib import font_manager

    def installed() -> list[str]:
        known = {entry.name for entry in font_manager.fontManager.ttflist}
        return [name for name in CJK_FIGURE_FONTS if name in known]

    found = installed()
    if not found:
        known_files = {entry.fname for entry in font_manager.fontManager.ttflist}
        for path in font_manager.findSystemFonts():
            if path not in known_files:
                try:
                    font_manager.fontManager.addfont(path)
                except (OSError, RuntimeError, ValueError):
                    continue  # a file FreeType cannot read is not a font for us
        found = installed()
    if not found:
        _log.warning("no font with Chinese glyphs is installed; Chinese text in figures shows as "
                     "boxes (install %s)", CJK_FONT_PACKAGE)
    return (LATIN_FIGURE_FONT, *found[:1])
