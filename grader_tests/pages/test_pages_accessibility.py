"""Feedback pages keep nbconvert's accessibility marks: alt text on images, tabindex on lab cells."""
from __future__ import annotations

from nbformat.v4 import new_code_cell, new_notebook, new_output

from grader.pages.exporter import NO_DESCRIPTION, describe_images, with_accessibility_marks

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


def test_a_page_whose_images_all_have_alt_text_is_left_as_it_is():
    page = HEAD + ('<body><img src="data:image/png;base64,AAAA"\nalt="No description has been '
                   'provided for this image"\n><img alt="a plot" src="data:image/png;base64,AAAA"></body></html>')

    assert with_accessibility_marks(page) == page


def test_an_image_output_without_alt_text_is_given_nbconverts_in_its_metadata():
    nb = new_notebook(cells=[new_code_cell("plot()", outputs=[
        new_output("display_data", data={"image/png": "AAAA", "text/plain": "<Figure>"})])])

    describe_images(nb)

    assert nb.cells[0].outputs[0].metadata["image/png"]["alt"] == NO_DESCRIPTION


def test_an_image_output_with_its_own_alt_text_keeps_it():
    nb = new_notebook(cells=[new_code_cell("plot()", outputs=[
        new_output("display_data", data={"image/jpeg": "AAAA"}, metadata={"image/jpeg": {"alt": "a plot"}})])])

    describe_images(nb)

    assert nb.cells[0].outputs[0].metadata["image/jpeg"]["alt"] == "a plot"
