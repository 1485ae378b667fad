"""Feedback pages highlight code as nbconvert does, once per distinct source in a process."""
from __future__ import annotations

import pytest
from nbconvert.filters.highlight import Highlight2HTML

from grader.pages.exporter import RememberingHighlight, _highlighted

SOURCES = ["import numpy as np\nw = softmax(np.array([3.2, 0.1]))", "", "%%bash\necho hi",
           "s = '<script>alert(1)</script>'"]


@pytest.mark.parametrize("source", SOURCES)
def test_a_highlighted_source_is_the_html_nbconvert_writes(source):
    assert RememberingHighlight(pygments_lexer="ipython3")(source, metadata={}) == \
        Highlight2HTML(pygments_lexer="ipython3")(source, metadata={})


def test_a_cell_in_another_language_is_highlighted_in_that_language():
    metadata = {"magics_language": "bash"}
    assert RememberingHighlight(pygments_lexer="ipython3")("ls -l | wc", metadata=metadata) == \
        Highlight2HTML(pygments_lexer="ipython3")("ls -l | wc", metadata=metadata)


def test_a_source_seen_before_is_not_highlighted_again():
    highlight = RememberingHighlight(pygments_lexer="ipython3")
    highlight("x = 'seen before'")
    hits = _highlighted.cache_info().hits

    highlight("x = 'seen before'")

    assert _highlighted.cache_info().hits == hits + 1
