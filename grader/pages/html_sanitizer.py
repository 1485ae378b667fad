"""HTML and SVG from a submission, made inert with nh3 (the Ammonia sanitizer).

Everything a student controls that ends up as markup — markdown cells, ``text/html`` and
``text/markdown`` outputs, SVG images — passes through :func:`sanitize_fragment` or
:func:`sanitize_svg` before a page shows it. Both are allowlists: what is not listed is dropped,
so there is no script element, event handler, ``javascript:`` URL, frame, object, form, ``<meta>``,
``<base>``, ``<style>`` or ``<link>`` left, and images can only be inline ``data:`` images, so a
sanitized fragment loads nothing from the network.
"""
from __future__ import annotations

import nh3

# MathML Core: what the markdown renderer (grader.pages.markdown) produces for maths.
MATHML_TAGS = frozenset({
    "math", "semantics", "annotation", "mrow", "mi", "mn", "mo", "ms", "mtext", "mspace", "msup", "msub",
    "msubsup", "mfrac", "msqrt", "mroot", "mover", "munder", "munderover", "mstyle", "mpadded", "mphantom",
    "menclose", "mtable", "mtr", "mtd", "merror", "mmultiscripts", "mprescripts", "none",
})
MATHML_ATTRIBUTES = frozenset({
    "display", "mathvariant", "displaystyle", "scriptlevel", "stretchy", "fence", "separator", "lspace",
    "rspace", "accent", "accentunder", "movablelimits", "minsize", "maxsize", "symmetric", "form",
    "linethickness", "columnalign", "rowalign", "columnspacing", "rowspacing", "columnlines", "rowlines",
    "notation", "width", "height", "depth", "voffset", "encoding",
})
# Text, tables, lists, code, images (data: only, see _only_inline_images) and maths.
HTML_TAGS = (frozenset(nh3.ALLOWED_TAGS) - {"area", "map"}) | MATHML_TAGS
HTML_ATTRIBUTES = {
    **{tag: set(attrs) for tag, attrs in nh3.ALLOWED_ATTRIBUTES.items()},
    "*": {"class", "title", "lang", "dir", "style"} | MATHML_ATTRIBUTES,
}
# Inline styles are kept for layout (pandas tables align their cells), never for anything that
# takes a URL (backgrounds, list images, fonts, cursors).
STYLE_PROPERTIES = frozenset({
    "color", "background-color", "text-align", "vertical-align", "font-weight", "font-style",
    "font-size", "font-family", "text-decoration", "white-space", "width", "height", "max-width",
    "min-width", "padding", "padding-left", "padding-right", "padding-top", "padding-bottom", "margin",
    "margin-left", "margin-right", "margin-top", "margin-bottom", "border", "border-collapse",
    "border-spacing", "border-color", "border-style", "border-width", "display",
})
URL_SCHEMES = frozenset({"http", "https", "mailto", "data"})
INLINE_IMAGE_PREFIXES = ("data:image/png", "data:image/jpeg", "data:image/gif", "data:image/webp",
                         "data:image/svg+xml")

# SVG images (matplotlib's SVG backend and hand-drawn diagrams): shapes, text, gradients, clipping.
SVG_TAGS = frozenset({
    "svg", "g", "defs", "path", "rect", "circle", "ellipse", "line", "polyline", "polygon", "text", "tspan",
    "title", "desc", "use", "symbol", "clipPath", "mask", "linearGradient", "radialGradient", "stop",
    "pattern", "marker", "metadata",
})
SVG_ATTRIBUTES = {"*": {
    "id", "class", "d", "x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "rx", "ry", "dx", "dy", "width",
    "height", "viewBox", "preserveAspectRatio", "transform", "points", "fill", "fill-opacity", "fill-rule",
    "stroke", "stroke-width", "stroke-linecap", "stroke-linejoin", "stroke-miterlimit", "stroke-dasharray",
    "stroke-dashoffset", "stroke-opacity", "opacity", "clip-path", "clip-rule", "clipPathUnits", "mask",
    "font-family", "font-size", "font-weight", "font-style", "text-anchor", "dominant-baseline",
    "offset", "stop-color", "stop-opacity", "gradientUnits", "gradientTransform", "patternUnits",
    "markerWidth", "markerHeight", "refX", "refY", "orient", "version", "style", "href", "xlink:href",
}}
# An SVG shown as an image is parsed as XML: its root must declare the namespaces it uses.
SVG_NAMESPACES = {"svg": {"xmlns": "http://www.w3.org/2000/svg", "xmlns:xlink": "http://www.w3.org/1999/xlink"}}
SVG_STYLE_PROPERTIES = frozenset({
    "fill", "fill-opacity", "fill-rule", "stroke", "stroke-width", "stroke-linecap", "stroke-linejoin",
    "stroke-miterlimit", "stroke-dasharray", "stroke-dashoffset", "stroke-opacity", "opacity", "clip-path",
    "font-family", "font-size", "font-weight", "font-style", "text-anchor", "dominant-baseline", "color",
    "stop-color", "stop-opacity", "visibility", "display",
})


def _only_inline_images(tag: str, attribute: str, value: str) -> str | None:
    """nh3 attribute filter: an image source must be an inline raster or SVG image (nothing is
    fetched), a link may not be a ``data:`` URL, an SVG reference must stay inside the image."""
    if tag == "img" and attribute == "src":
        return value if value.strip().lower().startswith(INLINE_IMAGE_PREFIXES) else None
    if tag == "a" and attribute == "href":
        return None if value.strip().lower().startswith("data:") else value
    if attribute in ("href", "xlink:href") and tag != "a":
        return value if value.strip().startswith("#") else None
    if "url(" in value.replace(" ", "").lower() and not _only_local_urls(value):
        return None
    return value


def _only_local_urls(value: str) -> bool:
    """Whether every ``url(...)`` in an attribute value points inside the same document."""
    parts = value.replace(" ", "").lower().split("url(")[1:]
    return all(part.lstrip("'\"").startswith("#") for part in parts)


def sanitize_fragment(html: str | bytes) -> str:
    """A piece of HTML from a submission, with everything active removed (see the module doc).

    Accepts bytes (nbconvert passes SVG as UTF-8 bytes to its ``clean_html`` filter).
    """
    if isinstance(html, bytes):
        html = html.decode("utf-8", errors="replace")
    return nh3.clean(
        str(html), tags=set(HTML_TAGS), attributes={k: set(v) for k, v in HTML_ATTRIBUTES.items()},
        attribute_filter=_only_inline_images, url_schemes=set(URL_SCHEMES),
        filter_style_properties=set(STYLE_PROPERTIES), strip_comments=True,
        clean_content_tags={"script", "style"},
    )


def sanitize_svg(svg: str) -> str:
    """An SVG document from a submission as inert shapes and text: no script, handlers,
    foreignObject, external references or style sheets."""
    return nh3.clean(
        svg, tags=set(SVG_TAGS), attributes={k: set(v) for k, v in SVG_ATTRIBUTES.items()},
        attribute_filter=_only_inline_images, url_schemes=set(), filter_style_properties=set(SVG_STYLE_PROPERTIES),
        strip_comments=True, clean_content_tags={"script", "style", "foreignObject"}, link_rel=None,
        set_tag_attribute_values={tag: dict(values) for tag, values in SVG_NAMESPACES.items()},
    )
