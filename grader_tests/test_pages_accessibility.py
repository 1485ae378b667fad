"""Feedback pages keep nbconvert's accessibility marks: alt text on images, tabindex on lab cells."""
from __future__ import annotations

from grader.pages.exporter import with_accessibility_marks

HEAD = "<!DOCTYPE html>\n<html><head><title>t</title><style>.jp-OutputArea-output{}</style></head>"


def test_an_image_without_alt_text_gets_one():
    page = HEAD + '<body><img src="data:image/png;base64,AAAA"></body></html>'

    assert 'alt="No description has been provided for this image"' in with_accessibility_marks(page)


def test_an_image_with_alt_text_keeps_it():
    page = HEAD + '<body><img alt="a plot" src="data:image/png;base64,AAAA"></body></html>'

    marked = with_accessibility_marks(page)
    assert 'alt="a plot"' in marked and "No description" not in marked


def test_lab_cell_outputs_become_focusable():
    page = HEAD + ('<body><div class="jp-Notebook"><div class="jp-OutputArea-output">1</div>'
                   '<div class="jp-Cell-inputWrapper">x</div></div></body></html>')

    assert with_accessibility_marks(page).count('tabindex="0"') == 2


def test_a_page_with_nothing_to_mark_is_left_as_it_is():
    page = HEAD + "<body>\n  <div class=\"cell\">\n    <pre>1 &lt; 2</pre>\n  </div>\n</body></html>"

    assert with_accessibility_marks(page) == page
